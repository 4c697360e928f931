/**
 * A pool of Electrum connections for one coin (spec 4.6, docs/compatibility.md §9): it keeps between
 * `minConnected` and `maxConnected` connections, list order is priority, and requests go to the
 * best open one. A failed server is suspended with exponential backoff plus jitter (10 s doubling
 * to 12 h, as the reference) and retried later. While an attempt hangs, the next server is tried
 * after `staggerMs` (happy-eyeballs style) when `maxConnected` allows, so a dead server never
 * delays a request by more than the request timeout.
 */
import type { Clock } from '../../kernel/clock.ts';
import { TokenReadError } from '../failover/tokenReadError.ts';
import type { ElectrumServer, ElectrumTls } from './electrumChannel.ts';
import { ElectrumConnection, ElectrumConnectionError, ElectrumRpcError, type ElectrumCall } from './electrumConnection.ts';
import { describeFailure, isLive, recovered, serverStates, statusOf, suspend, type ElectrumServerStatus, type ServerState } from './serverState.ts';

export interface ElectrumPoolOptions {
  readonly servers: readonly ElectrumServer[];
  readonly minConnected: number;
  readonly maxConnected: number;
  readonly clock: Clock;
  readonly tls?: ElectrumTls;
  readonly clientName?: string;
  /** Per request and per connection attempt (default 20 s). */
  readonly requestTimeoutMs?: number;
  /** Default 30 s. */
  readonly pingIntervalMs?: number;
  /** First suspension of a failed server (default 10 s); doubles per failure up to `suspendMaxMs` (12 h). */
  readonly suspendInitialMs?: number;
  readonly suspendMaxMs?: number;
  /** Wait before trying the next server while attempts are pending (default 250 ms). */
  readonly staggerMs?: number;
  /** Jitter source in [0, 1) (default Math.random). */
  readonly random?: () => number;
}

/** Every server failed or is suspended. `failures` name each server and why. */
export class ElectrumUnavailableError extends Error {
  readonly failures: readonly string[];
  constructor(failures: readonly string[]) {
    super(`all electrum servers are unavailable: ${failures.join('; ')}`);
    this.name = 'ElectrumUnavailableError';
    this.failures = failures;
  }
}

export type { ElectrumServerStatus };

/** Hears the pool's connections: their server notifications, and each one closing (its subscriptions end with it). */
export interface PoolFollower {
  notification(connection: ElectrumConnection, method: string, params: unknown): void;
  closed(connection: ElectrumConnection): void;
}

export class ElectrumPool {
  readonly #options: Required<Omit<ElectrumPoolOptions, 'tls'>> & { tls: ElectrumTls };
  readonly #servers: ServerState[];
  #waiters: (() => void)[] = [];
  #closed = false;
  #cancelRefill: (() => void) | undefined;
  #cancelStagger: (() => void) | undefined;
  readonly #followers = new Set<PoolFollower>();

