/**
 * One Electrum server connection: JSON-RPC 2.0 with request ids, batches, a per-request timeout on
 * the injected clock, `server.version` negotiation (protocol range 1.2–1.4, docs/compatibility.md §9) and pings.
 * A request that times out closes the connection: a server that stops answering is dead to us.
 */
import type { Clock } from '../../kernel/clock.ts';
import { openChannel, type ElectrumChannel, type ElectrumServer, type ElectrumTls } from './electrumChannel.ts';

/** The server answered with a JSON-RPC error: about the request, not the connection. */
export class ElectrumRpcError extends Error {
  readonly code: number | undefined;
  constructor(method: string, message: string, code: number | undefined) {
    super(`${method}: ${message}`);
    this.name = 'ElectrumRpcError';
    this.code = code;
  }
}

/** The connection failed (refused, TLS, closed, timed out, bad data, unsupported protocol). */
export class ElectrumConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ElectrumConnectionError';
  }
}

export interface ElectrumConnectionOptions {
  readonly clock: Clock;
  /** Budget of the connection attempt and of each request (the reference's 20 s). */
  readonly requestTimeoutMs: number;
  /** `server.ping` period (30 s in the reference); 0 disables. */
  readonly pingIntervalMs: number;
  /** Sent in `server.version`. */
  readonly clientName: string;
  readonly tls: ElectrumTls;
  /** Server notifications (e.g. `blockchain.headers.subscribe`). */
  readonly onNotification?: (method: string, params: unknown) => void;
  /** Called once when the connection closes, for whatever reason. */
  readonly onClose?: (reason: Error) => void;
}

/** The protocol range this client speaks (docs/compatibility.md §9). */
export const PROTOCOL_RANGE = ['1.2', '1.4'] as const;

export interface ElectrumCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

interface Pending {
  readonly method: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** An open, version-negotiated connection. */
export class ElectrumConnection {
  readonly server: ElectrumServer;
  #channel: ElectrumChannel | undefined;
  #options: ElectrumConnectionOptions;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #closed: Error | undefined;
  #cancelPing: (() => void) | undefined;
  /** Negotiated protocol version, e.g. `1.4`. */
  protocolVersion = '';
  serverSoftware = '';

  private constructor(server: ElectrumServer, options: ElectrumConnectionOptions) {
    this.server = server;
    this.#options = options;
  }

  /**
   * Connects and negotiates the version within `requestTimeoutMs`; `signal` aborts the attempt.
   * Rejects with an `ElectrumConnectionError` naming the server.
   */
  static async open(server: ElectrumServer, options: ElectrumConnectionOptions, signal: AbortSignal): Promise<ElectrumConnection> {
    const connection = new ElectrumConnection(server, options);
    const attempt = new AbortController();
    const onAbort = () => attempt.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const cancelTimer = options.clock.setTimeout(
      () => attempt.abort(new ElectrumConnectionError(`no answer within ${options.requestTimeoutMs} ms`)),
      options.requestTimeoutMs,
    );
    try {
      if (signal.aborted) throw signal.reason;
      connection.#channel = await openChannel(
        server,
        { onMessage: (text) => connection.#receive(text), onClose: (reason) => connection.#closeWith(reason) },
        options.tls,
        attempt.signal,
      );
      await connection.#negotiate(attempt.signal);
      connection.#schedulePing();
      return connection;
    } catch (error) {
      connection.close();
      if (signal.aborted) throw signal.reason;
      throw error instanceof ElectrumConnectionError || error instanceof ElectrumRpcError
        ? new ElectrumConnectionError(error.message, { cause: error })
        : new ElectrumConnectionError(describe(error), { cause: error });
    } finally {
      cancelTimer();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Why the connection closed, or `undefined` while open. */
  get closedReason(): Error | undefined {
    return this.#closed;
  }

  /** One call. Rejects with `ElectrumRpcError` (server said no) or `ElectrumConnectionError`. */
  async request<T = unknown>(method: string, params: readonly unknown[], signal?: AbortSignal): Promise<T> {
    const [value] = await this.batch([{ method, params }], signal);
    return value as T;
  }

  /**
   * Several calls in one JSON-RPC batch (one message, one round trip); results in call order.
   * The first failed call rejects the whole batch.
   */
  batch(calls: readonly ElectrumCall[], signal?: AbortSignal): Promise<unknown[]> {
    return this.#send(calls, signal, (results) => Promise.all(results));
  }

  /** {@link batch}, with each call's own outcome: a call the server refused fails alone. */
  batchSettled(calls: readonly ElectrumCall[], signal?: AbortSignal): Promise<PromiseSettledResult<unknown>[]> {
    return this.#send(calls, signal, (results) => Promise.allSettled(results));
  }

  #send<T>(calls: readonly ElectrumCall[], signal: AbortSignal | undefined, settle: (results: Promise<unknown>[]) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new ElectrumConnectionError(`connection closed: ${this.#closed.message}`));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const ids: number[] = [];
    const results = calls.map(
      (call) =>
        new Promise<unknown>((resolve, reject) => {
          const id = this.#nextId++;
          ids.push(id);
          this.#pending.set(id, { method: call.method, resolve, reject });
        }),
    );
    const bodies = calls.map((call, i) => ({ jsonrpc: '2.0', id: ids[i], method: call.method, params: call.params }));
    this.#channel!.send(JSON.stringify(bodies.length === 1 ? bodies[0] : bodies));
    const timeoutMs = this.#options.requestTimeoutMs;
    const cancelTimer = this.#options.clock.setTimeout(
      () => this.#closeWith(new ElectrumConnectionError(`${calls[0]?.method ?? 'request'}: no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onAbort = () => {
      for (const id of ids) this.#pending.get(id)?.reject(signal!.reason);
      for (const id of ids) this.#pending.delete(id);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    return settle(results).finally(() => {
      cancelTimer();
      signal?.removeEventListener('abort', onAbort);
    });
  }

