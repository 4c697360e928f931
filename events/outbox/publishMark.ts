import { open, readFile, rename } from 'node:fs/promises';
import type { Clock } from '../../kernel/clock.ts';

/**
 * The outbox publisher's mark: the outbox position up to which every event is known to be in the
 * stream. It only saves work: republishing from an older mark publishes nothing twice (JetStream
 * drops repeated msg ids, and the publisher skips events a subject already holds).
 */

/** The saved mark, 0 when there is none; a damaged file also reads as 0 (republishing is safe). */
export async function readPublishMark(path: string): Promise<{ seq: number; damaged: boolean }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { seq: 0, damaged: false };
    throw e;
  }
  const seq = Number(text.trim());
  return Number.isSafeInteger(seq) && seq >= 0 ? { seq, damaged: false } : { seq: 0, damaged: true };
}

/** Replaces the mark atomically: write a temporary file, fdatasync it, rename it over the mark. */
export async function writePublishMark(path: string, seq: number): Promise<void> {
  const tmp = `${path}.tmp`;
  const file = await open(tmp, 'w');
  try {
    await file.writeFile(`${seq}\n`);
    await file.datasync();
  } finally {
    await file.close();
  }
  await rename(tmp, path);
}

/** When a noted mark is saved: after this many events, or this long after the first unsaved one. */
export interface MarkBatching {
  readonly everyEvents: number;
  readonly everyMs: number;
}

/** Saves noted marks in batches, one write at a time, never going backwards unless told to. */
export class MarkWriter {
  readonly #path: string;
  readonly #clock: Clock;
  readonly #batching: MarkBatching;
  readonly #onError: (e: unknown) => void;
  #saved: number;
  #noted: number;
  #unsaved = 0;
  #cancelTimer: (() => void) | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(init: { path: string; clock: Clock; batching: MarkBatching; saved: number; onError: (e: unknown) => void }) {
    this.#path = init.path;
    this.#clock = init.clock;
    this.#batching = init.batching;
    this.#onError = init.onError;
    this.#saved = init.saved;
    this.#noted = init.saved;
  }

  /** Records that everything up to `seq` is published (a lower value rewinds the mark). */
  note(seq: number): void {
    this.#noted = seq;
    this.#unsaved++;
    if (this.#unsaved >= this.#batching.everyEvents || seq < this.#saved) void this.flush();
    else this.#cancelTimer ??= this.#clock.setTimeout(() => void this.flush(), this.#batching.everyMs);
  }

  /** Saves the newest noted mark (if unsaved); resolves when it is on disk. Errors go to `onError`. */
  flush(): Promise<void> {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#unsaved = 0;
    this.#writing = this.#writing.then(async () => {
      const seq = this.#noted;
      if (seq === this.#saved) return;
      try {
        await writePublishMark(this.#path, seq);
        this.#saved = seq;
      } catch (e) {
        this.#onError(e);
      }
    });
    return this.#writing;
  }
}
