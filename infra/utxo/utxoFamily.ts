import { CommandKind, type ActivationCommand, type ChainFamily, type PlanContext } from '../../actors/ports/chainFamily.ts';
import { ChainFamilyId, type ActivatedCoin, type ActivationPlan, type Balance } from '../../machines/activation.types.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { KeyProvider } from '../keys/index.ts';
import { createElectrumBackend } from './electrumBackend.ts';
import { createNativeBackend } from './nativeBackend.ts';
import { utxoWallet } from './utxoAddress.ts';
import type { UtxoBackend } from './utxoBackend.ts';
import { planElectrum, planNative, planStandalone, type UtxoPlanParams } from './utxoPlan.ts';

export interface UtxoFamilyOptions {
  readonly keys: KeyProvider;
  readonly clock: Clock;
  /** Extra CAs (PEM) trusted for `SSL`/`WSS` servers, on top of the system's. */
  readonly tlsCa?: readonly string[];
  /** Electrum request / daemon read budget (default 20 s, as the reference). */
  readonly requestTimeoutMs?: number;
  /** Electrum keep-alive ping period (default 30 s). */
  readonly pingIntervalMs?: number;
  readonly clientName?: string;
}

/**
 * UTXO coins (Bitcoin-derived, QTUM) and QRC20 tokens through legacy `electrum` (spec 4.6) and
 * native `enable` (spec 4.7). The backend (an Electrum pool or the daemon) stays with the active
 * coin for `my_balance` and is released when the coin is disabled.
 */
export function createUtxoFamily(options: UtxoFamilyOptions): ChainFamily {
  async function backendFor(plan: ActivationPlan, params: UtxoPlanParams, compressed: Uint8Array, address: string): Promise<UtxoBackend> {
    if (params.mode === 'native') return createNativeBackend(plan.ticker, params, { address, compressedKey: compressed }, options);
    return createElectrumBackend(plan.ticker, params, utxoWallet(compressed, params.addressRule), compressed, options);
  }

  return {
    id: ChainFamilyId.Utxo,
    serves: { electrum: ['UTXO', 'QTUM', 'QRC20'], enable: ['UTXO', 'QTUM', 'QRC20'], standalone: ['UTXO', 'QTUM'] },

    plan(command: ActivationCommand, context: PlanContext): ActivationPlan {
      if (command.kind === CommandKind.Platform) throw new Error('UTXO coins are not platforms of enable_eth_with_tokens');
      const params =
        command.kind === CommandKind.Electrum
          ? planElectrum(command, context)
          : command.kind === CommandKind.Standalone
            ? planStandalone(command, context)
            : planNative(command, context);
      const qrc20 = params.qrc20;
      // A QRC20's swap contracts, as validated (kept in its settings and ActivationRequested).
      const swapContracts =
        qrc20 === undefined
          ? {}
          : { swapContracts: { swapContractAddress: `0x${qrc20.swapContract}`, fallbackSwapContract: qrc20.fallbackSwapContract === undefined ? null : `0x${qrc20.fallbackSwapContract}` } };
      const connections = params.mode === 'electrum' ? { electrumConnections: { minConnected: params.minConnected, maxConnected: params.maxConnected } } : {};
      return { ticker: command.ticker, family: ChainFamilyId.Utxo, via: command.via, tokens: [], getBalances: true, params, ...swapContracts, ...connections };
    },

    async activate(plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin> {
      const params = plan.params as UtxoPlanParams;
      const publicKey = await options.keys.publicKey(params.entry, params.addressPath);
      signal.throwIfAborted();
      const wallet = utxoWallet(publicKey.compressed, params.addressRule);
      const backend = await backendFor(plan, params, publicKey.compressed, wallet.address);
      try {
        const read = await backend.read(signal);
        const qrc20 = params.qrc20 !== undefined;
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
            ...(qrc20 ? {} : { mature: params.matureConfirmations }),
          },
          connection: backend,
        };
      } catch (error) {
        backend.close();
        throw error;
      }
    },

    async balance(coin: ActivatedCoin, _ticker: string, signal: AbortSignal): Promise<Balance> {
      return (await (coin.connection as UtxoBackend).read(signal)).balance;
    },

    release(coin: ActivatedCoin): void {
      (coin.connection as UtxoBackend).close();
    },
  };
}