  /** Closes the connection; pending calls reject. Idempotent. */
  close(reason: Error = new ElectrumConnectionError('closed by the client')): void {
    this.#closeWith(reason);
  }

  async #negotiate(signal: AbortSignal): Promise<void> {
    const answer = await this.request<unknown>('server.version', [this.#options.clientName, [...PROTOCOL_RANGE]], signal);
    if (!Array.isArray(answer) || typeof answer[1] !== 'string') {
      throw new ElectrumConnectionError('server.version: unexpected answer');
    }
    const [software, version] = answer as [unknown, string];
    if (compareVersions(version, PROTOCOL_RANGE[0]) < 0 || compareVersions(version, PROTOCOL_RANGE[1]) > 0) {
      throw new ElectrumConnectionError(`server.version: protocol ${version} is outside ${PROTOCOL_RANGE.join('–')}`);
    }
    this.protocolVersion = version;
    this.serverSoftware = String(software).slice(0, 100);
  }

  #schedulePing(): void {
    const interval = this.#options.pingIntervalMs;
    if (interval <= 0 || this.#closed) return;
    this.#cancelPing = this.#options.clock.setTimeout(() => {
      this.request('server.ping', []).then(
        () => this.#schedulePing(),
        () => undefined, // a failed ping has already closed the connection (timeout) or it was closed
      );
    }, interval);
  }

  #receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return this.#closeWith(new ElectrumConnectionError('the server sent a message that is not JSON'));
    }
    for (const item of Array.isArray(message) ? message : [message]) this.#dispatch(item);
  }

  #dispatch(item: unknown): void {
    if (typeof item !== 'object' || item === null) return;
    const { id, result, error, method, params } = item as { id?: unknown; result?: unknown; error?: unknown; method?: unknown; params?: unknown };
    if (id === undefined || id === null) {
      if (typeof method === 'string') this.#options.onNotification?.(method, params);
      return;
    }
    const pending = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (!pending) return; // an answer to an aborted call
    this.#pending.delete(id as number);
    if (error !== undefined && error !== null) {
      const { message, code } = (typeof error === 'object' ? error : { message: String(error) }) as { message?: unknown; code?: unknown };
      pending.reject(new ElectrumRpcError(pending.method, String(message ?? 'error').slice(0, 300), typeof code === 'number' ? code : undefined));
    } else pending.resolve(result);
  }

  #closeWith(reason: Error): void {
    if (this.#closed) return;
    this.#closed = reason;
    this.#cancelPing?.();
    this.#channel?.close(reason);
    const error = reason instanceof ElectrumConnectionError ? reason : new ElectrumConnectionError(reason.message, { cause: reason });
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    this.#options.onClose?.(reason);
  }
}

/** Compares dotted versions numerically (`1.10` > `1.4`). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Number.isNaN(d) ? -1 : d;
  }
  return 0;
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
