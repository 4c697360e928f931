/**
 * An Electrum protocol 1.4 server on loopback backed by a devnet litecoind (no electrum server
 * package exists for this machine): TCP, SSL and WSS transports, JSON-RPC 2.0 with batches and
 * subscriptions, a script-hash index built from the node's blocks, and Qtum's `blockchain.contract.*`
 * extension answered by an optional EVM. Failure modes (`refuse`, `silent`) serve failover tests.
 */
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { LOOPBACK_HOST } from '../listening.ts';
import type { Litecoind } from '../litecoind/litecoind.ts';
import { nodeRpc } from '../../infra/utxo/daemonRpc.ts';
import { BLOCKCHAIN_METHODS } from './blockchainMethods.ts';
import { createChainIndex } from './chainIndex.ts';
import { contractMethods } from './contractMethods.ts';
import { devnetTls, type TlsKeyPair } from './devnetTls.ts';
import { ELECTRUM_ERROR_CODES, ElectrumError } from './electrumErrors.ts';
import { createMempool } from './mempool.ts';
import type { ElectrumMethod, MethodContext } from './methodContext.ts';
import { startNotifier } from './notifier.ts';
import { SCRIPT_HASH_METHODS } from './scriptHashMethods.ts';
import type { ChainView } from './scriptHashQueries.ts';
import { ELECTRUM_PROTOCOL_VERSION, ELECTRUM_SERVER_SOFTWARE, SERVER_METHODS } from './serverMethods.ts';
import { createSessionHub } from './sessions.ts';
import { TRANSACTION_METHODS } from './transactionMethods.ts';
import { ELECTRUM_TRANSPORTS, listenTransport, type ElectrumTransport, type TransportListener } from './transports.ts';

/** `normal` serves; `refuse` closes new connections at once; `silent` accepts and never answers. */
export const ELECTRUM_SERVER_MODES = { normal: 'normal', refuse: 'refuse', silent: 'silent' } as const;
export type ElectrumServerMode = (typeof ELECTRUM_SERVER_MODES)[keyof typeof ELECTRUM_SERVER_MODES];

export interface ElectrumServerOptions {
  /** The node behind the server (only its RPC endpoint is used). */
  litecoind: Pick<Litecoind, 'rpcUrl' | 'rpcUser' | 'rpcPassword'>;
  /** Answers `blockchain.contract.call` / `.event.get_history` (e.g. an EvmDevnet); without it they are unknown methods. */
  evm?: { request: EvmRequest };
  /** Key and certificate for SSL and WSS; default `devnetTls().trusted` (signed by the test CA). */
  tls?: TlsKeyPair;
  /** Default all three. */
  transports?: readonly ElectrumTransport[];
  /** Default 127.0.0.1. */
  host?: string;
  /** Per transport; default 0: a free port. */
  ports?: Partial<Record<ElectrumTransport, number>>;
  /** Default `normal`. */
  mode?: ElectrumServerMode;
  /** How often subscriptions are checked for a new tip or status (default 200 ms). */
  pollMs?: number;
}

export interface ElectrumServer {
  /** `127.0.0.1:<port>` of each transport started. */
  tcp?: string;
  ssl?: string;
  wss?: string;
  /** The method of every request received, in order, answered or not (batches add each element). */
  readonly hits: readonly string[];
  /** Every message received, answered or not, as its methods (a batch is one request with several). */
  readonly requests: readonly (readonly string[])[];
  /** TCP connections received since start, on all transports, including refused ones. */
  connections(): number;
  /** Sessions open right now (refused connections never open one). */
  openSessions(): number;
  setMode(mode: ElectrumServerMode): void;
  /** Closes the listeners and drops every connection. Idempotent. */
  stop(): Promise<void>;
}

/** Indexes the node's chain, then listens; resolves once every transport is up. */
export async function startElectrumServer(options: ElectrumServerOptions): Promise<ElectrumServer> {
  const rpc = nodeRpc(options.litecoind, { exactAmounts: true });
  const chain = createChainIndex(rpc);
  const mempool = createMempool(rpc);
  await chain.sync();
  const synced = async () => (await chain.sync(), chain);
  async function view(): Promise<ChainView> {
    for (let attempt = 1; ; attempt++) {
      const tip = (await synced()).blockHash(chain.tipHeight());
      const snapshot = await mempool.snapshot();
      // A block found between the two reads would hide its transactions: read both again.
      if (attempt >= 3 || (await rpc<string>('getbestblockhash')) === tip) return { chain, mempool: snapshot };
    }
  }

  const methods: Record<string, ElectrumMethod> = {
    ...SERVER_METHODS,
    ...BLOCKCHAIN_METHODS,
    ...TRANSACTION_METHODS,
    ...SCRIPT_HASH_METHODS,
    ...(options.evm ? contractMethods(options.evm) : {}),
  };
  const ports: Partial<Record<ElectrumTransport, number>> = {};
  const context: Omit<MethodContext, 'session'> = {
    rpc,
    plainRpc: nodeRpc(options.litecoind),
    chain: synced,
    view,
    evm: options.evm,
    features: () => ({
      genesis_hash: chain.blockHash(0),
      hosts: { [options.host ?? LOOPBACK_HOST]: { tcp_port: ports.TCP ?? null, ssl_port: ports.SSL ?? null } },
      protocol_max: ELECTRUM_PROTOCOL_VERSION,
      protocol_min: ELECTRUM_PROTOCOL_VERSION,
      pruning: null,
      server_version: ELECTRUM_SERVER_SOFTWARE,
      hash_function: 'sha256',
    }),
  };

  let mode = options.mode ?? ELECTRUM_SERVER_MODES.normal;
  let accepted = 0;
  const hits: string[] = [];
  const requests: string[][] = [];
  const hub = createSessionHub({
    requests,
    admit: () => (accepted++, mode !== ELECTRUM_SERVER_MODES.refuse),
    silent: () => mode === ELECTRUM_SERVER_MODES.silent,
    hits,
    run: (method, params, session) => {
      const implementation = Object.hasOwn(methods, method) ? methods[method] : undefined;
      if (!implementation) throw new ElectrumError(ELECTRUM_ERROR_CODES.methodNotFound, `unknown method "${method}"`);
      return implementation(params, { ...context, session });
    },
  });

  const listeners: TransportListener[] = [];
  const addresses: Partial<Record<ElectrumTransport, string>> = {};
  const stopListeners = () => Promise.all(listeners.map((l) => l.stop()));
  try {
    for (const kind of options.transports ?? Object.values(ELECTRUM_TRANSPORTS)) {
      const tls = kind === ELECTRUM_TRANSPORTS.TCP ? undefined : (options.tls ?? devnetTls().trusted);
      const listener = await listenTransport(kind, hub, { host: options.host ?? LOOPBACK_HOST, port: options.ports?.[kind] ?? 0, tls });
      listeners.push(listener);
      addresses[kind] = listener.address;
      ports[kind] = Number(listener.address.slice(listener.address.lastIndexOf(':') + 1));
    }
  } catch (error) {
    await stopListeners();
    throw error;
  }
  const notifier = startNotifier({ everyMs: options.pollMs ?? 200, sessions: hub.sessions, chain: synced, view });

  let stopping: Promise<void> | undefined;
  return {
    tcp: addresses.TCP,
    ssl: addresses.SSL,
    wss: addresses.WSS,
    hits,
    requests,
    connections: () => accepted,
    openSessions: () => [...hub.sessions()].length,
    setMode: (next) => void (mode = next),
    stop: () => (stopping ??= notifier.stop().then(stopListeners).then(() => {})),
  };
}
