/**
 * A UTXO coin or QRC20 token read from its native daemon (spec 4.7, 1.5; docs/compatibility.md §9):
 * JSON-RPC with basic auth at 127.0.0.1:<rpcport>, credentials from the daemon's config file. A
 * coin's address must be imported into the daemon (spec 1.5); its balance is the sum of
 * `listunspent` for it. A QRC20 balance is the contract's answer to `callcontract` (qrc20Reader.ts).
 */
import { ActivationError, ErrorType, errorSentence } from '../../spec/errors.ts';
import type { Clock } from '../../kernel/clock.ts';
import { amountField, parseRpcJsonExact } from './daemonAmounts.ts';
import { DaemonConfError, readDaemonCredentials } from './daemonConf.ts';
import { createRpcClient, DaemonRpcError, type RpcCall } from './daemonRpc.ts';
import { TokenReadError } from '../failover/tokenReadError.ts';
import { daemonContractCalls, qtumAccount, readQrc20Balance } from './qrc20Reader.ts';
import type { UtxoBackend, UtxoRead } from './utxoBackend.ts';
import type { NativePlanParams } from './utxoPlan.ts';
import { balancePollOf, DEFAULT_BALANCE_POLL_MS } from '../../actors/ports/balanceWatch.ts';
import { nativeHistorySource } from './history/nativeHistory.ts';
import { scriptAddresser } from './history/scriptAddress.ts';
import { utxoWallet } from './utxoAddress.ts';
import { nativeWithdrawChain } from './withdraw/nativeWithdrawChain.ts';

export interface NativeBackendOptions {
  readonly clock: Clock;
  /** Budget of one read (default 20 s). */
  readonly requestTimeoutMs?: number;
}

const RPC_METHOD_NOT_FOUND = -32601;

/** The wallet as the daemon is asked about it: its address (a coin) or its key's Qtum account (a QRC20). */
export interface NativeWallet {
  readonly address: string;
  readonly compressedKey: Uint8Array;
}

