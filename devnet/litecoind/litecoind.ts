/**
 * A real litecoind (Litecoin Core 0.21, /usr/bin/litecoind) in regtest for tests and dev mode:
 * RPC on 127.0.0.1 only, no peers, a legacy wallet with mature coins, txindex on.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservePort } from '../testing/ports.ts';
import { httpUrl, LOOPBACK_HOST } from '../listening.ts';
import { formatCoinAmount } from '../../infra/utxo/daemonAmounts.ts';
import { spawnDaemon, type DaemonProcess } from './daemonProcess.ts';
import { createRpcClient, DaemonRpcError, type RpcCall } from '../../infra/utxo/daemonRpc.ts';

export interface LitecoindOptions {
  /** Data directory to use and keep; default: a fresh temp directory, removed by `stop()`. */
  datadir?: string;
  /** Default 0: a free port. */
  rpcPort?: number;
  /** Listen for P2P on 127.0.0.1:<p2pPort> (0 = a free port). Default: no P2P listener at all. */
  p2pPort?: number;
  /** Blocks to mine at start so the wallet has mature coins (default 101: one 50 LTC coinbase matures). */
  initialBlocks?: number;
  /** Default `litecoind` from PATH. */
  binary?: string;
}

export interface Litecoind {
  /** `http://127.0.0.1:<rpcport>` */
  readonly rpcUrl: string;
  readonly rpcPort: number;
  /** The P2P port when `options.p2pPort` was given. */
  readonly p2pPort: number | undefined;
  readonly rpcUser: string;
  readonly rpcPassword: string;
  readonly datadir: string;
  /** A litecoin.conf with rpcuser/rpcpassword at top level and `[regtest]` rpcport=…, as a native-mode coins entry's `confpath` would point to. */
  readonly confPath: string;
  readonly pid: number;
  /** JSON-RPC 1.0 over HTTP basic auth; throws a `DaemonRpcError` carrying the node's message and code. Amounts come back as JS numbers (use infra/utxo/daemonAmounts.ts for exact values). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines n blocks to `address` (default: a wallet address of the node); returns block hashes. */
  mine(n: number, address?: string): Promise<string[]>;
  /** Sends `litoshis` to `address` from the node's wallet; `confirmations` blocks mined after (default 1; 0 leaves it in the mempool). Returns the txid. */
  fund(address: string, litoshis: bigint, confirmations?: number): Promise<string>;
  /** Stops the daemon (RPC `stop`, then SIGKILL after 10 s), removes the datadir unless it was given. Idempotent. */
  stop(): Promise<void>;
}

const RPC_USER = 'devnet';
const WALLET = 'devnet';
const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const RPC_WALLET_NOT_FOUND = -18;
/**
 * Litecoin 0.21 activates MWEB on regtest at height 432, and from there `generatetoaddress` fails
 * (`bad-txns-vin-empty`) until someone pegs coins into MWEB, after which the wallet moves its coins
 * into MWEB. A start time in 2096 keeps the deployment DEFINED: a plain UTXO chain at any height.
 */
const NO_MWEB = '-vbparams=mweb:4000000000:4000000001';

