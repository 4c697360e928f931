/**
 * The hub of `/event-stream` and `/events` (docs/streaming.md): follows the event log, renders each
 * event once per kind of frame, and hands it to every open connection; replays the log for a
 * resume; sends the heartbeats on the injected clock.
 */
import type { Clock } from '../../kernel/clock.ts';
import type { StoredEvent } from '../../spec/events.ts';
import type { EventLog } from '../../events/log/eventLog.ts';
import { nextTaskRecord, taskIdOf } from '../../events/projections/taskReducer.ts';
import { renderTaskStatus } from '../../spec/render/taskStatus.ts';
import { WireNames } from '../../spec/wireNames.ts';
import { eventPasses, type EventFilter } from './eventFilter.ts';
import { ControlFrame, domainEventFrame, streamerFrame, taskStatusFrame } from './sseFrames.ts';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { StreamConnection, type SseSink } from './streamConnection.ts';
import type { TaskDirectory } from './taskDirectory.ts';
import { balanceStreamerId, type BalanceUpdate } from '../../spec/balanceStreaming.ts';
import { txHistoryStreamerId } from '../../spec/txHistory.ts';

/** What a connection listens to. */
export type StreamSelection =
  /** `/event-stream?id=`: the status changes of the tasks `init` gave this `client_id`. */
  | { readonly kind: 'tasks'; readonly clientId: number }
  /** `/events`: domain events that pass the filter. */
  | { readonly kind: 'events'; readonly filter: EventFilter };

export interface StreamHubOptions {
  readonly log: EventLog;
  /** Fed by the composition root from the whole log before the hub starts. */
  readonly tasks: TaskDirectory;
  readonly clock: Clock;
  readonly heartbeatMs: number;
  readonly maxBufferedBytes: number;
  /** @default 10 000 */
  readonly maxPendingEvents?: number;
  /** The names task statuses are written in (MM2.json `wire_names`); domain events stay neutral. @default neutral */
  readonly wireNames?: WireNames;
}

/** An event's frames, each rendered at most once however many connections want it. */
class EventFrames {
  #domain: string | undefined;
  #task: { clientId: number; frame: string } | null | undefined;

  constructor(
    readonly event: StoredEvent,
    readonly tasks: TaskDirectory,
    readonly names: WireNames,
  ) {}

  domain(): string {
    return (this.#domain ??= domainEventFrame(this.event));
  }

  /**
   * The task status this event makes, exactly as `task::enable_eth::status` would answer it right
   * after (the same reducer and renderer). None for events that change no visible status
   * (a PIN entered, a cancel, a forget: status then answers `NoSuchTask`), and none for
   * `TaskCreated`: the task's first `TaskProgressed`, written as it starts, carries that same
   * first status (`ActivatingCoin`), so each status is sent once.
   */
  task(): { clientId: number; frame: string } | undefined {
    if (this.#task === undefined) this.#task = this.#renderTask() ?? null;
    return this.#task ?? undefined;
  }

  #renderTask(): { clientId: number; frame: string } | undefined {
    const taskId = taskIdOf(this.event);
    const entry = taskId === undefined ? undefined : this.tasks.get(taskId);
    if (taskId === undefined || entry === undefined || this.event.type === 'TaskCreated') return undefined;
    const record = nextTaskRecord(entry.header, this.event);
    if (record === undefined || record.view.state === 'Cancelled' || record.view.state === 'Forgotten') return undefined;
    return { clientId: entry.clientId, frame: taskStatusFrame(this.event.metadata.seq, taskId, renderTaskStatus(record, this.names)) };
  }
}

function frameFor(selection: StreamSelection, frames: EventFrames): string | undefined {
  if (selection.kind === 'events') return eventPasses(selection.filter, frames.event, frames.tasks) ? frames.domain() : undefined;
  const task = frames.task();
  return task !== undefined && task.clientId === selection.clientId ? task.frame : undefined;
}

/** The reference's streamer id of the shutdown signal (docs/compatibility.md §19). */
export const SHUTDOWN_SIGNAL_STREAMER = 'SHUTDOWN_SIGNAL';

/** `stream::*::enable` refused: the reference's `EnableError`, its manager's reason as `error_data`. */
const enableError = (reason: 'UnknownClient' | 'ClientAlreadyListening', why: string): ActivationError =>
  new ActivationError(ErrorType.EnableError, `${reason}: ${why}`, reason);
/** `stream::disable` refused: the reference's `DisableError`, its manager's reason as `error_data`. */
const disableError = (reason: 'UnknownClient' | 'StreamerNotFound', why: string): ActivationError =>
  new ActivationError(ErrorType.DisableError, `${reason}: ${why}`, reason);

export class StreamHub {
  readonly #options: StreamHubOptions;
  readonly #names: WireNames;
  readonly #connections = new Map<StreamConnection, StreamSelection>();
  /** Client ids whose `/event-stream` connections hear the shutdown signal (while one is open). */
  readonly #shutdownListeners = new Set<number>();
  /** The coins whose balance streamer each client id listens to (`stream::balance::enable`). */
  readonly #balanceListeners = new Map<number, Set<string>>();
  /** The coins whose history streamer each client id listens to (`stream::tx_history::enable`). */
  readonly #historyListeners = new Map<number, Set<string>>();
  readonly #unsubscribe: () => void;
  /** Set while a heartbeat is scheduled: only while some stream is open. */
  #cancelHeartbeat: (() => void) | undefined;
  #closed = false;