/** Reads the daemon's credentials now (a missing file or key fails the activation clearly). */
export async function createNativeBackend(ticker: string, params: NativePlanParams, wallet: NativeWallet, options: NativeBackendOptions): Promise<UtxoBackend> {
  let credentials;
  try {
    credentials = await readDaemonCredentials(params.daemonEntry, params.confPath);
  } catch (error) {
    if (error instanceof DaemonConfError) throw errorSentence(ErrorType.InvalidRequest, error.message);
    throw error;
  }
  const endpoint = `127.0.0.1:${credentials.port}`;
  const rpc = createRpcClient({ url: `http://${endpoint}`, user: credentials.user, password: credentials.password }, parseRpcJsonExact);
  const timeoutMs = options.requestTimeoutMs ?? 20_000;
  const read = reader(ticker, params, wallet);
  /** One call within the read budget; failures in the legacy wording. */
  async function withinBudget<T>(signal: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const cancel = options.clock.setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      return await call(controller.signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw nativeError(ticker, endpoint, controller.signal.aborted ? controller.signal.reason : error);
    } finally {
      cancel();
      signal.removeEventListener('abort', onAbort);
    }
  }
  const readWallet = (signal: AbortSignal) => withinBudget(signal, (budget) => read(rpc, budget));
  const { balancePollMs } = balancePollOf(params.daemonEntry);
  /** The daemon's height every `balance_poll_s`: `heard` on each new block (a daemon pushes nothing). */
  const pollBlock = (heard: (height: number) => void) => {
    let last = -1;
    let stopped = false;
    let cancel: (() => void) | undefined;
    const tick = async () => {
      const height = await rpc<number>('getblockcount', []).catch(() => last);
      if (stopped) return;
      if (last >= 0 && height > last) heard(height);
      last = Math.max(last, height);
      cancel = options.clock.setTimeout(() => void tick(), balancePollMs ?? DEFAULT_BALANCE_POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      cancel?.();
    };
  };
  return {
    read: readWallet,
    // A QRC20's history is its contract's Transfer events: not loaded (docs/compatibility.md §22).
    ...(params.qrc20 === undefined
      ? { historyOf: () => nativeHistorySource(rpc, wallet.address, utxoWallet(wallet.compressedKey, params.addressRule).scripts, scriptAddresser(params.entry, params.addressRule), pollBlock) }
      : {}),
    withdraw: { chain: nativeWithdrawChain((method, args, signal) => withinBudget(signal, (budget) => rpc(method, args, budget)), endpoint), params },
    nativeWatch: {
      endpoint,
      readBlock: (signal) => withinBudget(signal, (budget) => rpc<number>('getblockcount', [], budget)),
      read: readWallet,
      ...(balancePollMs === undefined ? {} : { pollMs: balancePollMs }),
    },
    close: () => undefined, // one HTTP request per call: nothing stays open
  };
}

/** `listunspent` of the address for a coin, the contract's `balanceOf` for a QRC20. */
function reader(ticker: string, params: NativePlanParams, wallet: NativeWallet): (rpc: RpcCall, signal: AbortSignal) => Promise<UtxoRead> {
  const token = params.qrc20;
  if (token === undefined) return (rpc, signal) => readNative(rpc, wallet.address, params, signal);
  const owner = qtumAccount(wallet.compressedKey);
  return async (rpc, signal) => {
    const read = await readQrc20Balance(daemonContractCalls(rpc, signal), { ticker, contract: token.contract, decimals: params.decimals }, owner);
    return { currentBlock: read.currentBlock, balance: { spendable: read.balance, unspendable: 0n }, decimals: read.decimals };
  };
}

async function readNative(rpc: RpcCall, address: string, params: NativePlanParams, signal: AbortSignal): Promise<UtxoRead> {
  const [height, known, unspent] = await Promise.all([
    rpc<number>('getblockcount', [], signal),
    isImported(rpc, address, signal),
    rpc<{ amount: unknown }[]>('listunspent', [0, 9_999_999, [address]], signal),
  ]);
  if (!known) throw new AddressNotImportedError(address);
  const spendable = unspent.reduce((sum, u) => sum + amountField(u.amount), 0n);
  return { currentBlock: height, balance: { spendable, unspendable: 0n }, decimals: params.decimals ?? 8 };
}

/** Whether the daemon's wallet watches `address` (`getaddressinfo`, or `validateaddress` on older daemons). */
async function isImported(rpc: RpcCall, address: string, signal: AbortSignal): Promise<boolean> {
  type Info = { ismine?: boolean; iswatchonly?: boolean };
  const info = await rpc<Info>('getaddressinfo', [address], signal).catch((error: unknown) => {
    if (error instanceof DaemonRpcError && error.code === RPC_METHOD_NOT_FOUND) return rpc<Info>('validateaddress', [address], signal);
    throw error;
  });
  return info.ismine === true || info.iswatchonly === true;
}

class AddressNotImportedError extends Error {
  constructor(readonly address: string) {
    super(`address ${address} is not imported`);
  }
}

/** Daemon failures in the legacy wording (spec 7.2), without credentials. */
function nativeError(ticker: string, endpoint: string, error: unknown): ActivationError {
  let message: string;
  if (error instanceof AddressNotImportedError) {
    message = `${ticker}: the address ${error.address} is not imported into the native daemon at ${endpoint}; import it with importaddress "${error.address}" "" true (spec 1.5)`;
  } else if (error instanceof TokenReadError) {
    message = `${ticker}: ${error.message}`;
  } else if (error instanceof DaemonRpcError && error.code !== undefined) {
    message = `${ticker}: the native daemon at ${endpoint} refused ${error.method}: ${error.message}`;
  } else {
    message = `Failed to connect to the native daemon of ${ticker} at ${endpoint}: ${error instanceof Error ? error.message : String(error)}`;
  }
  return errorSentence(ErrorType.Transport, message, { cause: error });
}
