import { CommandKind, type ActivationCommand, type ChainFamily, type PlanContext } from '../../actors/ports/chainFamily.ts';
import { ChainFamilyId, type ActivatedCoin, type ActivationPlan, type Balance } from '../../machines/activation.types.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { KeyProvider } from '../keys/index.ts';
import { createElectrumBackend, createElectrumPool, electrumBackendOver, electrumWatchSource, usePool } from './electrumBackend.ts';
import { CoinbaseMemo, readElectrumBalances, readElectrumWallets } from './electrumAccountReader.ts';
import { activateHdAccount } from '../../actors/hdActivation.ts';
import { isHdKeyProvider, type HdKeyProvider, type PublicKey } from '../../actors/ports/keyProvider.ts';
import { createDeviceAccountKeys } from '../keys/deviceAccountKeys.ts';
import type { ElectrumPlanParams } from './utxoPlan.ts';
import type { UtxoWallet } from './utxoAddress.ts';
import { createNativeBackend } from './nativeBackend.ts';
import { electrumScripthash, utxoWallet } from './utxoAddress.ts';
import type { UtxoBackend } from './utxoBackend.ts';
import type { WatchedBalance, WatchRead } from '../../actors/ports/balanceWatch.ts';
import { watchKey } from '../../machines/balanceWatch.machine.ts';
import type { HistorySource } from '../../actors/history/historyPort.ts';
import { electrumHistoryOf } from './history/electrumHistory.ts';
import { scriptAddresser } from './history/scriptAddress.ts';
import { historyAddresses } from './history/historyAddresses.ts';

