/** A FIFO mutex whose waiters can give up through their abort signal. */

/** Resolves with the release function once the caller holds the lock; rejects with the signal's reason. */
export type DeviceLock = (signal: AbortSignal) => Promise<() => void>;

/** A new, free lock. Releasing twice is harmless. */
export function createDeviceLock(): DeviceLock {
  let held = false;
  const waiters: (() => void)[] = [];
  const handOver = () => {
    const next = waiters.shift();
    if (next === undefined) held = false;
    else next();
  };
  return (signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          handOver();
        });
      };
      const onAbort = () => {
        const index = waiters.indexOf(grant);
        if (index >= 0) waiters.splice(index, 1);
        reject(signal.reason);
      };
      if (!held) {
        held = true;
        return grant();
      }
      waiters.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
}
