/**
 * A Qtum daemon double for native QRC20 tests: the RPC of qtumd (bitcoind's JSON-RPC over HTTP
 * with basic auth, ./bitcoindHttp.ts) whose contract calls run on an EVM devnet, as the Electrum
 * double's `blockchain.contract.call` does. Methods: `getblockcount` (the EVM's block number) and
 * `callcontract "address" "data" ( "senderaddress" )`; and a small UTXO wallet (./qtumWallet.ts:
 * funded outputs, `listunspent`, `sendrawtransaction` that verifies inputs and runs `OP_CALL`
 * outputs on the EVM). The rest of qtumd (`gasLimit`/`amount`/`blockNum` of a call) is not there. Credentials are written to a `qtum.conf`
 * the way a native-mode coins entry's `confpath` points at one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { startBitcoindHttp, type DaemonMethod } from './bitcoindHttp.ts';
import { callContract, stringParam } from './callContract.ts';
import { createQtumWallet, type QtumWallet } from './qtumWallet.ts';

export interface QtumdOptions {
  /** The chain contract calls run on (e.g. an `EvmDevnet`). */
  readonly evm: { readonly request: EvmRequest };
}

export interface Qtumd {
  /** `http://127.0.0.1:<port>` */
  readonly rpcUrl: string;
  readonly rpcPort: number;
  readonly rpcUser: string;
  readonly rpcPassword: string;
  /** A qtum.conf with `rpcuser`, `rpcpassword` and `rpcport`. */
  readonly confPath: string;
  /** The method of every authenticated call, in order (batch elements one by one). */
  readonly hits: readonly string[];
  /** The UTXO side: fund outputs, see the contract calls it ran. */
  readonly wallet: Pick<QtumWallet, 'fund' | 'calls'>;
  /** HTTP requests received, refused ones included. */
  requests(): number;
  /** Closes the server and removes the conf file's directory. Idempotent. */
  stop(): Promise<void>;
}

const RPC_USER = 'devnet';

/** qtumd's methods over `evm`, with qtumd's argument names and usage texts. */
function qtumMethods(evm: EvmRequest): Record<string, DaemonMethod> {
  return {
    getblockcount: {
      args: [],
      required: 0,
      help: 'getblockcount\n\nReturns the height of the most-work fully-validated chain.\nThe genesis block has height 0.\n',
      run: async () => Number(await evm('eth_blockNumber', [])),
    },
    callcontract: {
      args: ['address', 'data', 'senderaddress'],
      required: 2,
      help: 'callcontract "address" "data" ( "senderaddress" )\n\nCall contract methods offline.\n',
      run: async ([address, data, sender]) =>
        callContract(evm, stringParam(address, 'callcontract'), stringParam(data, 'callcontract'), sender === undefined || sender === null ? '' : stringParam(sender, 'callcontract')),
    },
  };
}

/** Listens on a free loopback port, then writes the conf file naming it. */
export async function startQtumd(options: QtumdOptions): Promise<Qtumd> {
  const rpcPassword = randomBytes(18).toString('base64url');
  const hits: string[] = [];
  let requests = 0;
  const wallet = createQtumWallet(options.evm.request);
  const server = await startBitcoindHttp({
    user: RPC_USER,
    password: rpcPassword,
    methods: { ...qtumMethods(options.evm.request), ...wallet.methods },
    onCall: (method) => hits.push(method),
    onRequest: () => void requests++,
  });
  const dir = await mkdtemp(join(tmpdir(), 'qtumd-'));
  const confPath = join(dir, 'qtum.conf');
  await writeFile(confPath, `rpcuser=${RPC_USER}\nrpcpassword=${rpcPassword}\nrpcport=${server.port}\n`, { mode: 0o600 });
  let stopping: Promise<void> | undefined;
  return {
    rpcUrl: server.url,
    rpcPort: server.port,
    rpcUser: RPC_USER,
    rpcPassword,
    confPath,
    hits,
    wallet,
    requests: () => requests,
    stop: () => (stopping ??= server.stop().then(() => rm(dir, { recursive: true, force: true }))),
  };
}
