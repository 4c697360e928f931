/**
 * Runs `works` concurrently on a signal of their own: the first failure aborts the others and is
 * the one thrown; `signal` aborts them all. Resolves with every result, in order.
 */
export async function allOrAbort<T extends readonly unknown[]>(
  signal: AbortSignal,
  works: { readonly [K in keyof T]: (signal: AbortSignal) => Promise<T[K]> },
): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const failFast = (error: unknown): never => {
    controller.abort(error);
    throw error;
  };
  try {
    return (await Promise.all(works.map((work) => work(controller.signal).catch(failFast)))) as unknown as T;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