/** Starts litecoind, waits for its RPC, loads or creates the wallet and mines `initialBlocks`. */
export async function startLitecoind(options: LitecoindOptions = {}): Promise<Litecoind> {
  const ownDatadir = options.datadir === undefined;
  const datadir = options.datadir ?? (await mkdtemp(join(tmpdir(), 'litecoind-')));
  await mkdir(datadir, { recursive: true });
  const rpcPort = options.rpcPort || (await reservePort());
  const p2pPort = options.p2pPort === undefined ? undefined : options.p2pPort || (await reservePort());
  const rpcPassword = randomBytes(18).toString('base64url');
  const confPath = join(datadir, 'litecoin.conf');
  await writeFile(confPath, `regtest=1\nrpcuser=${RPC_USER}\nrpcpassword=${rpcPassword}\n\n[regtest]\nrpcport=${rpcPort}\n`, { mode: 0o600 });

  const rpcUrl = httpUrl(LOOPBACK_HOST, rpcPort);
  const rpc = createRpcClient({ url: rpcUrl, user: RPC_USER, password: rpcPassword });
  const args = [...daemonArgs(datadir, confPath), ...(await p2pArgs(p2pPort))];
  let daemon: DaemonProcess | undefined;
  const stop = async () => {
    await daemon?.stop(rpc, STOP_GRACE_MS);
    if (ownDatadir) await rm(datadir, { recursive: true, force: true });
  };
  try {
    daemon = spawnDaemon(options.binary ?? 'litecoind', args, join(datadir, 'regtest', 'debug.log'));
    await daemon.waitForRpc(rpc, STARTUP_TIMEOUT_MS);
    await openWallet(rpc);
    const miningAddress = await rpc<string>('getnewaddress');
    const mine = (n: number, address?: string) => rpc<string[]>('generatetoaddress', [n, address ?? miningAddress]);
    const initialBlocks = options.initialBlocks ?? 101;
    if (initialBlocks > 0) await mine(initialBlocks);
    let stopping: Promise<void> | undefined;
    return {
      rpcUrl,
      rpcPort,
      p2pPort,
      rpcUser: RPC_USER,
      rpcPassword,
      datadir,
      confPath,
      pid: daemon.pid,
      rpc: (method, params) => rpc(method, params),
      mine,
      async fund(address, litoshis, confirmations = 1) {
        // A decimal string is exact; litecoind's AmountFromValue accepts strings as well as numbers.
        const txid = await rpc<string>('sendtoaddress', [address, formatCoinAmount(litoshis)]);
        if (confirmations > 0) await mine(confirmations);
        return txid;
      },
      stop: () => (stopping ??= stop()),
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Command line: regtest on loopback only, no peers, no discovery. (0.21 has no -natpmp: it rejects it.) */
function daemonArgs(datadir: string, confPath: string): string[] {
  return [
    '-regtest',
    `-datadir=${datadir}`,
    `-conf=${confPath}`,
    '-server=1',
    '-txindex=1',
    `-rpcbind=${LOOPBACK_HOST}`,
    `-rpcallowip=${LOOPBACK_HOST}`,
    '-dnsseed=0',
    '-discover=0',
    '-upnp=0',
    '-connect=0',
    '-listenonion=0',
    '-fallbackfee=0.0001',
    '-printtoconsole=0',
    '-rpcworkqueue=128',
    '-keypool=100', // the default 1000 (x3 key chains) costs ~1.5 s at wallet creation
    NO_MWEB,
  ];
}

/**
 * 0.21 refuses `-bind` together with `-listen=0`, so P2P is either off or bound explicitly. With
 * `-listen=1` it also always binds a Tor target (default 127.0.0.1:19444, shared by every regtest
 * node on the machine): that gets its own free loopback port.
 */
async function p2pArgs(p2pPort: number | undefined): Promise<string[]> {
  if (p2pPort === undefined) return ['-listen=0'];
  return ['-listen=1', `-port=${p2pPort}`, `-bind=${LOOPBACK_HOST}:${p2pPort}`, `-bind=${LOOPBACK_HOST}:${await reservePort()}=onion`];
}

/** Loads the devnet wallet, creating it as a legacy (non-descriptor) wallet so `importaddress` works. */
async function openWallet(rpc: RpcCall): Promise<void> {
  if ((await rpc<string[]>('listwallets')).includes(WALLET)) return;
  try {
    await rpc('loadwallet', [WALLET]);
  } catch (error) {
    if (!(error instanceof DaemonRpcError) || error.code !== RPC_WALLET_NOT_FOUND) throw error;
    // createwallet(name, disable_private_keys, blank, passphrase, avoid_reuse, descriptors)
    await rpc('createwallet', [WALLET, false, false, '', false, false]);
  }
}

