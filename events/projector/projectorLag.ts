/** How far the KV is behind the stream. */
export interface ProjectionLag {
  /** Events of the consumer's filter not applied yet (stream position − acknowledged position). */
  readonly events: number;
  /** Age of the oldest event not applied yet (0 when caught up). */
  readonly ms: number;
}

/**
 * Tracks a projector's lag from what it sees (each message says how many are pending behind it)
 * and from periodic consumer polls (which also see what other processes of the set do).
 */
export class LagTracker {
  #pendingAfterLast = 0;
  #inFlightSince: number | undefined;
  #oldestPendingAt: number | undefined;
  #applied = 0;

  /** A message written to the stream at `writtenAt` (ms) is being applied. */
  delivered(writtenAt: number): void {
    this.#inFlightSince = writtenAt;
  }

  /** The message being applied is acknowledged; `pending` more follow it. */
  applied(pending: number): void {
    this.#applied++;
    this.#inFlightSince = undefined;
    this.#pendingAfterLast = pending;
    this.#oldestPendingAt = undefined;
  }

  /** A token for a consumer poll about to start (see {@link polled}). */
  pollStarted(): number {
    return this.#applied;
  }

  /**
   * A consumer poll: `events` not acknowledged, the oldest written at `oldestAt` (if known). A poll
   * that a message applied here has overtaken (`token` is stale) is older news and is ignored.
   * Returns whether the poll was recorded.
   */
  polled(events: number, oldestAt: number | undefined, token: number = this.#applied): boolean {
    if (token !== this.#applied) return false;
    this.#pendingAfterLast = this.#inFlightSince === undefined ? events : Math.max(0, events - 1);
    this.#oldestPendingAt = events === 0 ? undefined : oldestAt;
    return true;
  }

  /** True while this process applies a message. */
  get busy(): boolean {
    return this.#inFlightSince !== undefined;
  }

  /** The lag now. */
  lag(now: number): ProjectionLag {
    const events = this.#pendingAfterLast + (this.#inFlightSince === undefined ? 0 : 1);
    const since = this.#inFlightSince ?? (events > 0 ? this.#oldestPendingAt : undefined);
    return { events, ms: since === undefined ? 0 : Math.max(0, now - since) };
  }
}
