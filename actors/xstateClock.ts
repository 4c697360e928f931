import type { Clock } from '../kernel/clock.ts';

/** XState's clock interface (`createActor(machine, { clock })`): delayed transitions use it. */
export interface XStateClock {
  setTimeout(fn: (...args: unknown[]) => void, ms: number): number;
  clearTimeout(id: unknown): void;
}

/** Adapts the service's injected clock so machine timeouts (`after`) run on it, fast in tests. */
export function xstateClock(clock: Clock): XStateClock {
  const cancels = new Map<number, () => void>();
  let nextId = 1;
  return {
    setTimeout(fn, ms) {
      const id = nextId++;
      cancels.set(
        id,
        clock.setTimeout(() => {
          cancels.delete(id);
          fn();
        }, ms),
      );
      return id;
    },
    clearTimeout(id) {
      cancels.get(id as number)?.();
      cancels.delete(id as number);
    },
  };
}