  constructor(options: ElectrumPoolOptions) {
    this.#options = {
      tls: {},
      clientName: 'coin-activation',
      requestTimeoutMs: 20_000,
      pingIntervalMs: 30_000,
      suspendInitialMs: 10_000,
      suspendMaxMs: 12 * 60 * 60 * 1000,
      staggerMs: 250,
      random: Math.random,
      ...options,
    };
    this.#servers = serverStates(options.servers);
  }

  /**
   * One call on the best connection. An `ElectrumRpcError` (the server said no) or a
   * `TokenReadError` (the contract said no) is about the request and is not retried elsewhere.
   */
  request<T = unknown>(method: string, params: readonly unknown[], signal?: AbortSignal): Promise<T> {
    return this.use((c) => c.request<T>(method, params, signal), signal);
  }

  /** Calls in one batch (one round trip) on the best connection. */
  batch(calls: readonly ElectrumCall[], signal?: AbortSignal): Promise<unknown[]> {
    return this.use((c) => c.batch(calls, signal), signal);
  }

  /**
   * Runs `work` on the best open connection, connecting as needed. When the connection fails
   * under it, the server is suspended and `work` runs again on the next one (each server once).
   */
  async use<T>(work: (connection: ElectrumConnection) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const failures: string[] = [];
    const tried = new Set<ServerState>();
    for (;;) {
      const state = await this.#acquire(tried, failures, signal);
      tried.add(state);
      try {
        return await work(state.connection!);
      } catch (error) {
        if (error instanceof ElectrumRpcError || error instanceof TokenReadError || signal?.aborted) throw error;
        failures.push(`${state.label}: ${(error as Error).message}`);
        state.connection?.close(error as Error);
      }
    }
  }

  /** Follows every connection's notifications and closes until the returned stop is called. */
  follow(follower: PoolFollower): () => void {
    this.#followers.add(follower);
    return () => void this.#followers.delete(follower);
  }

  /** Connections per server, for diagnostics. */
  status(): ElectrumServerStatus[] {
    const now = this.#options.clock.now();
    return this.#servers.map((s) => statusOf(s, now));
  }

  /** Closes every connection and stops reconnecting. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#cancelRefill?.();
    this.#cancelStagger?.();
    for (const s of this.#servers) {
      s.connecting?.abort(new ElectrumConnectionError('pool closed'));
      s.connection?.close();
    }
    this.#wake();
  }

  /** The best open server not yet tried by this call; connects more servers while none is open. */
  async #acquire(tried: Set<ServerState>, failures: string[], signal?: AbortSignal): Promise<ServerState> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.#closed) throw new ElectrumConnectionError('pool closed');
      const open = this.#servers.find((s) => s.connection && !tried.has(s));
      if (open) return open;
      this.#fill(tried);
      if (!this.#servers.some((s) => s.connecting && !tried.has(s))) {
        const now = this.#options.clock.now();
        for (const s of this.#servers) if (!tried.has(s)) failures.push(describeFailure(s, now));
        throw new ElectrumUnavailableError(failures);
      }
      await this.#changed(signal);
    }
  }

  /** Starts attempts in priority order until `minConnected` are open or pending (at most `maxConnected`). */
  #fill(tried: ReadonlySet<ServerState> = new Set()): void {
    if (this.#closed) return;
    const live = () => this.#servers.filter(isLive).length;
    const usable = () => this.#servers.filter((s) => isLive(s) && !tried.has(s)).length;
    while (live() < this.#options.maxConnected && (live() < this.#options.minConnected || usable() === 0)) {
      const next = this.#nextCandidate();
      if (!next) break;
      this.#connect(next);
    }
    this.#scheduleStagger();
    this.#scheduleRefill();
  }

  #nextCandidate(): ServerState | undefined {
    const now = this.#options.clock.now();
    return this.#servers.find((s) => !s.connection && !s.connecting && s.suspendedUntil <= now);
  }

  /** While nothing is open but attempts hang, start one more server every `staggerMs`. */
  #scheduleStagger(): void {
    this.#cancelStagger?.();
    const pending = this.#servers.some((s) => s.connecting);
    if (!pending || this.#servers.some((s) => s.connection)) return;
    this.#cancelStagger = this.#options.clock.setTimeout(() => {
      const live = this.#servers.filter(isLive).length;
      const next = live < this.#options.maxConnected && !this.#servers.some((s) => s.connection) ? this.#nextCandidate() : undefined;
      if (next) this.#connect(next);
      this.#scheduleStagger();
    }, this.#options.staggerMs);
  }

  /** Below `minConnected` with servers suspended: try again when the first suspension ends. */
  #scheduleRefill(): void {
    this.#cancelRefill?.();
    const now = this.#options.clock.now();
    const live = this.#servers.filter(isLive).length;
    const resumes = this.#servers.filter((s) => s.suspendedUntil > now).map((s) => s.suspendedUntil);
    if (this.#closed || live >= this.#options.minConnected || resumes.length === 0) return;
    this.#cancelRefill = this.#options.clock.setTimeout(() => this.#fill(), Math.min(...resumes) - now);
  }

  #connect(state: ServerState): void {
    const attempt = new AbortController();
    state.connecting = attempt;
    const options = {
      clock: this.#options.clock,
      requestTimeoutMs: this.#options.requestTimeoutMs,
      pingIntervalMs: this.#options.pingIntervalMs,
      clientName: this.#options.clientName,
      tls: this.#options.tls,
      onNotification: (method: string, params: unknown) => {
        const connection = state.connection;
        if (connection !== undefined) for (const f of [...this.#followers]) f.notification(connection, method, params);
      },
      onClose: (reason: Error) => {
        const connection = state.connection;
        if (connection === undefined) return; // the attempt itself failed: handled below
        state.connection = undefined;
        for (const f of [...this.#followers]) f.closed(connection);
        this.#suspend(state, reason);
      },
    };
    ElectrumConnection.open(state.server, options, attempt.signal).then(
      (connection) => {
        state.connecting = undefined;
        if (this.#closed) return connection.close();
        recovered(state, connection);
        this.#wake();
      },
      (error: unknown) => {
        state.connecting = undefined;
        if (!this.#closed) this.#suspend(state, error as Error);
      },
    );
  }

  #suspend(state: ServerState, reason: Error): void {
    const o = this.#options;
    suspend(state, reason, o.clock.now(), { initialMs: o.suspendInitialMs, maxMs: o.suspendMaxMs, random: o.random });
    this.#wake();
    this.#fill();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves at the next state change (a connection opened or failed, or the pool closed). */
  #changed(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
}
