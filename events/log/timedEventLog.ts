import { performance } from 'node:perf_hooks';
import type { EventLog } from './eventLog.ts';

/**
 * `log`, with every append timed (from the call until the events are durable, in seconds) and
 * told to `observe` (metrics). Everything else is the log's own.
 */
export function timedEventLog(log: EventLog, observe: (seconds: number) => void): EventLog {
  return {
    get sessionId() {
      return log.sessionId;
    },
    get lastSeq() {
      return log.lastSeq;
    },
    async append(stream, events) {
      const started = performance.now();
      const stored = await log.append(stream, events);
      observe((performance.now() - started) / 1000);
      return stored;
    },
    read: (fromSeq) => log.read(fromSeq),
    subscribe: (listener) => log.subscribe(listener),
    close: () => log.close(),
  };
}
