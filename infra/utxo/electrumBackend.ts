/** A UTXO coin (or QRC20 token) read over an Electrum pool (spec 4.6). */
import { ErrorType, errorSentence } from '../../spec/errors.ts';
import type { Clock } from '../../kernel/clock.ts';
import { ElectrumRpcError } from '../electrum/electrumConnection.ts';
import { ElectrumPool, ElectrumUnavailableError } from '../electrum/electrumPool.ts';
import { TokenReadError } from '../failover/tokenReadError.ts';
import { CoinbaseMemo, readElectrumBalance, type ElectrumBatch } from './electrumAccountReader.ts';
import { electrumContractCalls, qtumAccount, readQrc20Balance } from './qrc20Reader.ts';
import type { UtxoWallet } from './utxoAddress.ts';
import type { UtxoBackend, UtxoRead } from './utxoBackend.ts';
import type { ElectrumPlanParams } from './utxoPlan.ts';
import { electrumScripthash } from './utxoAddress.ts';
import { balancePollOf } from '../../actors/ports/balanceWatch.ts';
import { electrumHistoryOf } from './history/electrumHistory.ts';
import { scriptAddresser } from './history/scriptAddress.ts';
import { electrumWithdrawChain } from './withdraw/electrumWithdrawChain.ts';
import type { ElectrumWatchSource } from './electrumBalanceWatch.ts';

export interface ElectrumBackendOptions {
  readonly clock: Clock;
  readonly tlsCa?: readonly string[];
  readonly requestTimeoutMs?: number;
  readonly pingIntervalMs?: number;
  readonly clientName?: string;
}

/** The pool for `params.servers` and the read of the wallet (or of the QRC20 contract). */
export function createElectrumBackend(ticker: string, params: ElectrumPlanParams, wallet: UtxoWallet, compressedKey: Uint8Array, options: ElectrumBackendOptions): UtxoBackend {
  return electrumBackendOver(createElectrumPool(params, options), ticker, params, wallet, compressedKey);
}

/** The pool of `params.servers` (`min_connected`/`max_connected` as planned). */
export function createElectrumPool(params: ElectrumPlanParams, options: ElectrumBackendOptions): ElectrumPool {
  return new ElectrumPool({
    servers: params.servers,
    minConnected: params.minConnected,
    maxConnected: params.maxConnected,
    clock: options.clock,
    tls: { ...(options.tlsCa === undefined ? {} : { ca: options.tlsCa }) },
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.pingIntervalMs === undefined ? {} : { pingIntervalMs: options.pingIntervalMs }),
    ...(options.clientName === undefined ? {} : { clientName: options.clientName }),
  });
}

/** The wallet's reads over `pool` (which the backend then owns: `close` closes it). */
export function electrumBackendOver(pool: ElectrumPool, ticker: string, params: ElectrumPlanParams, wallet: UtxoWallet, compressedKey: Uint8Array): UtxoBackend {
  const { read, memo } = reader(ticker, params, wallet, compressedKey);
  const hashes = wallet.scripts.map(electrumScripthash);
  return {
    read: (signal) => usePool(pool, ticker, signal, read),
    // A QRC20's history is its contract's Transfer events: not loaded (docs/compatibility.md §22).
    ...(params.qrc20 === undefined ? { historyOf: electrumHistoryOf(pool, scriptAddresser(params.entry, params.addressRule), (a) => (a === wallet.address ? wallet : undefined)) } : {}),
    withdraw: { chain: electrumWithdrawChain((signal, work, onServer) => usePool(pool, ticker, signal, work, onServer), memo), params },
    watch: electrumWatchSource(pool, params, {
      // A QRC20's balance is its contract's: no script hash tells it changed.
      ...(params.qrc20 === undefined ? { scriptHashesOf: (address: string) => (address === wallet.address ? hashes : []), ...(memo === undefined ? {} : { memo }) } : {}),
      read: async (batch, addresses) => {
        const now = await read(batch);
        return { currentBlock: now.currentBlock, balances: new Map(addresses.map((a) => [a, now.balance])) };
      },
    }),
    close: () => pool.close(),
  };
}

/** How the balance watchers follow a coin over `pool`: its servers, poll interval, and `reads` (its addresses' script hashes and balances). */
export function electrumWatchSource(pool: ElectrumPool, params: ElectrumPlanParams, reads: Pick<ElectrumWatchSource, 'scriptHashesOf' | 'read' | 'memo'>): ElectrumWatchSource {
  const { balancePollMs } = balancePollOf(params.entry);
  return { pool, servers: params.servers.map((s) => s.url), ...reads, ...(balancePollMs === undefined ? {} : { pollMs: balancePollMs }) };
}

/**
 * One use of the pool: `read` with one server's batches; failures in the legacy wording.
 * `onServer` learns the URL of the server that answered.
 */
export async function usePool<T>(pool: ElectrumPool, ticker: string, signal: AbortSignal, read: (batch: ElectrumBatch) => Promise<T>, onServer?: (url: string) => void): Promise<T> {
  try {
    return await pool.use(async (connection) => {
      const result = await read((calls) => connection.batch(calls, signal));
      onServer?.(connection.server.url);
      return result;
    }, signal);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw electrumError(ticker, error);
  }
}

/** The wallet's scripts for a coin, the contract's `balanceOf` for a QRC20. */
function reader(ticker: string, params: ElectrumPlanParams, wallet: UtxoWallet, compressedKey: Uint8Array): { read: (batch: ElectrumBatch) => Promise<UtxoRead>; memo?: CoinbaseMemo } {
  const token = params.qrc20;
  if (token === undefined) {
    const memo = new CoinbaseMemo(); // the coin's reads (activation, watcher, my_balance) share it
    const read = async (batch: ElectrumBatch): Promise<UtxoRead> => {
      const got = await readElectrumBalance(batch, wallet, params.matureConfirmations, memo);
      return { currentBlock: got.currentBlock, balance: { spendable: got.spendable, unspendable: got.unspendable }, decimals: params.decimals ?? 8 };
    };
    return { read, memo };
  }
  const owner = qtumAccount(compressedKey);
  const read = async (batch: ElectrumBatch): Promise<UtxoRead> => {
    const got = await readQrc20Balance(electrumContractCalls(batch, owner), { ticker, contract: token.contract, decimals: params.decimals }, owner);
    return { currentBlock: got.currentBlock, balance: { spendable: got.balance, unspendable: 0n }, decimals: got.decimals };
  };
  return { read };
}

/** Electrum failures in the legacy wording (spec 7.2): only the message reaches the client. */
function electrumError(ticker: string, error: unknown): unknown {
  if (error instanceof ElectrumUnavailableError) {
    const message = `All electrum servers for ${ticker} are unavailable: ${error.failures.join('; ')}`;
    return errorSentence(ErrorType.Transport, message, { cause: error });
  }
  if (error instanceof ElectrumRpcError || error instanceof TokenReadError) {
    const message = `${ticker}: ${error.message}`;
    return errorSentence(ErrorType.Transport, message, { cause: error });
  }
  return error;
}
