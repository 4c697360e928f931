import { StatusState } from '../projections/statusState.ts';
import type { ReplayItem, ReplaySource } from './replaySources.ts';

export type { ReplayItem, ReplaySource } from './replaySources.ts';
export { DEFAULT_LOCAL_NODE_ID, embeddedLogSource, jetStreamSource } from './replaySources.ts';

/** Progress of a replay, reported as it reads. */
export interface ReplayProgress {
  readonly position: number;
  readonly total: number;
  readonly unit: ReplaySource['unit'];
  /** Events applied so far. */
  readonly events: number;
  readonly elapsedMs: number;
}

/** What a replay produced. */
export interface ReplayResult {
  /** Every status key, as the projector would have written it. */
  readonly state: StatusState;
  /** `sha256:<hex>` of the canonical JSON of the whole state. */
  readonly digest: string;
  readonly events: number;
  /** Messages skipped as undecodable. */
  readonly refused: number;
  readonly elapsedMs: number;
  readonly eventsPerSecond: number;
}

/** Options of {@link replay}. */
export interface ReplayOptions {
  /** Only this node's events. */
  readonly node?: string;
  readonly onProgress?: (progress: ReplayProgress) => void;
  /** Milliseconds between progress reports (default 100; the last report is always made). */
  readonly progressEveryMs?: number;
  readonly now?: () => number;
}

/**
 * Rebuilds every status projection from sequence 1 of `source`, with the projector's reducers:
 * the same events give the same state, so two replays (and a caught-up KV) share one digest.
 */
export async function replay(source: ReplaySource, options: ReplayOptions = {}): Promise<ReplayResult> {
  const now = options.now ?? (() => performance.now());
  const every = options.progressEveryMs ?? 100;
  const state = new StatusState();
  const started = now();
  let events = 0;
  let position = 0;
  let lastReport = -Infinity;
  const report = () => {
    lastReport = now();
    options.onProgress?.({ position, total: source.total, unit: source.unit, events, elapsedMs: lastReport - started });
  };
  for await (const item of selected(source, options.node)) {
    state.apply(item.event, item.nodeId);
    events++;
    position = item.position;
    if (now() - lastReport >= every) report();
  }
  position = source.total;
  report();
  const elapsedMs = now() - started;
  return {
    state,
    digest: state.digest(),
    events,
    refused: source.refused,
    elapsedMs,
    eventsPerSecond: elapsedMs > 0 ? (events * 1000) / elapsedMs : events,
  };
}

/** The source's events, only `node`'s if given (all of them as they come: no generator in between). */
export function selected(source: ReplaySource, node: string | undefined): AsyncIterable<ReplayItem> {
  return node === undefined ? source.events() : only(source, node);
}

async function* only(source: ReplaySource, node: string): AsyncIterable<ReplayItem> {
  for await (const item of source.events()) if (item.nodeId === node) yield item;
}
