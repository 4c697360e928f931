import type { ReplayProgress } from './replay.ts';

/** Something to write progress to (stderr), and whether it is a terminal. */
export interface ProgressOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

const BAR_WIDTH = 30;

/** `[#########.....]  45%` */
export function progressBar(position: number, total: number): string {
  const ratio = total > 0 ? Math.min(1, position / total) : 1;
  const filled = Math.round(ratio * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%`;
}

/** Events per second, rounded. */
export function rate(events: number, elapsedMs: number): number {
  return Math.round(elapsedMs > 0 ? (events * 1000) / elapsedMs : events);
}

/**
 * Progress on `out`: on a terminal one bar redrawn in place (`\r`, then clear to the end of the
 * line); otherwise a plain line at most every `lineEveryMs` (default 2 s), so logs stay readable.
 */
export function progressPrinter(out: ProgressOutput, options: { lineEveryMs?: number } = {}): { update(p: ReplayProgress): void; finish(): void } {
  const tty = out.isTTY === true;
  const every = options.lineEveryMs ?? 2_000;
  let lastLine = -Infinity;
  let drawn = false;
  return {
    update(p) {
      const text = `${progressBar(p.position, p.total)} ${p.events} events, ${rate(p.events, p.elapsedMs)} events/s`;
      if (tty) {
        out.write(`\r${text}\x1b[K`);
        drawn = true;
      } else if (p.elapsedMs - lastLine >= every || p.position >= p.total) {
        out.write(`replay: ${text}\n`);
        lastLine = p.elapsedMs;
      }
    },
    finish() {
      if (drawn) out.write('\n');
    },
  };
}
