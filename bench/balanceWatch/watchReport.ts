/** What each leg of the balance-watch bench measured, and its table. */
import { summarizeLatency } from '../latencySummary.ts';
import { renderTable } from '../table.ts';

export interface WatchPath {
  readonly name: string;
  /** Node requests per minute with no new block. */
  readonly idleRequestsPerMinute: number;
  /** Node requests that read balances, from each block's mine to its last frame (EVM: its eth_calls). */
  readonly requestsPerBlock: readonly number[];
  /** Each changed balance: its frame on `/event-stream`, ms after the mine. */
  readonly delaysMs: readonly number[];
  readonly goalP99Ms: number;
  /** Most balance reads a block may cost: one per node, however many coins. */
  readonly goalRequestsPerBlock: number;
  /**
   * What the node alone needs for the read (measured in the same run), where it is known: the
   * goal is on the delay beyond it, which is the watcher's own.
   */
  readonly nodeReadMs?: number;
}

export interface WatchLeg {
  readonly name: string;
  readonly coins: number;
  readonly blocks: number;
  readonly paths: readonly WatchPath[];
  /** The reference client's polling (one `my_balance` per coin per period), timed in the same run. */
  readonly client: {
    /** What that polling costs the reference's node: one call per `my_balance`. */
    readonly requestsPerMinute: number;
    readonly delaysMs: readonly number[];
    /** Changes the client had not seen when the window closed. */
    readonly unseen: number;
    /** What a `my_balance` of every coin cost our node after the run (answered from watched values). */
    readonly ourNodeCallsForAllCoins: number;
  };
  readonly [extra: string]: unknown;
}

const range = (values: readonly number[]) => {
  const min = Math.min(...values);
  const max = Math.max(...values);
  return min === max ? String(min) : `${min}–${max}`;
};
const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} ms`);

/** One row per path and one for the client's polling; returns the lines and whether every goal was met. */
export function renderLeg(leg: WatchLeg): { lines: string[]; met: boolean } {
  let met = true;
  const rows = leg.paths.map((p) => {
    const d = summarizeLatency(p.delaysMs);
    const requestsMet = p.requestsPerBlock.every((n) => n <= p.goalRequestsPerBlock);
    const node = p.nodeReadMs ?? 0;
    const delayMet = d.p99Ms - node <= p.goalP99Ms;
    met &&= requestsMet && delayMet;
    return [
      p.name,
      p.idleRequestsPerMinute.toFixed(1),
      `${range(p.requestsPerBlock)} (≤ ${p.goalRequestsPerBlock}${requestsMet ? '' : ' MISSED'})`,
      ms(d.p50Ms),
      ms(d.p99Ms),
      p.nodeReadMs === undefined ? '—' : ms(p.nodeReadMs),
      `${ms(d.p99Ms - node)} (≤ ${ms(p.goalP99Ms)}${delayMet ? '' : ' MISSED'})`,
    ];
  });
  const c = summarizeLatency(leg.client.delaysMs.length > 0 ? leg.client.delaysMs : [Number.NaN]);
  rows.push([`client polls my_balance per coin (reference: 1 node call each)`, leg.client.requestsPerMinute.toFixed(1), '—', ms(c.p50Ms), ms(c.p99Ms), '—', '—']);
  const lines = [
    `${leg.name}: ${leg.coins} coins, ${leg.blocks} blocks each changing every balance`,
    ...renderTable(['path', 'node requests/min idle', 'reads per block', 'change → frame p50', 'p99', 'node alone', 'p99 beyond the node (goal)'], rows),
    `client polling: ${leg.client.delaysMs.length} changes seen, ${leg.client.unseen} not yet when the window closed; our node calls for a my_balance of all ${leg.coins} coins after the run: ${leg.client.ourNodeCallsForAllCoins}`,
  ];
  return { lines, met };
}
