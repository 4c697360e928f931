import { CommandKind, expectKind, type ActivationCommand, type ChainFamily, type PlanContext } from '../../actors/chainFamily.ts';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { ChainFamilyId, type ActivatedCoin, type ActivationPlan, type Balance } from '../../machines/activation.types.ts';
import type { Clock } from '../clock/clock.ts';
import { ElectrumRpcError } from '../electrum/electrumConnection.ts';
import { ElectrumPool, ElectrumUnavailableError } from '../electrum/electrumPool.ts';
import { TokenReadError } from '../failover/tokenReadError.ts';
import type { KeyProvider } from '../keys/index.ts';
import { readElectrumBalance, type ElectrumBatch } from './electrumAccountReader.ts';
import { readQrc20Balance } from './qrc20Reader.ts';
import { utxoWallet, type UtxoWallet } from './utxoAddress.ts';
import { planElectrum, type ElectrumPlanParams } from './utxoPlan.ts';
import { crypto as btcCrypto } from 'bitcoinjs-lib';

export interface UtxoFamilyOptions {
  readonly keys: KeyProvider;
  readonly clock: Clock;
  /** Extra CAs (PEM) trusted for `SSL`/`WSS` servers, on top of the system's. */
  readonly tlsCa?: readonly string[];
  /** Electrum request and connection budget (default 20 s, as the reference). */
  readonly requestTimeoutMs?: number;
  /** Electrum keep-alive ping period (default 30 s). */
  readonly pingIntervalMs?: number;
  readonly clientName?: string;
}

/** What an active UTXO coin keeps: its server pool and how to read its balance. */
interface UtxoConnection {
  readonly pool: ElectrumPool;
  readonly read: (batch: ElectrumBatch) => Promise<{ currentBlock: number; balance: Balance; decimals: number }>;
}

/**
 * UTXO coins (Bitcoin-derived, QTUM) and QRC20 tokens through legacy `electrum` (spec 4.6): one
 * Electrum pool per coin, kept open while the coin is active and closed when it is disabled.
 */
export function createUtxoFamily(options: UtxoFamilyOptions): ChainFamily {
  const withPool = async <T>(ticker: string, pool: ElectrumPool, signal: AbortSignal, work: (batch: ElectrumBatch) => Promise<T>): Promise<T> => {
    try {
      return await pool.use((connection) => work((calls) => connection.batch(calls, signal)), signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw electrumError(ticker, error);
    }
  };

  return {
    id: ChainFamilyId.Utxo,
    serves: { electrum: ['UTXO', 'QTUM', 'QRC20'] },

    plan(anyCommand: ActivationCommand, context: PlanContext): ActivationPlan {
      const command = expectKind(anyCommand, CommandKind.Electrum);
      const params = planElectrum(command, context);
      return { ticker: command.ticker, family: ChainFamilyId.Utxo, via: command.via, tokens: [], getBalances: true, params };
    },

    async activate(plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin> {
      const params = plan.params as ElectrumPlanParams;
      const publicKey = await options.keys.publicKey(params.entry);
      signal.throwIfAborted();
      const wallet = utxoWallet(publicKey.compressed, params.addressRule);
      const pool = new ElectrumPool({
        servers: params.servers,
        minConnected: params.minConnected,
        maxConnected: params.maxConnected,
        clock: options.clock,
        tls: { ...(options.tlsCa === undefined ? {} : { ca: options.tlsCa }) },
        ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
        ...(options.pingIntervalMs === undefined ? {} : { pingIntervalMs: options.pingIntervalMs }),
        ...(options.clientName === undefined ? {} : { clientName: options.clientName }),
      });
      const connection: UtxoConnection = { pool, read: reader(plan.ticker, params, wallet, publicKey.compressed) };
      try {
        const read = await withPool(plan.ticker, pool, signal, connection.read);
        return {
          ticker: plan.ticker,
          family: ChainFamilyId.Utxo,
          address: wallet.address,
          pubkey: publicKey.compressedHex,
          derivationMethod: options.keys.derivationMethod,
          currentBlock: read.currentBlock,
          decimals: read.decimals,
          balance: read.balance,
          tokens: [],
          confirmations: {
            required: params.requiredConfirmations,
            requiresNotarization: params.requiresNotarization,
            ...(params.qrc20Contract === undefined ? { mature: params.matureConfirmations } : {}),
          },
          connection,
        };
      } catch (error) {
        pool.close();
        throw error;
      }
    },

    async balance(coin: ActivatedCoin, _ticker: string, signal: AbortSignal): Promise<Balance> {
      const connection = coin.connection as UtxoConnection;
      return (await withPool(coin.ticker, connection.pool, signal, connection.read)).balance;
    },

    release(coin: ActivatedCoin): void {
      (coin.connection as UtxoConnection).pool.close();
    },
  };
}

/** The balance read of a plan: the wallet's scripts for a coin, the contract for a QRC20. */
function reader(ticker: string, params: ElectrumPlanParams, wallet: UtxoWallet, compressedKey: Uint8Array): UtxoConnection['read'] {
  const contract = params.qrc20Contract;
  if (contract === undefined) {
    return async (batch) => {
      const read = await readElectrumBalance(batch, wallet, params.matureConfirmations);
      return { currentBlock: read.currentBlock, balance: { spendable: read.spendable, unspendable: read.unspendable }, decimals: params.decimals ?? 8 };
    };
  }
  const owner = Buffer.from(btcCrypto.hash160(Buffer.from(compressedKey))).toString('hex');
  return async (batch) => {
    const read = await readQrc20Balance(batch, { ticker, contract, decimals: params.decimals }, owner);
    return { currentBlock: read.currentBlock, balance: { spendable: read.balance, unspendable: 0n }, decimals: read.decimals };
  };
}

/** Electrum failures in the legacy wording (spec 7.2): only the message reaches the client. */
function electrumError(ticker: string, error: unknown): unknown {
  if (error instanceof ElectrumUnavailableError) {
    const message = `All electrum servers for ${ticker} are unavailable: ${error.failures.join('; ')}`;
    return new ActivationError(ErrorType.Transport, message, message, { cause: error });
  }
  if (error instanceof ElectrumRpcError || error instanceof TokenReadError) {
    const message = `${ticker}: ${error.message}`;
    return new ActivationError(ErrorType.Transport, message, message, { cause: error });
  }
  return error;
}
