/**
 * The Chrome DevTools protocol over `--remote-debugging-pipe`: JSON messages, each ended by a NUL
 * byte, written to the browser's fd 3 and read from its fd 4. Commands are matched to answers by
 * id; events go to the listeners of their session (flat sessions: `sessionId` on each message).
 */
import type { Readable, Writable } from 'node:stream';

interface Message {
  id?: number;
  sessionId?: string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { message: string; code?: number };
}

type Listener = (params: unknown) => void;

export class PipeConnection {
  #nextId = 1;
  #buffered = '';
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string }>();
  /** sessionId ('' for the browser) → method → listeners */
  readonly #listeners = new Map<string, Map<string, Set<Listener>>>();
  #closed = false;

  constructor(
    private readonly out: Writable,
    input: Readable,
  ) {
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.#receive(chunk));
    input.on('close', () => this.#fail(new Error('the browser closed the DevTools pipe')));
    out.on('error', () => {}); // a write after the browser died: the pending command fails on close
  }

  /** The browser's own session (Target, Browser domains). */
  root(): CdpSession {
    return new CdpSession(this, '');
  }

  session(sessionId: string): CdpSession {
    return new CdpSession(this, sessionId);
  }

  send<T>(sessionId: string, method: string, params: object = {}): Promise<T> {
    if (this.#closed) return Promise.reject(new Error(`${method}: the DevTools pipe is closed`));
    const id = this.#nextId++;
    const message = { id, method, params, ...(sessionId === '' ? {} : { sessionId }) };
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method });
      this.out.write(`${JSON.stringify(message)}\0`);
    });
  }

  on(sessionId: string, method: string, listener: Listener): () => void {
    let byMethod = this.#listeners.get(sessionId);
    if (byMethod === undefined) this.#listeners.set(sessionId, (byMethod = new Map()));
    let set = byMethod.get(method);
    if (set === undefined) byMethod.set(method, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  close(): void {
    this.#fail(new Error('closed'));
  }

  #receive(chunk: string): void {
    this.#buffered += chunk;
    let end: number;
    while ((end = this.#buffered.indexOf('\0')) >= 0) {
      const text = this.#buffered.slice(0, end);
      this.#buffered = this.#buffered.slice(end + 1);
      this.#dispatch(JSON.parse(text) as Message);
    }
  }

  #dispatch(message: Message): void {
    if (message.id !== undefined) {
      const waiting = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(`${waiting.method}: ${message.error.message}`));
      else waiting?.resolve(message.result);
      return;
    }
    if (message.method === undefined) return;
    for (const listener of this.#listeners.get(message.sessionId ?? '')?.get(message.method) ?? []) listener(message.params);
  }

  #fail(error: Error): void {
    this.#closed = true;
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}

/** One target's (or the browser's) side of the connection. */
export class CdpSession {
  constructor(
    private readonly connection: PipeConnection,
    readonly id: string,
  ) {}

  send<T = unknown>(method: string, params: object = {}): Promise<T> {
    return this.connection.send<T>(this.id, method, params);
  }

  on<T = unknown>(method: string, listener: (params: T) => void): () => void {
    return this.connection.on(this.id, method, listener as Listener);
  }

  /** The next `method` event's params. */
  once<T = unknown>(method: string): Promise<T> {
    return new Promise<T>((resolve) => {
      const off = this.on<T>(method, (params) => {
        off();
        resolve(params);
      });
    });
  }
}