/** An address an account read was asked for that its activation did not list: a caller's bug. */
function unlisted(address: string): never {
  throw new Error(`not an address of the account: ${address}`);
}
import { nativeCoinWatch, type NativeWatchSource } from './nativeBalanceWatch.ts';
import { electrumCoinWatch, type ElectrumWatchSource, type RunningWatchers } from './electrumBalanceWatch.ts';
import { planElectrum, planNative, planStandalone, type UtxoPlanParams } from './utxoPlan.ts';
import { utxoWithdrawCapability } from './withdraw/utxoWithdrawCapability.ts';

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
  /** Every watched Electrum coin's source by ticker (while it is active): a shared watcher reads them. */
  const watchSources = new Map<string, ElectrumWatchSource>();
  const runningWatchers: RunningWatchers = new Map();
  const nativeSources = new Map<string, NativeWatchSource>();
  /** Each active coin's history source (one per backend: its sync and its reads share it). */
  const histories = new WeakMap<UtxoBackend, { readonly listing: string; readonly source: HistorySource }>();

  async function backendFor(plan: ActivationPlan, params: UtxoPlanParams, compressed: Uint8Array, address: string): Promise<UtxoBackend> {
    if (params.mode === 'native') return createNativeBackend(plan.ticker, params, { address, compressedKey: compressed }, options);
    return createElectrumBackend(plan.ticker, params, utxoWallet(compressed, params.addressRule), compressed, options);
  }

  /**
   * An HD account over Electrum (`task::enable_utxo`/`enable_qtum` with `enable_hd`): the gap-limit
   * scan of `actors/hdScan.ts`, each window one batch for every address in it, over one pool that
   * the coin then keeps for the enabled address.
   */
  async function activateHdElectrum(plan: ActivationPlan, hd: NonNullable<ActivationPlan['hd']>, params: ElectrumPlanParams, keys: HdKeyProvider, signal: AbortSignal): Promise<ActivatedCoin> {
    const pool = createElectrumPool(params, options);
    // Every address derived, by compressed public key (hex) and by address: later ones too (get_new_address, scans).
    const wallets = new Map<string, UtxoWallet>();
    const byAddress = new Map<string, UtxoWallet>();
    const walletOf = (address: string) => byAddress.get(address) ?? unlisted(address);
    const readWallets = (addresses: readonly string[], readSignal: AbortSignal) =>
      usePool(pool, plan.ticker, readSignal, (batch) => readElectrumWallets(batch, addresses.map(walletOf), params.matureConfirmations));
    let enabledKey = '';
    try {
      const coin = await activateHdAccount(
        plan,
        hd,
        {
          keys,
          family: ChainFamilyId.Utxo,
          entry: params.entry,
          tokens: [],
          decimals: params.decimals ?? 8,
          addressOf: (publicKey) => {
            const wallet = utxoWallet(publicKey.compressed, params.addressRule);
            wallets.set(publicKey.compressedHex, wallet);
            byAddress.set(wallet.address, wallet);
            return { display: wallet.address, owner: publicKey.compressedHex };
          },
          read: async (owners, _tokens, readSignal) => {
            const read = await readWallets(owners.map((o) => wallets.get(o)!.address), readSignal);
            const addresses = read.wallets.map((w) => ({ txCount: BigInt(w.txCount), native: w.spendable, unspendable: w.unspendable, tokens: [] }));
            return { currentBlock: read.currentBlock, decimals: [], addresses };
          },
          connectionFor: (owner) => {
            enabledKey = owner;
            const watchMemo = new CoinbaseMemo(); // the watcher's reads of the account share it
            const balanceOf = (w: { spendable: bigint; unspendable: bigint }) => ({ spendable: w.spendable, unspendable: w.unspendable });
            const enabled = wallets.get(owner)!;
            return {
              ...electrumBackendOver(pool, plan.ticker, params, enabled, Buffer.from(owner, 'hex')),
              historyOf: electrumHistoryOf(pool, scriptAddresser(params.entry, params.addressRule), (a) => byAddress.get(a)),
              senderKey: (address) => {
                const found = [...wallets].find(([, wallet]) => wallet.address === address);
                return found === undefined ? undefined : Uint8Array.from(Buffer.from(found[0], 'hex'));
              },
              readAccount: async (addresses, readSignal) => {
                const read = await readWallets(addresses, readSignal);
                return { currentBlock: read.currentBlock, balances: read.wallets.map(balanceOf) };
              },
              // Every address of the account is watched, each by its own script hashes (issue 26).
              watch: electrumWatchSource(pool, params, {
                scriptHashesOf: (address) => (byAddress.get(address)?.scripts ?? []).map(electrumScripthash),
                memo: watchMemo,
                read: async (batch, addresses) => {
                  const read = await readElectrumBalances(batch, addresses.map(walletOf), params.matureConfirmations, watchMemo);
                  return { currentBlock: read.currentBlock, balances: new Map(addresses.map((a, i) => [a, balanceOf(read.wallets[i]!)])) };
                },
              }),
            } satisfies UtxoBackend;
          },
        },
        signal,
      );
      signal.throwIfAborted();
      return { ...coin, pubkey: enabledKey, confirmations: confirmationsOf(params) };
    } catch (error) {
      pool.close();
      throw error;
    }
  }

  return {
    id: ChainFamilyId.Utxo,
    serves: { electrum: ['UTXO', 'QTUM', 'QRC20'], enable: ['UTXO', 'QTUM', 'QRC20'], standalone: ['UTXO', 'QTUM'] },
    withdraw: utxoWithdrawCapability({ clock: options.clock }),

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
      const keys = options.keys;
      // A device's account: its addresses derived from the node it gave; else the mnemonic's.
      const hdKeys = plan.deviceAccount !== undefined && plan.hd !== undefined ? createDeviceAccountKeys(plan.deviceAccount, plan.hd.walletId) : keys;
      if (plan.hd !== undefined && isHdKeyProvider(hdKeys)) {
        // The planner lets an HD scan through with Electrum servers only (a daemon knows only imported addresses).
        if (params.mode !== 'electrum') throw new Error('an HD scan of a UTXO coin needs Electrum servers');
        return activateHdElectrum(plan, plan.hd, params, hdKeys, signal);
      }
      if (plan.deviceHd !== undefined) throw new Error('a device account reached the family without its node'); // never: the task reads it first
      // A hardware key: the public key the device gave (plan.key); else the key provider's.
      const publicKey = plan.key === undefined ? await keys.publicKey(params.entry, params.addressPath) : devicePublicKey(plan.key.uncompressedHex);
      signal.throwIfAborted();
      const wallet = utxoWallet(publicKey.compressed, params.addressRule);
      const backend = await backendFor(plan, params, publicKey.compressed, wallet.address);
      try {
        const read = await backend.read(signal);
        return {
          ticker: plan.ticker,
          family: ChainFamilyId.Utxo,
          address: wallet.address,
          pubkey: publicKey.compressedHex,
          derivationMethod: plan.key === undefined ? options.keys.derivationMethod : 'HDWallet',
          ...(plan.key === undefined ? {} : { derivationPath: plan.key.derivationPath }),
          currentBlock: read.currentBlock,
          decimals: read.decimals,
          balance: read.balance,
          tokens: [],
          confirmations: confirmationsOf(params),
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

    async readBalances(coin: ActivatedCoin, balances: readonly WatchedBalance[], signal: AbortSignal): Promise<WatchRead> {
      const backend = coin.connection as UtxoBackend;
      if (backend.readAccount === undefined) throw new Error(`${coin.ticker} has no HD account to read`);
      const addresses = [...new Set(balances.map((b) => b.address))];
      const read = await backend.readAccount(addresses, signal);
      const at = new Map(addresses.map((a, i) => [a, read.balances[i]!]));
      return { block: read.currentBlock, balances: new Map(balances.map((b) => [watchKey(b), at.get(b.address)!])) };
    },

    balanceWatch(coin: ActivatedCoin) {
      const backend = coin.connection as UtxoBackend;
      if (backend.nativeWatch !== undefined) {
        nativeSources.set(coin.ticker, backend.nativeWatch);
        return nativeCoinWatch(coin, backend.nativeWatch, nativeSources);
      }
      const source = backend.watch;
      if (source === undefined) return undefined;
      watchSources.set(coin.ticker, source);
      return electrumCoinWatch(coin, source, watchSources, runningWatchers);
    },

    history(coin: ActivatedCoin): HistorySource | undefined {
      const backend = coin.connection as UtxoBackend;
      if (backend.historyOf === undefined) return undefined;
      // An HD account's listing grows (get_new_address, scans): its history then covers the new addresses too.
      const addresses = historyAddresses(coin);
      const listing = addresses.map((a) => a.address).join(' ');
      let kept = histories.get(backend);
      if (kept === undefined || kept.listing !== listing) histories.set(backend, (kept = { listing, source: backend.historyOf(addresses) }));
      return kept.source;
    },

    release(coin: ActivatedCoin): void {
      const backend = coin.connection as UtxoBackend;
      if (backend.watch !== undefined && watchSources.get(coin.ticker) === backend.watch) watchSources.delete(coin.ticker);
      if (backend.nativeWatch !== undefined && nativeSources.get(coin.ticker) === backend.nativeWatch) nativeSources.delete(coin.ticker);
      backend.close();
    },
  };
}

/** What a UTXO coin reports of its confirmations (legacy results, spec 4.6); a QRC20 has no coinbase maturity. */
function confirmationsOf(params: UtxoPlanParams): NonNullable<ActivatedCoin['confirmations']> {
  return {
    required: params.requiredConfirmations,
    requiresNotarization: params.requiresNotarization,
    ...(params.qrc20 === undefined ? { mature: params.matureConfirmations } : {}),
  };
}

/** The public key a device gave (uncompressed `04`‖x‖y hex), in every form a UTXO wallet uses. */
function devicePublicKey(uncompressedHex: string): PublicKey {
  const hex = uncompressedHex.startsWith('04') ? uncompressedHex.slice(2) : uncompressedHex;
  const x = hex.slice(0, 64);
  const yOdd = (Number.parseInt(hex.slice(-1), 16) & 1) === 1;
  const compressedHex = `${yOdd ? '03' : '02'}${x}`.toLowerCase();
  return { compressed: Uint8Array.from(Buffer.from(compressedHex, 'hex')), compressedHex, uncompressedHex: `04${hex}`.toLowerCase() };
}
