/**
 * One open stream: writes frames to the client's socket, never more than `maxBufferedBytes` behind
 * (docs/streaming.md, slow clients). A client that falls further behind gets a final `overflow`
 * frame naming the last id it was sent, and is closed: it resumes with `Last-Event-ID`, so nothing is
 * dropped silently. While the connection replays the log (a resume), live events wait in memory
 * and are sent after it, each sequence once.
 */
import { ControlFrame, controlFrame } from './sseFrames.ts';

/** The part of an `http.ServerResponse` a connection writes to. */
export interface SseSink {
  write(chunk: string): boolean;
  end(): void;
  readonly writableLength: number;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

export interface StreamConnectionOptions {
  /** Socket backlog above which the client is closed as too slow. */
  readonly maxBufferedBytes: number;
  /** Most live events held while a replay runs; more closes the client as too slow. @default 10 000 */
  readonly maxPendingEvents?: number;
  /** Called once when the connection ends, for whatever reason. */
  readonly onClose: () => void;
}

export class StreamConnection {
  readonly #sink: SseSink;
  readonly #maxBuffered: number;
  readonly #maxPending: number;
  readonly #onClose: () => void;
  /** Highest log sequence handled (sent or filtered out): a later copy of it is skipped. */
  #handled = 0;
  /** The `id:` of the last event frame written. */
  #lastSentId: number | undefined;
  /** Live events that arrived during a replay; `undefined` when not replaying. */
  #pending: { seq: number; frame: string | undefined }[] | undefined;
  #closed = false;

  constructor(sink: SseSink, options: StreamConnectionOptions) {
    this.#sink = sink;
    this.#maxBuffered = options.maxBufferedBytes;
    this.#maxPending = options.maxPendingEvents ?? 10_000;
    this.#onClose = options.onClose;
    sink.once('close', () => this.#finish());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Holds live events until {@link endReplay}; everything up to `afterSeq` counts as handled. */
  beginReplay(afterSeq: number): void {
    this.#handled = afterSeq;
    this.#pending = [];
  }

  /** A historic event (from the log). Resolves once the socket can take more. */
  async replay(seq: number, frame: string | undefined): Promise<void> {
    if (this.#closed || seq <= this.#handled) return;
    this.#handled = seq;
    if (frame === undefined) return;
    this.#lastSentId = seq;
    if (!this.#sink.write(frame)) await this.#drained();
  }

  /** Sends what arrived during the replay (sequences already replayed are skipped) and goes live. */
  endReplay(): void {
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    for (const { seq, frame } of pending) this.deliver(seq, frame);
  }

  /** A live event; `frame` is `undefined` when this connection's selection leaves it out. */
  deliver(seq: number, frame: string | undefined): void {
    if (this.#closed) return;
    if (this.#pending !== undefined) {
      this.#pending.push({ seq, frame });
      if (this.#pending.length > this.#maxPending) this.#overflow();
      return;
    }
    if (seq <= this.#handled) return;
    this.#handled = seq;
    if (frame === undefined) return;
    this.#lastSentId = seq;
    this.#write(frame);
  }

  /** A control frame (`ready`, `heartbeat`): no `id:`, same slow-client bound. */
  control(name: ControlFrame, message?: unknown): void {
    if (!this.#closed) this.#write(controlFrame(name, message));
  }

  /** A streamer's frame (`SHUTDOWN_SIGNAL`): no `id:`, same slow-client bound. */
  streamer(frame: string): void {
    if (!this.#closed) this.#write(frame);
  }

  /** Ends the stream (service stopping). */
  end(): void {
    if (this.#closed) return;
    this.#sink.end();
    this.#finish();
  }

  #write(frame: string): void {
    this.#sink.write(frame);
    if (this.#sink.writableLength > this.#maxBuffered) this.#overflow();
  }

  #overflow(): void {
    const message = { reason: 'client too slow: closed; reconnect with Last-Event-ID to resume', last_event_id: this.#lastSentId ?? null };
    this.#sink.write(controlFrame(ControlFrame.Overflow, message));
    this.end();
  }

  #drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#sink.off('drain', done);
        this.#sink.off('close', done);
        resolve();
      };
      this.#sink.once('drain', done);
      this.#sink.once('close', done);
    });
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = undefined;
    this.#onClose();
  }
}
