import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ActivationService } from './actors/activationService.ts';
import { CoinRegistry } from './actors/coinRegistry.ts';
import { ChainFamilies } from './actors/chainFamilies.ts';
import { EmbeddedEventLog } from './events/log/embeddedEventLog.ts';
import { NODE_STREAM, coinStream } from './events/log/eventLog.ts';
import { InFlightActivations } from './events/projections/inFlightActivations.ts';
import { publishMarkFile, startNatsLink, type NatsLink } from './natsLink.ts';
import { readPublishMark } from './events/outbox/publishMark.ts';
import { EnabledCoinsProjection } from './events/projections/enabledCoins.ts';
import { HdAddressesProjection } from './events/projections/hdAddresses.ts';
import { CoinStatusesProjection } from './events/projections/coinStatuses.ts';
import { CoinSettingsService } from './actors/coinSettingsService.ts';
import { TaskStatusProjection } from './events/projections/taskStatus.ts';
import { ActivationTasks, type TaskTimeouts } from './actors/activationTasks.ts';
import { WithdrawService } from './actors/withdrawService.ts';
import type { HardwareWallet } from './actors/ports/hardwareWallet.ts';
import { ActivationError, ErrorType } from './spec/errors.ts';
import { AuthGuard } from './rpc/auth.ts';
import { createDispatcher } from './rpc/dispatcher.ts';
import { startHttpServer } from './rpc/httpServer.ts';
import { StreamHub } from './rpc/stream/streamHub.ts';
import { streamRoute } from './rpc/stream/streamRoutes.ts';
import { TaskDirectory } from './rpc/stream/taskDirectory.ts';
import { ServiceMetrics } from './rpc/metrics/serviceMetrics.ts';
import { metricsRoute } from './rpc/metrics/metricsRoute.ts';
import { timedEventLog } from './events/log/timedEventLog.ts';
import { consoleLog } from './kernel/log.ts';
import { buildMethodTables } from './rpc/methods/index.ts';
import { systemClock, type Clock } from './kernel/clock.ts';
import { ConfigError, type NodeConfig } from './infra/config/index.ts';
import { createEvmFamily } from './infra/evm/evmFamily.ts';
import { createTronFamily } from './infra/tron/tronFamily.ts';
import { BusyNodes } from './infra/failover/busyNodes.ts';
import { createUtxoFamily } from './infra/utxo/utxoFamily.ts';
import {
  InvalidMnemonicError,
  createHdKeyProvider,
  createIguanaKeyProvider,
  InvalidPrivateKeyError,
  hash160,
  isHdKeyProvider,
  type KeyProvider,
} from './infra/keys/index.ts';

/** Version recorded in `SessionStarted`. */
export const SERVICE_VERSION = '0.1.0';

export interface ServiceOptions {
  readonly config: NodeConfig;
  readonly clock?: Clock;
  /** Port override (0 = any free port, for tests); default the config's `rpcport`. */
  readonly port?: number;
  readonly evm?: { readonly nodeTimeoutMs?: number; readonly batchSize?: number };
  readonly tron?: { readonly nodeTimeoutMs?: number };
  /** Overrides of the Electrum client (tests): request budget, ping period, connection stagger. */
  readonly utxo?: { readonly requestTimeoutMs?: number; readonly pingIntervalMs?: number };
  /** Overrides the config's hardware timeouts (tests). */
  readonly taskTimeouts?: TaskTimeouts;
  /** Overrides the device adapter (default: `@trezor/connect` over UDP, loaded on first use). */
  readonly hardware?: () => Promise<HardwareWallet>;
}

/** A running service: its RPC address, its parts (for tests and tools), and a clean stop. */
export interface RunningService {
  readonly url: string;
  readonly sessionId: string;
  /** `node_id`: configured, or derived from the wallet's public key. */
  readonly nodeId: string | undefined;
  readonly service: ActivationService;
  readonly log: EmbeddedEventLog;
  readonly registry: CoinRegistry;
  readonly tasks: ActivationTasks;
  /** The event streams (`/event-stream`, `/events`); `streams.clientCount()` counts open connections. */
  readonly streams: StreamHub;
  /** Present when `nats` is configured. */
  readonly nats: NatsLink | undefined;
  /** What `GET /metrics` shows (docs/metrics.md). */
  readonly metrics: ServiceMetrics;
  /**
   * Stops the service. With `signal` (the OS signal that stops it, e.g. `SIGTERM`) the
   * `/event-stream` clients that enabled `stream::shutdown_signal` are told first.
   */
  stop(signal?: string): Promise<void>;
}

