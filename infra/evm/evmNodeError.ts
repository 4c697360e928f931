import type { NodeBusy } from '../failover/busyNodes.ts';

/** A node transport failure (refused, HTTP error, malformed body, closed socket): the next node should be tried. */
export class EvmNodeError extends Error {
  /** Set when the node said "busy" (HTTP 429, a rate-limit error): failover leaves it alone a while. */
  readonly busy?: NodeBusy;
  constructor(message: string, options?: { cause?: unknown; busy?: NodeBusy }) {
    super(message, options);
    this.name = 'EvmNodeError';
    if (options?.busy !== undefined) this.busy = options.busy;
  }
}
