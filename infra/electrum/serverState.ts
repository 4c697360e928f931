/**
 * What the pool knows of each server: its connection or attempt, and its suspension. A failed
 * server is suspended for `initial × 2^(failures−1)` (at most `max`) with ±20 % jitter, so many
 * clients do not retry a recovering server in step (docs/compatibility.md §9: 10 s doubling to 12 h).
 */
import type { ElectrumServer } from './electrumChannel.ts';
import type { ElectrumConnection } from './electrumConnection.ts';

export interface ServerState {
  readonly server: ElectrumServer;
  /** `host:port (PROTOCOL)`: safe to show. */
  readonly label: string;
  connection?: ElectrumConnection;
  connecting?: AbortController;
  failures: number;
  suspendedUntil: number;
  lastError?: string;
}

/** A server's state as `ElectrumPool.status()` reports it. */
export interface ElectrumServerStatus {
  readonly server: string;
  readonly state: 'connected' | 'connecting' | 'suspended' | 'idle';
  readonly lastError?: string;
}

export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** In [0, 1). */
  readonly random: () => number;
}

/** Fresh states for the servers, in priority order. */
export function serverStates(servers: readonly ElectrumServer[]): ServerState[] {
  return servers.map((server) => ({ server, label: `${server.url} (${server.protocol})`, failures: 0, suspendedUntil: 0 }));
}

/** Open or being opened. */
export const isLive = (s: ServerState): boolean => s.connection !== undefined || s.connecting !== undefined;

/** Records a failure and suspends the server (see the module comment). */
export function suspend(state: ServerState, reason: Error, now: number, policy: BackoffPolicy): void {
  state.failures += 1;
  state.lastError = reason.message;
  const base = Math.min(policy.initialMs * 2 ** (state.failures - 1), policy.maxMs);
  state.suspendedUntil = now + Math.round(base * (0.8 + 0.4 * policy.random()));
}

/** A connection opened: failures are forgotten. */
export function recovered(state: ServerState, connection: ElectrumConnection): void {
  state.connection = connection;
  state.failures = 0;
  delete state.lastError;
}

/** `host:port (P): reason (suspended, retry in N s)` for an unavailability report. */
export function describeFailure(state: ServerState, now: number): string {
  const wait = state.suspendedUntil > now ? ` (suspended, retry in ${Math.ceil((state.suspendedUntil - now) / 1000)} s)` : '';
  return `${state.label}: ${state.lastError ?? 'not tried'}${wait}`;
}

export function statusOf(state: ServerState, now: number): ElectrumServerStatus {
  return {
    server: state.label,
    state: state.connection ? 'connected' : state.connecting ? 'connecting' : state.suspendedUntil > now ? 'suspended' : 'idle',
    ...(state.lastError === undefined ? {} : { lastError: state.lastError }),
  };
}