  constructor(options: StreamHubOptions) {
    this.#options = options;
    this.#names = options.wireNames ?? WireNames.Neutral;
    this.#unsubscribe = options.log.subscribe((event) => this.#onEvent(event));
  }

  /** Open stream connections (both endpoints): the `coin_activation_stream_clients` gauge. */
  clientCount(): number {
    return this.#connections.size;
  }

  /**
   * Registers a connection, sends `ready`, and when `lastEventId` is given replays the log after it
   * before going live (subscribed first, so no event falls between the replay and the live feed).
   */
  async open(sink: SseSink, selection: StreamSelection, lastEventId: number | undefined, readyMessage: Record<string, unknown>): Promise<void> {
    const { log, maxBufferedBytes, maxPendingEvents } = this.#options;
    const connection = new StreamConnection(sink, {
      maxBufferedBytes,
      ...(maxPendingEvents === undefined ? {} : { maxPendingEvents }),
      onClose: () => {
        this.#connections.delete(connection);
        if (this.#connections.size === 0) this.#stopHeartbeat();
        // As the reference: a client that disconnects stops listening to its streamers.
        if (selection.kind === 'tasks' && !this.#isConnected(selection.clientId)) {
          this.#shutdownListeners.delete(selection.clientId);
          this.#balanceListeners.delete(selection.clientId);
          this.#historyListeners.delete(selection.clientId);
        }
      },
    });
    if (this.#closed) return connection.end();
    if (lastEventId !== undefined) connection.beginReplay(lastEventId);
    this.#connections.set(connection, selection);
    this.#cancelHeartbeat ??= this.#scheduleHeartbeat();
    connection.control(ControlFrame.Ready, { ...readyMessage, last_seq: log.lastSeq });
    if (lastEventId === undefined) return;
    try {
      for await (const event of log.read(lastEventId + 1)) {
        if (connection.closed) return;
        await connection.replay(event.metadata.seq, frameFor(selection, new EventFrames(event, this.#options.tasks, this.#names)));
      }
    } catch {
      return connection.end(); // the log could not be read: the client reconnects and retries
    }
    connection.endReplay();
  }

  /**
   * `stream::shutdown_signal::enable`: the `/event-stream` connections of `clientId` will get
   * `{"_type":"SHUTDOWN_SIGNAL","message":"<signal>"}` when the service is stopped by a signal.
   * As the reference: the client must be connected (`UnknownClient`), and listen once
   * (`ClientAlreadyListening`); it stops listening when its last connection closes.
   */
  enableShutdownSignal(clientId: number): string {
    if (!this.#isConnected(clientId)) throw enableError('UnknownClient', `no /event-stream?id=${clientId} connection is open; open it first`);
    if (this.#shutdownListeners.has(clientId)) throw enableError('ClientAlreadyListening', `client ${clientId} already listens to ${SHUTDOWN_SIGNAL_STREAMER}`);
    this.#shutdownListeners.add(clientId);
    return SHUTDOWN_SIGNAL_STREAMER;
  }

  /** Tells the shutdown listeners which signal stops the service (before {@link close}). */
  shutdownSignal(signal: string): void {
    const frame = streamerFrame(SHUTDOWN_SIGNAL_STREAMER, signal);
    for (const [connection, selection] of this.#connections) {
      if (selection.kind === 'tasks' && this.#shutdownListeners.has(selection.clientId)) connection.streamer(frame);
    }
  }

  /**
   * `stream::balance::enable`: the `/event-stream` connections of `clientId` will get
   * `{"_type":"BALANCE:<coin>","message":[{ticker, address, balance}]}` for each `BalanceChanged`
   * of `coin` (a platform hears its tokens' too, as the reference's EVM streamer). The same rules as
   * the shutdown signal: connected first, once per coin, until the last connection closes.
   */
  enableBalance(clientId: number, coin: string): string {
    const streamerId = balanceStreamerId(coin);
    if (!this.#isConnected(clientId)) throw enableError('UnknownClient', `no /event-stream?id=${clientId} connection is open; open it first`);
    const coins = this.#balanceListeners.get(clientId) ?? new Set<string>();
    if (coins.has(coin)) throw enableError('ClientAlreadyListening', `client ${clientId} already listens to ${streamerId}`);
    this.#balanceListeners.set(clientId, coins.add(coin));
    return streamerId;
  }

  /**
   * `stream::tx_history::enable`: the `/event-stream` connections of `clientId` will get
   * `{"_type":"TX_HISTORY:<coin>","message":<TransactionDetails>}`, one frame per new or changed
   * entry of `coin`'s history (see {@link streamHistory}). The same rules as the balance streamer.
   */
  enableTxHistory(clientId: number, coin: string): string {
    const streamerId = txHistoryStreamerId(coin);
    if (!this.#isConnected(clientId)) throw enableError('UnknownClient', `no /event-stream?id=${clientId} connection is open; open it first`);
    const coins = this.#historyListeners.get(clientId) ?? new Set<string>();
    if (coins.has(coin)) throw enableError('ClientAlreadyListening', `client ${clientId} already listens to ${streamerId}`);
    this.#historyListeners.set(clientId, coins.add(coin));
    return streamerId;
  }

  /** Sends each entry (a rendered `TransactionDetails`) of `coin`'s history to its listeners, one frame per entry. */
  streamHistory(coin: string, entries: readonly unknown[]): void {
    if (this.#historyListeners.size === 0) return;
    const frames = entries.map((entry) => streamerFrame(txHistoryStreamerId(coin), entry));
    for (const [connection, selection] of this.#connections) {
      if (selection.kind !== 'tasks' || !this.#historyListeners.get(selection.clientId)?.has(coin)) continue;
      for (const frame of frames) connection.streamer(frame);
    }
  }

  /** `stream::disable`: `clientId` stops listening to `streamerId` (a balance or history streamer, or the shutdown signal). */
  disableStreamer(clientId: number, streamerId: string): void {
    if (!this.#isConnected(clientId)) throw disableError('UnknownClient', `no /event-stream?id=${clientId} connection is open`);
    const histories = this.#historyListeners.get(clientId);
    const historyCoin = [...(histories ?? [])].find((c) => txHistoryStreamerId(c) === streamerId);
    if (historyCoin !== undefined) return void histories!.delete(historyCoin);
    const coins = this.#balanceListeners.get(clientId);
    const coin = [...(coins ?? [])].find((c) => balanceStreamerId(c) === streamerId);
    if (coin !== undefined) return void coins!.delete(coin);
    if (streamerId === SHUTDOWN_SIGNAL_STREAMER && this.#shutdownListeners.delete(clientId)) return;
    throw disableError('StreamerNotFound', `client ${clientId} does not listen to ${streamerId}`);
  }

  /** Sends a `BalanceChanged` to the clients listening to its coin's or its platform's balance streamer. */
  #streamBalance(event: Extract<StoredEvent, { type: 'BalanceChanged' }>): void {
    const { ticker, platform, address } = event.data;
    const update: BalanceUpdate = { ticker, address, balance: event.data.new };
    const frames = new Map([ticker, platform].map((coin) => [coin, streamerFrame(balanceStreamerId(coin), [update])]));
    for (const [connection, selection] of this.#connections) {
      if (selection.kind !== 'tasks') continue;
      const coins = this.#balanceListeners.get(selection.clientId);
      for (const [coin, frame] of frames) if (coins?.has(coin)) connection.streamer(frame);
    }
  }

  #isConnected(clientId: number): boolean {
    for (const selection of this.#connections.values()) if (selection.kind === 'tasks' && selection.clientId === clientId) return true;
    return false;
  }

  /** Ends every stream and stops following the log. */
  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    this.#stopHeartbeat();
    for (const connection of [...this.#connections.keys()]) connection.end();
  }

  #onEvent(event: StoredEvent): void {
    this.#options.tasks.apply(event);
    if (this.#connections.size === 0) return;
    const frames = new EventFrames(event, this.#options.tasks, this.#names);
    for (const [connection, selection] of this.#connections) connection.deliver(event.metadata.seq, frameFor(selection, frames));
    if (event.type === 'BalanceChanged' && this.#balanceListeners.size > 0) this.#streamBalance(event);
  }

  /** One timer for all streams, running while any is open (beats come every interval from the first open). */
  #scheduleHeartbeat(): () => void {
    return this.#options.clock.setTimeout(() => {
      this.#cancelHeartbeat = undefined;
      for (const connection of [...this.#connections.keys()]) connection.control(ControlFrame.Heartbeat);
      if (!this.#closed && this.#connections.size > 0) this.#cancelHeartbeat = this.#scheduleHeartbeat();
    }, this.#options.heartbeatMs);
  }

  #stopHeartbeat(): void {
    this.#cancelHeartbeat?.();
    this.#cancelHeartbeat = undefined;
  }
}