/**
 * Composition root: opens the event log (a new session), rebuilds projections by replaying it,
 * wires keys → chain families → actors → RPC, and starts listening.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const keys = keyProviderFor(config);
  const sessionId = randomUUID();
  const nodeId = config.nodeId ?? (await defaultNodeId(keys, config));
  const log = await EmbeddedEventLog.open({ dir: config.dbdir, sessionId, clock, ...(nodeId === undefined ? {} : { nodeId }) });
  try {
    const enabledCoins = new EnabledCoinsProjection();
    const taskStatuses = new TaskStatusProjection();
    const inFlight = new InFlightActivations();
    const hdAddresses = new HdAddressesProjection();
    // The KV values of this node's coins, in memory: what coin_status reads.
    const coinStatuses = new CoinStatusesProjection(nodeId);
    const streamTasks = new TaskDirectory();
    for await (const event of log.read()) {
      streamTasks.apply(event);
      enabledCoins.apply(event);
      taskStatuses.apply(event);
      inFlight.apply(event);
      hdAddresses.apply(event);
      coinStatuses.apply(event);
    }
    let nats: NatsLink | undefined;
    // The event streams start with the HTTP server, after the metrics that count their clients.
    let streamHub: StreamHub | undefined;
    // Before NATS first connects there is no publisher: what follows the saved mark waits.
    const savedMark = config.nats === undefined ? 0 : (await readPublishMark(publishMarkFile(config.dbdir))).seq;
    const metrics = new ServiceMetrics({
      outboxLag: () => (nats === undefined ? 0 : (nats.publisher()?.lagEvents() ?? Math.max(0, log.lastSeq - savedMark))),
      projectorLag: () => nats?.projector()?.lag().events ?? 0,
      streamClients: () => streamHub?.clientCount() ?? 0,
    });
    log.subscribe((event) => metrics.observe(event));
    log.subscribe((event) => {
      enabledCoins.apply(event);
      taskStatuses.apply(event);
      hdAddresses.apply(event);
      coinStatuses.apply(event);
    });
    await log.append(NODE_STREAM, [
      { type: 'SessionStarted', data: { sessionId, version: SERVICE_VERSION, derivationMethod: keys.derivationMethod } },
    ]);

    const electrum = config.electrum;
    const tlsCa = electrum.caFile === undefined ? undefined : [await readCaFile(electrum.caFile)];
    // One book of busy nodes: a node's Retry-After holds for every coin that uses it.
    const busyNodes = new BusyNodes(clock);
    const families = new ChainFamilies([
      createEvmFamily({ keys, clock, busyNodes, ...options.evm }),
      createTronFamily({ keys, clock, busyNodes, ...options.tron }),
      createUtxoFamily({ keys, clock, requestTimeoutMs: electrum.requestTimeoutMs, clientName: `coin-activation ${SERVICE_VERSION}`, ...(tlsCa ? { tlsCa } : {}), ...options.utxo }),
    ]);
    // The coin actors run their chain work through the family router itself, not the service.
    // What actors append is timed for the metrics.
    const actorLog = timedEventLog(log, (seconds) => metrics.appended(seconds));
    const registry = new CoinRegistry({ log: actorLog, families, gasPrices: { clock, intervalMs: config.gasStationRefreshMs }, balanceWatch: { clock } });
    const hd = isHdKeyProvider(keys) ? { walletId: keys.walletId, known: hdAddresses } : undefined;
    const service = new ActivationService({
      coins: config.coins,
      families,
      registry,
      enabledCoins,
      useTradingProtoV2: config.useTradingProtoV2,
      recordedAddresses: hdAddresses,
      ...(hd ? { hd } : {}),
    });
    const withdrawals = new WithdrawService({ log: actorLog, service, families, coins: config.coins, keys });
    const hw = config.hardwareWallet;
    const hardware: LazyHardware = options.hardware
      ? Object.assign(options.hardware, { close: async () => undefined })
      : lazyHardware({ udpHost: hw.udpHost, udpPort: hw.udpPort, clock });
    const tasks = new ActivationTasks({
      log: actorLog,
      registry,
      service,
      statuses: taskStatuses,
      clock,
      timeouts: options.taskTimeouts ?? { connectMs: hw.connectTimeoutMs, pinMs: hw.pinTimeoutMs, confirmMs: hw.confirmTimeoutMs },
      hardware,
      withdrawals,
    });
    await tasks.recordInterrupted(sessionId);
    for (const { ticker, attempt, sessionId: died } of inFlight.orphans(sessionId)) {
      await log.append(coinStream(ticker), [{ type: 'ActivationInterrupted', data: { ticker, attempt, sessionId: died } }]);
    }
    const auth = new AuthGuard({ rpcPassword: config.rpcPassword.reveal(), clock });
    // coin_status shows a station's price from the same KV values (`gasPrice`, refreshed while active).
    const settings = new CoinSettingsService({ registry, enabledCoins, statuses: coinStatuses, gasPrice: (owner) => coinStatuses.get(owner)?.gasPrice });
    const streaming = config.eventStreaming;
    const streams = new StreamHub({
      log,
      tasks: streamTasks,
      clock,
      heartbeatMs: streaming.heartbeatMs,
      maxBufferedBytes: streaming.maxBufferedBytes,
      wireNames: config.wireNames,
    });
    streamHub = streams;
    const info = { version: SERVICE_VERSION, startedAt: new Date(clock.now()).toISOString(), walletName: config.walletName };
    const tables = buildMethodTables(service, tasks, settings, { info, streams }, config.wireNames, withdrawals);
    metrics.knowMethods([...Object.keys(tables.methods), ...Object.keys(tables.legacyMethods)]);
    const dispatcher = createDispatcher({ ...tables, auth, onAnswered: (method, status) => metrics.rpcAnswered(method, status) });
    const routes = [
      streamRoute({ hub: streams, auth, corsOrigin: streaming.corsOrigin, lastSeq: () => log.lastSeq, log: consoleLog }),
      metricsRoute({ metrics, auth, public: config.metrics.public, log: consoleLog }),
    ];
    const http = await startHttpServer({ host: config.rpcip, port: options.port ?? config.rpcport, dispatcher, routes });
    nats =
      config.nats === undefined || nodeId === undefined
        ? undefined
        : startNatsLink({ settings: config.nats, nodeId, outbox: log, dispatcher, dbdir: config.dbdir, clock });

    return {
      url: http.url,
      sessionId,
      nodeId,
      service,
      log,
      registry,
      tasks,
      streams,
      nats,
      metrics,
      async stop(signal?: string) {
        if (signal !== undefined) streams.shutdownSignal(signal);
        await tasks.stop();
        service.releaseAll();
        // Abort activations first: their requests then answer at once instead of holding the
        // HTTP close (a silent node could otherwise delay shutdown by its whole timeout).
        await registry.stop();
        streams.close(); // open streams would otherwise hold the HTTP close for its whole grace
        await http.close();
        await hardware.close();
        await nats?.stop();
        await log.close();
      },
    };
  } catch (error) {
    await log.close();
    throw error;
  }
}

/**
 * The default `node_id`: the first 20 hex digits of hash160 of the wallet's public key: stable for a
 * wallet, reveals nothing secret. Without a passphrase there is no key: NATS then needs `node_id`.
 */
