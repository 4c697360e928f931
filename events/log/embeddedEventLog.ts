import { randomUUID } from 'node:crypto';
import { createReadStream, fdatasync, writeSync } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import { systemClock, type Clock } from '../../kernel/clock.ts';
import type { EventLog } from './eventLog.ts';
import { decodeRecordBytes, encodeRecord } from './recordCodec.ts';
import { acquireDirLock } from './dirLock.ts';

export interface EmbeddedEventLogOptions {
  readonly dir: string;
  readonly sessionId: string;
  /** Recorded in every event's metadata (NATS `node_id`). */
  readonly nodeId?: string;
  readonly clock?: Clock;
  /** fdatasync after each group commit (default true). Only tests of throughput turn it off. */
  readonly fsync?: boolean;
}

/** What opening found: how many events, and whether a torn last record was dropped. */
export interface RecoveryReport {
  readonly events: number;
  readonly droppedTailBytes: number;
}

interface PendingWrite {
  readonly records: StoredEvent[];
  resolve(records: StoredEvent[]): void;
  reject(e: unknown): void;
}

/** Name of the log file inside `dbdir`. */
export const LOG_FILE = 'events.log';

/**
 * Append-only event log in one file under `dbdir`. Appends are group-committed (one write and one
 * fdatasync for everything queued meanwhile). On open, a torn last record is detected by its
 * checksum or missing newline and truncated away; damage anywhere else refuses to open, because
 * silently skipping a record would lose history.
 */
export class EmbeddedEventLog implements EventLog {
  readonly sessionId: string;
  readonly nodeId: string | undefined;
  readonly recovery: RecoveryReport;
  readonly #path: string;
  readonly #file: FileHandle;
  readonly #clock: Clock;
  readonly #fsync: boolean;
  readonly #releaseLock: () => Promise<void>;
  readonly #streamSeq: Map<string, number>;
  readonly #listeners = new Set<(e: StoredEvent) => void>();
  #seq: number;
  /**
   * Newest sequence whose listeners have run: `read` stops there, so a reader never sees an event
   * before the views fed by the listeners (status, coin_status) do.
   */
  #published: number;
  #queue: PendingWrite[] = [];
  #draining = false;
  #failure: unknown = undefined;

  private constructor(init: {
    options: EmbeddedEventLogOptions;
    path: string;
    file: FileHandle;
    releaseLock: () => Promise<void>;
    scan: ScanResult;
  }) {
    this.sessionId = init.options.sessionId;
    this.nodeId = init.options.nodeId;
    this.#clock = init.options.clock ?? systemClock;
    this.#fsync = init.options.fsync ?? true;
    this.#path = init.path;
    this.#file = init.file;
    this.#releaseLock = init.releaseLock;
    this.#seq = init.scan.lastSeq;
    this.#published = init.scan.lastSeq;
    this.#streamSeq = init.scan.streamSeq;
    this.recovery = { events: init.scan.lastSeq, droppedTailBytes: init.scan.droppedTailBytes };
  }

  /** Opens (creating if needed) the log in `dir`, recovering from a torn last record. */
  static async open(options: EmbeddedEventLogOptions): Promise<EmbeddedEventLog> {
    await mkdir(options.dir, { recursive: true });
    const releaseLock = await acquireDirLock(options.dir);
    try {
      const path = join(options.dir, LOG_FILE);
      const file = await open(path, 'a+');
      const scan = await scanLog(path);
      if (scan.droppedTailBytes > 0) await file.truncate(scan.goodBytes);
      return new EmbeddedEventLog({ options, path, file, releaseLock, scan });
    } catch (e) {
      await releaseLock();
      throw e;
    }
  }

  get lastSeq(): number {
    return this.#seq;
  }

