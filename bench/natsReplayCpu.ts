/**
 * Diagnostic: the CPU cost per event of each step a replay performs, measured in memory (no
 * I/O) over the same messages, to tell which step bounds the replay rates.
 */
import { performance } from 'node:perf_hooks';
import { decodeForProjection } from '../events/projector/projectorMessage.ts';
import { StatusState } from '../events/projections/statusState.ts';
import { decodeRecord, encodeRecord } from '../events/log/recordCodec.ts';
import type { StoredEvent } from '../spec/events.ts';
import type { SentMessage } from './natsLatency.ts';

/** Microseconds per event of each step (and, for the digest, per replay). */
export interface ReplayCpuCosts {
  /** TextDecoder + JSON.parse of the body: all the raw consumer does per message. */
  readonly jsonParseUs: number;
  /** `decodeForProjection` (JSON.parse + compiled schema check + subject parse): the JetStream replay's decode. */
  readonly decodeMessageUs: number;
  /** `decodeRecord` (sha256 checksum + JSON.parse + schema check): the embedded replay's decode. */
  readonly decodeRecordUs: number;
  /** `StatusState.apply` (reducers, canonical per-key state). */
  readonly applyUs: number;
  /** `StatusState.digest()` once at the end, ms. */
  readonly digestMs: number;
}

/** Times each step over all `messages`. */
export function measureReplayCpu(messages: readonly SentMessage[]): ReplayCpuCosts {
  const n = messages.length;
  const bytes = messages.map((m) => Buffer.from(m.body));
  const text = new TextDecoder();

  let t = performance.now();
  let objects = 0;
  for (const b of bytes) if (typeof JSON.parse(text.decode(b)) === 'object') objects++;
  const jsonParseUs = ((performance.now() - t) * 1000) / n;

  // Timed without keeping the results, as the raw parse above and as a replay (which applies each
  // event and drops it): keeping 100,000 decoded events alive would time the GC moving them.
  t = performance.now();
  let ok = 0;
  for (let i = 0; i < n; i++) if (decodeForProjection(messages[i]!.subject, bytes[i]!).ok) ok++;
  const decodeMessageUs = ((performance.now() - t) * 1000) / n;
  if (ok !== n || objects !== n) throw new Error('diagnostic decode lost messages');
  const decoded: { event: StoredEvent; nodeId: string }[] = [];
  for (let i = 0; i < n; i++) {
    const d = decodeForProjection(messages[i]!.subject, bytes[i]!);
    if (d.ok) decoded.push(d);
  }

  const lines = decoded.map((d) => encodeRecord(d.event).slice(0, -1));
  t = performance.now();
  let records = 0;
  for (const line of lines) if (decodeRecord(line) !== undefined) records++;
  const decodeRecordUs = ((performance.now() - t) * 1000) / n;
  if (records !== n) throw new Error('diagnostic decodeRecord refused records');

  const state = new StatusState();
  t = performance.now();
  for (const d of decoded) state.apply(d.event, d.nodeId);
  const applyUs = ((performance.now() - t) * 1000) / n;

  t = performance.now();
  state.digest();
  const digestMs = performance.now() - t;
  return { jsonParseUs, decodeMessageUs, decodeRecordUs, applyUs, digestMs };
}
