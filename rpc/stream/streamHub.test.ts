import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import type { EventLog } from '../../events/log/eventLog.ts';
import { StreamHub, type StreamSelection } from './streamHub.ts';
import { TaskDirectory } from './taskDirectory.ts';
import type { SseSink } from './streamConnection.ts';
import { WireNames } from '../../spec/wireNames.ts';

/** An in-memory log; `duringRead` runs after the first event a read yields (to race a replay). */
class MemoryLog implements EventLog {
  readonly sessionId = 's1';
  readonly events: StoredEvent[] = [];
  readonly #listeners = new Set<(e: StoredEvent) => void>();
  duringRead: (() => void) | undefined;
  /** Whether a read sees events appended after it started (the file log does; a snapshot would not). */
  readSeesLaterAppends = true;

  get lastSeq(): number {
    return this.events.length;
  }
  async append(stream: string, events: readonly DomainEvent[]): Promise<StoredEvent[]> {
    return events.map((e) => this.appendNow(stream, e));
  }
  appendNow(stream: string, event: DomainEvent): StoredEvent {
    const seq = this.events.length + 1;
    const stored = { ...event, metadata: { eventId: `e${seq}`, seq, stream, streamSeq: seq, sessionId: this.sessionId, time: '2026-01-01T00:00:00.000Z' } } as StoredEvent;
    this.events.push(stored);
    for (const l of this.#listeners) l(stored);
    return stored;
  }
  async *read(fromSeq = 1): AsyncIterable<StoredEvent> {
    const source = this.readSeesLaterAppends ? this.events : [...this.events];
    let first = true;
    for (let i = fromSeq - 1; i < source.length; i++) {
      yield source[i]!;
      if (first) {
        first = false;
        const hook = this.duringRead;
        this.duringRead = undefined;
        hook?.();
      }
    }
  }
  subscribe(listener: (e: StoredEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  async close(): Promise<void> {}
}

class FakeSink extends EventEmitter implements SseSink {
  readonly written: string[] = [];
  writableLength = 0;
  ended = false;
  /** Bytes each write adds to the backlog (0: the socket keeps up). */
  backlogPerWrite = 0;
  write(chunk: string): boolean {
    this.written.push(chunk);
    this.writableLength += this.backlogPerWrite;
    return true;
  }
  end(): void {
    this.ended = true;
    this.emit('close');
  }
  ids(): number[] {
    return this.written.flatMap((f) => (/^id: (\d+)$/m.exec(f) ? [Number(/^id: (\d+)$/m.exec(f)![1])] : []));
  }
  names(): string[] {
    return this.written.map((f) => /^event: (\S+)$/m.exec(f)?.[1] ?? 'message');
  }
}

const session = (n: number): DomainEvent => ({ type: 'SessionStarted', data: { sessionId: `s${n}`, version: '1', derivationMethod: 'Iguana' } });
const everything: StreamSelection = { kind: 'events', filter: { coins: new Set(), tasks: new Set(), types: new Set() } };

function hubOver(log: MemoryLog, clock = new ManualClock(), maxBufferedBytes = 1_000_000, wireNames?: WireNames) {
  const tasks = new TaskDirectory();
  for (const e of log.events) tasks.apply(e);
  return new StreamHub({ log, tasks, clock, heartbeatMs: 15_000, maxBufferedBytes, ...(wireNames === undefined ? {} : { wireNames }) });
}

describe('StreamHub', () => {
  for (const readSeesLaterAppends of [true, false]) {
    it(`given a resume whose replay races new events (read ${readSeesLaterAppends ? 'sees' : 'misses'} them), then every event comes once, in order`, async () => {
      const log = new MemoryLog();
      log.readSeesLaterAppends = readSeesLaterAppends;
      for (let i = 1; i <= 4; i++) log.appendNow('node', session(i));
      const hub = hubOver(log);
      log.duringRead = () => {
        log.appendNow('node', session(5));
        log.appendNow('node', session(6));
      };
      const sink = new FakeSink();
      await hub.open(sink, everything, 2, {});
      log.appendNow('node', session(7));
      assert.deepEqual(sink.ids(), [3, 4, 5, 6, 7]);
      assert.equal(sink.names()[0], 'ready');
    });
  }

  it('given a client whose socket backlog passes the bound, then it gets a final overflow frame naming its last id and is closed', async () => {
    const log = new MemoryLog();
    const hub = hubOver(log, new ManualClock(), 1000);
    const sink = new FakeSink();
    await hub.open(sink, everything, undefined, {});
    log.appendNow('node', session(1));
    sink.backlogPerWrite = 600;
    log.appendNow('node', session(2));
    log.appendNow('node', session(3));
    assert.equal(hub.clientCount(), 0);
    assert.ok(sink.ended);
    assert.deepEqual(sink.names(), ['ready', 'SessionStarted', 'SessionStarted', 'SessionStarted', 'overflow']);
    assert.deepEqual(JSON.parse(sink.written.at(-1)!.split('data: ')[1]!).message.last_event_id, 3);
    log.appendNow('node', session(4));
    assert.equal(sink.written.length, 5, 'nothing is written after the close');
  });

  it('given open streams, when the interval passes on the injected clock, then each gets a heartbeat; close ends them and the beats', async () => {
    const log = new MemoryLog();
    const clock = new ManualClock();
    const hub = hubOver(log, clock);
    assert.equal(clock.pendingTimers, 0, 'no timer while no stream is open');
    const [a, b] = [new FakeSink(), new FakeSink()];
    await hub.open(a, everything, undefined, {});
    await hub.open(b, { kind: 'tasks', clientId: 1 }, undefined, { client_id: 1 });
    assert.equal(hub.clientCount(), 2);
    clock.advance(15_000);
    assert.deepEqual(a.names(), ['ready', 'heartbeat']);
    assert.deepEqual(b.names(), ['ready', 'heartbeat']);
    hub.close();
    assert.ok(a.ended && b.ended);
    assert.equal(hub.clientCount(), 0);
    assert.equal(clock.pendingTimers, 0);
  });

  it('given tasks of two client ids, then /event-stream frames go to the task\'s client id only, none for TaskCreated or a cancel', async () => {
    const log = new MemoryLog();
    const hub = hubOver(log);
    const [one, two] = [new FakeSink(), new FakeSink()];
    await hub.open(one, { kind: 'tasks', clientId: 1 }, undefined, {});
    await hub.open(two, { kind: 'tasks', clientId: 2 }, undefined, {});
    log.appendNow('task.0', { type: 'TaskCreated', data: { taskId: 0, ticker: 'ETH', tokens: [], keyPolicy: 'ContextPrivKey', getBalances: true, clientId: 1 } });
    log.appendNow('task.0', { type: 'TaskProgressed', data: { taskId: 0, status: 'InProgress', details: 'ActivatingCoin' } });
    log.appendNow('task.0', { type: 'TaskCancelled', data: { taskId: 0 } });
    assert.deepEqual(one.ids(), [2]);
    assert.equal(one.written[1], 'id: 2\ndata: {"_type":"TASK:0","message":{"status":"InProgress","details":"ActivatingCoin"}}\n\n');
    assert.deepEqual(two.ids(), []);
  });

  it('given wire_names reference, then /event-stream frames name the hardware steps as the reference does, while /events keeps the log\'s neutral names', async () => {
    const log = new MemoryLog();
    const hub = hubOver(log, new ManualClock(), 1_000_000, WireNames.Reference);
    const [tasks, events] = [new FakeSink(), new FakeSink()];
    await hub.open(tasks, { kind: 'tasks', clientId: 3 }, undefined, {});
    await hub.open(events, { kind: 'events', filter: { coins: new Set(), tasks: new Set(), types: new Set() } }, undefined, {});
    log.appendNow('task.0', { type: 'TaskCreated', data: { taskId: 0, ticker: 'ETH', tokens: [], keyPolicy: 'Hardware', getBalances: true, clientId: 3 } });
    log.appendNow('task.0', { type: 'TaskProgressed', data: { taskId: 0, status: 'InProgress', details: 'WaitingForHardwareToConnect' } });
    log.appendNow('task.0', { type: 'TaskProgressed', data: { taskId: 0, status: 'UserActionRequired', details: 'EnterHardwarePin' } });
    assert.deepEqual(tasks.written.slice(1), [
      'id: 2\ndata: {"_type":"TASK:0","message":{"status":"InProgress","details":"WaitingForTrezorToConnect"}}\n\n',
      'id: 3\ndata: {"_type":"TASK:0","message":{"status":"UserActionRequired","details":"EnterTrezorPin"}}\n\n',
    ]);
    const domain = events.written.slice(1).join('');
    assert.match(domain, /"details":"WaitingForHardwareToConnect"/);
    assert.match(domain, /"details":"EnterHardwarePin"/);
    assert.doesNotMatch(domain, /Trezor/);
  });
});