  append(stream: string, events: readonly DomainEvent[]): Promise<StoredEvent[]> {
    if (this.#failure !== undefined) return Promise.reject(logFailedError(this.#failure));
    const time = new Date(this.#clock.now()).toISOString();
    const records = events.map((event): StoredEvent => {
      const streamSeq = (this.#streamSeq.get(stream) ?? 0) + 1;
      this.#streamSeq.set(stream, streamSeq);
      const metadata = {
        eventId: randomUUID(),
        seq: ++this.#seq,
        stream,
        streamSeq,
        sessionId: this.sessionId,
        ...(this.nodeId === undefined ? {} : { nodeId: this.nodeId }),
        time,
      };
      return { ...event, metadata } as StoredEvent;
    });
    return new Promise((resolve, reject) => {
      this.#queue.push({ records, resolve, reject });
      void this.#drain();
    });
  }

  /** Events from `fromSeq` on, as stored; {@link storedJsonOf} gives each one's JSON as written. */
  async *read(fromSeq = 1): AsyncIterable<StoredEvent> {
    for await (const records of readRecords(this.#path)) {
      for (const { event, json } of records) {
        if (event === undefined) return;
        if (event.metadata.seq > this.#published) return;
        if (event.metadata.seq < fromSeq) continue;
        storedJson.set(event, json!);
        yield event;
      }
    }
  }

  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    while (this.#draining || this.#queue.length > 0) await new Promise((r) => setImmediate(r));
    await this.#file.close();
    await this.#releaseLock();
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0);
      try {
        if (this.#failure !== undefined) throw logFailedError(this.#failure);
        writeAll(this.#file.fd, Buffer.from(batch.flatMap((w) => w.records.map(encodeRecord)).join('')));
        if (this.#fsync) await datasync(this.#file.fd);
      } catch (e) {
        // Fail-stop: sequence numbers were handed out; writing after a gap would corrupt order.
        this.#failure ??= e;
        for (const w of batch) w.reject(logFailedError(e));
        continue;
      }
      for (const w of batch) {
        for (const record of w.records) {
          for (const l of this.#listeners) l(record);
          this.#published = record.metadata.seq;
        }
        w.resolve(w.records);
      }
    }
    this.#draining = false;
  }
}

/**
 * Writes the whole buffer to the (append-mode) log file. Synchronous on purpose: a few hundred
 * bytes into the page cache take microseconds, while a thread-pool write costs two thread wake-ups
 * and a turn of the event loop per group commit, which at a few appends a second is most of an
 * append's CPU. The fdatasync that follows, which waits on the disk, stays off the event loop.
 */
function writeAll(fd: number, bytes: Buffer): void {
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
}

function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));
}

function logFailedError(cause: unknown): Error {
  return new Error(`event log is not writable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
}

interface ScanResult {
  lastSeq: number;
  goodBytes: number;
  droppedTailBytes: number;
  streamSeq: Map<string, number>;
}

async function scanLog(path: string): Promise<ScanResult> {
  const streamSeq = new Map<string, number>();
  let lastSeq = 0;
  let goodBytes = 0;
  let damagedAt: number | undefined;
  let totalBytes = 0;
  for await (const records of readRecords(path)) for (const { event, endOffset, startOffset } of records) {
    totalBytes = endOffset;
    if (event === undefined) {
      damagedAt ??= startOffset;
      continue;
    }
    if (damagedAt !== undefined) {
      throw new Error(`event log ${path} is damaged at byte ${damagedAt} (a good record follows); refusing to drop history`);
    }
    if (event.metadata.seq !== lastSeq + 1) {
      throw new Error(`event log ${path} skips from seq ${lastSeq} to ${event.metadata.seq} at byte ${startOffset}`);
    }
    lastSeq = event.metadata.seq;
    streamSeq.set(event.metadata.stream, event.metadata.streamSeq);
    goodBytes = endOffset;
  }
  return { lastSeq, goodBytes, droppedTailBytes: totalBytes - goodBytes, streamSeq };
}

/** The JSON of events read back by `read`, as the log holds it (see {@link storedJsonOf}). */
const storedJson = new WeakMap<StoredEvent, Uint8Array>();

/**
 * The JSON of an event object `EmbeddedEventLog.read` returned, as the UTF-8 bytes the log holds
 * (what `JSON.stringify` of the unmodified event gives), so a publisher can send it without
 * encoding the event again; `undefined` for any other object (a live event, a copy).
 */
export function storedJsonOf(event: StoredEvent): Uint8Array | undefined {
  return storedJson.get(event);
}

interface LogRecord {
  readonly event: StoredEvent | undefined;
  /** The event's JSON as stored. */
  readonly json: Uint8Array | undefined;
  readonly startOffset: number;
  readonly endOffset: number;
}

/**
 * Streams records with byte offsets, all those of one read chunk at a time (an async step per
 * chunk, not per record); a damaged or unterminated line yields `event: undefined`.
 */
async function* readRecords(path: string): AsyncIterable<LogRecord[]> {
  let carry: Buffer = Buffer.alloc(0);
  let offset = 0;
  for await (const chunk of createReadStream(path)) {
    const buf = carry.length === 0 ? (chunk as Buffer) : Buffer.concat([carry, chunk as Buffer]);
    const records: LogRecord[] = [];
    let start = 0;
    for (let nl: number; (nl = buf.indexOf(0x0a, start)) !== -1; start = nl + 1) {
      const record = decodeRecordBytes(buf.subarray(start, nl));
      records.push({ event: record?.event, json: record?.json, startOffset: offset + start, endOffset: offset + nl + 1 });
    }
    offset += start;
    carry = buf.subarray(start);
    if (records.length > 0) yield records;
  }
  if (carry.length > 0) yield [{ event: undefined, json: undefined, startOffset: offset, endOffset: offset + carry.length }];
}
