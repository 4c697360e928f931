import { JetStreamApiError, StorageType, type JetStreamManager, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { EVENTS_STREAM, EVENTS_SUBJECT_ROOT } from './subjects.ts';

/** Every subject of the events stream: `activation.events.>`. */
export const EVENTS_SUBJECTS = `${EVENTS_SUBJECT_ROOT}.>`;

/** Tunables of the `ACTIVATION_EVENTS` stream (everything else is fixed by the contract). */
export interface EventsStreamOptions {
  /** Replicas in a cluster (default 1; a single server only supports 1). */
  readonly replicas?: number;
  /** Messages older than this are removed (default 0: kept forever). */
  readonly maxAgeMs?: number;
  /** Window in which a repeated `Nats-Msg-Id` is dropped as a duplicate (default 2 min, at most the max age). */
  readonly duplicateWindowMs?: number;
}

/** What {@link ensureEventsStream} did. */
export interface EnsureStreamResult {
  readonly created: boolean;
  readonly updated: boolean;
  readonly info: StreamInfo;
}

/** Default duplicate window: longer than any publish retry, short enough to keep the index small. */
export const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;

/** The settings of the stream that the options decide (the rest are JetStream's defaults). */
export type EventsStreamConfig = Pick<StreamConfig, 'name' | 'subjects' | 'storage' | 'num_replicas' | 'max_age' | 'duplicate_window' | 'allow_direct'>;

/** The configuration the options ask for. */
export function eventsStreamConfig(options: EventsStreamOptions = {}): EventsStreamConfig {
  const maxAgeMs = options.maxAgeMs ?? 0;
  const duplicateWindowMs =
    options.duplicateWindowMs ?? (maxAgeMs > 0 ? Math.min(maxAgeMs, DEFAULT_DUPLICATE_WINDOW_MS) : DEFAULT_DUPLICATE_WINDOW_MS);
  if (maxAgeMs < 0 || duplicateWindowMs <= 0) throw new RangeError('maxAgeMs must be >= 0 and duplicateWindowMs > 0');
  if (maxAgeMs > 0 && duplicateWindowMs > maxAgeMs) {
    throw new RangeError(`duplicateWindowMs (${duplicateWindowMs}) must not exceed maxAgeMs (${maxAgeMs})`);
  }
  return {
    name: EVENTS_STREAM,
    subjects: [EVENTS_SUBJECTS],
    storage: StorageType.File,
    num_replicas: options.replicas ?? 1,
    max_age: nanos(maxAgeMs),
    duplicate_window: nanos(duplicateWindowMs),
    allow_direct: true,
  };
}

/**
 * Creates the `ACTIVATION_EVENTS` stream, or brings an existing one to the wanted settings
 * (subjects kept plus ours, replicas, max age, duplicate window). Idempotent and safe to race:
 * a concurrent creator makes this one update instead. Refuses a stream that is not on file storage
 * (JetStream cannot change storage in place).
 */
export async function ensureEventsStream(jsm: JetStreamManager, options: EventsStreamOptions = {}): Promise<EnsureStreamResult> {
  const wanted = eventsStreamConfig(options);
  for (let attempt = 0; ; attempt++) {
    const existing = await streamInfo(jsm);
    if (existing === undefined) {
      try {
        return { created: true, updated: false, info: await jsm.streams.add(wanted) };
      } catch (e) {
        if (attempt === 0 && e instanceof JetStreamApiError && e.code === STREAM_NAME_IN_USE) continue;
        throw e;
      }
    }
    if (existing.config.storage !== StorageType.File) {
      throw new Error(`stream ${EVENTS_STREAM} uses ${existing.config.storage} storage; it must be file storage (delete and recreate it)`);
    }
    const changes = differences(existing.config, wanted);
    if (changes === undefined) return { created: false, updated: false, info: existing };
    return { created: false, updated: true, info: await jsm.streams.update(EVENTS_STREAM, changes) };
  }
}

const STREAM_NAME_IN_USE = 10058;

async function streamInfo(jsm: JetStreamManager): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(EVENTS_STREAM);
  } catch (e) {
    if (e instanceof JetStreamApiError && e.code === 10059) return undefined; // stream not found
    throw e;
  }
}

/** The update to apply, or `undefined` when `current` already matches. */
function differences(current: StreamConfig, wanted: EventsStreamConfig): Partial<StreamConfig> | undefined {
  const subjects = current.subjects.includes(EVENTS_SUBJECTS) ? current.subjects : [...current.subjects, EVENTS_SUBJECTS];
  const same =
    subjects === current.subjects &&
    current.num_replicas === wanted.num_replicas &&
    current.max_age === wanted.max_age &&
    current.duplicate_window === wanted.duplicate_window;
  if (same) return undefined;
  return {
    ...current,
    subjects,
    num_replicas: wanted.num_replicas,
    max_age: wanted.max_age,
    duplicate_window: wanted.duplicate_window,
  };
}