async function defaultNodeId(keys: KeyProvider, config: NodeConfig): Promise<string | undefined> {
  if (config.passphrase === undefined) {
    if (config.nats !== undefined) throw new ConfigError('node_id', 'MM2.json: node_id: is required with nats when there is no passphrase');
    return undefined;
  }
  if (isHdKeyProvider(keys)) return keys.walletId.slice(0, 20); // hash160 of the master public key
  const publicKey = await keys.publicKey({ coin: 'node_id' });
  return Buffer.from(hash160(publicKey.compressed)).toString('hex').slice(0, 20);
}

/** The `@trezor/connect` adapter, imported and created on first use only. */
function lazyHardware(options: { udpHost: string; udpPort: number; clock: Clock }): LazyHardware {
  let wallet: Promise<HardwareWallet> | undefined;
  const get = () =>
    (wallet ??= import('./infra/hardware/trezorConnectWallet.ts').then((m) => m.createTrezorConnectWallet(options)));
  // Its transport polls and would keep the process alive: release it on stop, if it was ever made.
  return Object.assign(get, { close: async () => (wallet ? (await wallet).close() : undefined) });
}

type LazyHardware = (() => Promise<HardwareWallet>) & { close(): Promise<void> };

/** Iguana key, or with `enable_hd` the BIP39 mnemonic's HD key; an unusable passphrase is a ConfigError. */
function keyProviderFor(config: NodeConfig): KeyProvider {
  if (config.passphrase === undefined) return noKeyProvider;
  try {
    return config.enableHd ? createHdKeyProvider(config.passphrase) : createIguanaKeyProvider(config.passphrase);
  } catch (error) {
    // The messages name the problem (and a mnemonic's word count), never a word or a key.
    if (error instanceof InvalidMnemonicError) throw new ConfigError('passphrase', `MM2.json: ${error.message} (enable_hd is true)`);
    if (error instanceof InvalidPrivateKeyError) throw new ConfigError('passphrase', `MM2.json: ${error.message}`);
    throw error;
  }
}

const NO_PASSPHRASE = 'no passphrase is configured in MM2.json; coins cannot be activated';

/** Without a passphrase the service answers queries but cannot derive addresses. */
const noKeyProvider: KeyProvider = {
  derivationMethod: 'Iguana',
  publicKey: () =>
    Promise.reject(new ActivationError(ErrorType.PrivKeyNotAllowed, NO_PASSPHRASE, NO_PASSPHRASE)),
};

/** The PEM text of `electrum.ca_file`; a missing or non-PEM file stops start-up with a clear line. */
async function readCaFile(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError('electrum.ca_file', `MM2.json: electrum.ca_file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError('electrum.ca_file', `MM2.json: electrum.ca_file: ${path} holds no PEM certificate`);
  }
  return text;
}
