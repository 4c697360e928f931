import { randomUUID } from 'node:crypto';
import { ActivationService } from '../actors/activationService.ts';
import { CoinRegistry } from '../actors/coinRegistry.ts';
import { EmbeddedEventLog } from '../events/embeddedEventLog.ts';
import { NODE_STREAM } from '../events/eventLog.ts';
import { EnabledCoinsProjection } from '../events/projections/enabledCoins.ts';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import { AuthGuard } from '../rpc/auth.ts';
import { createDispatcher } from '../rpc/dispatcher.ts';
import { startHttpServer } from '../rpc/httpServer.ts';
import { buildMethodTables } from '../rpc/methods/index.ts';
import { systemClock, type Clock } from './clock/clock.ts';
import { ConfigError, type NodeConfig } from './config/index.ts';
import { createEvmFamily } from './evm/evmFamily.ts';
import { createIguanaKeyProvider, type KeyProvider } from './keys/index.ts';

/** Version recorded in `SessionStarted`. */
export const SERVICE_VERSION = '0.1.0';

export interface ServiceOptions {
  readonly config: NodeConfig;
  readonly clock?: Clock;
  /** Port override (0 = any free port, for tests); default the config's `rpcport`. */
  readonly port?: number;
  readonly evm?: { readonly nodeTimeoutMs?: number; readonly batchSize?: number };
}

/** A running service: its RPC address, its parts (for tests and tools), and a clean stop. */
export interface RunningService {
  readonly url: string;
  readonly sessionId: string;
  readonly service: ActivationService;
  readonly log: EmbeddedEventLog;
  readonly registry: CoinRegistry;
  stop(): Promise<void>;
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
  const log = await EmbeddedEventLog.open({ dir: config.dbdir, sessionId, clock });
  try {
    const enabledCoins = new EnabledCoinsProjection();
    for await (const event of log.read()) enabledCoins.apply(event);
    log.subscribe((event) => enabledCoins.apply(event));
    await log.append(NODE_STREAM, [
      { type: 'SessionStarted', data: { sessionId, version: SERVICE_VERSION, derivationMethod: keys.derivationMethod } },
    ]);

    const families = [createEvmFamily({ keys, clock, ...options.evm })];
    const registry = new CoinRegistry({ log, activateCoin: (plan, signal) => service.activate(plan, signal) });
    const service: ActivationService = new ActivationService({ coins: config.coins, families, registry, enabledCoins });
    const auth = new AuthGuard({ rpcPassword: config.rpcPassword.reveal(), clock });
    const dispatcher = createDispatcher({ ...buildMethodTables(service), auth });
    const http = await startHttpServer({ host: config.rpcip, port: options.port ?? config.rpcport, dispatcher });

    return {
      url: http.url,
      sessionId,
      service,
      log,
      registry,
      async stop() {
        // Abort activations first: their requests then answer at once instead of holding the
        // HTTP close (a silent node could otherwise delay shutdown by its whole timeout).
        await registry.stop();
        await http.close();
        await log.close();
      },
    };
  } catch (error) {
    await log.close();
    throw error;
  }
}

function keyProviderFor(config: NodeConfig): KeyProvider {
  if (config.enableHd) {
    throw new ConfigError('enable_hd', 'MM2.json: enable_hd: HD wallets are not supported by this version yet; set it to false');
  }
  if (config.passphrase === undefined) return noKeyProvider;
  return createIguanaKeyProvider(config.passphrase);
}

/** Without a passphrase the service answers queries but cannot derive addresses. */
const noKeyProvider: KeyProvider = {
  derivationMethod: 'Iguana',
  publicKey: () =>
    Promise.reject(new ActivationError(ErrorType.PrivKeyNotAllowed, 'no passphrase is configured in MM2.json; coins cannot be activated')),
};
