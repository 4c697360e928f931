import type { Clock } from '../../kernel/clock.ts';

/** A clock for tests: time moves only when `advance` is called, and due timers fire in order. */
export class ManualClock implements Clock {
  #now: number;
  #timers: { at: number; fn: () => void; id: number }[] = [];
  #nextId = 0;

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): () => void {
    const id = this.#nextId++;
    this.#timers.push({ at: this.#now + Math.max(0, ms), fn, id });
    return () => {
      this.#timers = this.#timers.filter((t) => t.id !== id);
    };
  }

  /** Moves time forward by `ms`, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t.id !== due.id);
      this.#now = due.at;
      due.fn();
    }
    this.#now = target;
  }

  /** How long from now each pending timer is due, soonest first (to tell what is waiting). */
  dueIn(): number[] {
    return this.#timers.map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  /** Number of timers not yet fired (useful to assert that work was cancelled). */
  get pendingTimers(): number {
    return this.#timers.length;
  }
}
