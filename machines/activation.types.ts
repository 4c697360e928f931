import { formatAmount } from '../spec/amount.ts';
import type { ActivatedTokenInfo, ActivationSummary, BalanceInfo } from '../spec/events.ts';
export type { ActivationSummary } from '../spec/events.ts';
import type { DerivationMethod } from '../spec/derivationMethod.ts';
import type { NftHolding } from '../spec/nft.ts';
import type { CoinSettings, ElectrumConnectionsSetting, SettingChange, SwapV2ContractsSetting } from '../spec/coinSettings.ts';
export type { CoinSettings, SettingChange } from '../spec/coinSettings.ts';

/** Chain families the service can activate; each is one adapter behind the `ChainFamily` port. */
export const ChainFamilyId = { Evm: 'evm', Tron: 'tron', Utxo: 'utxo' } as const;
export type ChainFamilyId = (typeof ChainFamilyId)[keyof typeof ChainFamilyId];

/** Which request started an activation (recorded in `ActivationRequested`). */
export const ActivationVia = {
  EnableEthWithTokens: 'enable_eth_with_tokens',
  EnableEthTask: 'task::enable_eth',
  EnableUtxoTask: 'task::enable_utxo',
  EnableQtumTask: 'task::enable_qtum',
  Enable: 'enable',
  Electrum: 'electrum',
  /** A token added to an already active platform (docs/compatibility.md §18). */
  EnableErc20: 'enable_erc20',
} as const;
export type ActivationVia = (typeof ActivationVia)[keyof typeof ActivationVia];

/**
 * Whether a request came through a legacy method (`enable`, `electrum`). The form decides the
 * "already activated" message, and only the v2 platform-with-tokens forms re-activate a passive
 * platform (docs/compatibility.md §10): to a legacy request a passive coin is still initialized.
 */
export function isLegacyVia(via: ActivationVia): boolean {
  return via === ActivationVia.Enable || via === ActivationVia.Electrum;
}

/**
 * Whether a request came through a v2 method that activates a coin on its own, without tokens
 * (`task::enable_utxo`, `task::enable_qtum`; the reference's standalone coins). Such a request is
 * refused as `CoinIsAlreadyActivated`, and never re-activates a passive platform.
 */
export function isStandaloneVia(via: ActivationVia): boolean {
  return via === ActivationVia.EnableUtxoTask || via === ActivationVia.EnableQtumTask;
}

export { DerivationMethod } from '../spec/derivationMethod.ts';

/** Where the activation's key comes from (spec PrivKeyPolicy, less what this native build refuses). */
export const KeyPolicy = { ContextPrivKey: 'ContextPrivKey', Hardware: 'Hardware', RemoteWallet: 'RemoteWallet' } as const;
export type KeyPolicy = (typeof KeyPolicy)[keyof typeof KeyPolicy];

/** A key already obtained outside the key provider (a hardware device), at a BIP32 path. */
export interface ResolvedKey {
  /** Uncompressed public key, `04` + 128 hex. */
  readonly uncompressedHex: string;
  readonly address: string;
  readonly derivationPath: string;
}

/**
 * An account's public BIP32 node as a hardware device gave it (public key and chain code, never a
 * private key): its addresses are derived from it locally, as from an extended public key.
 */
export interface DeviceAccountNode {
  readonly accountId: number;
  /** The account's path, `derivation_path/<account>'`. */
  readonly derivationPath: string;
  /** 33-byte compressed public key, hex. */
  readonly publicKeyHex: string;
  /** 32-byte chain code, hex. */
  readonly chainCodeHex: string;
}

/** What a device step reads: one address's key, or (for an HD scan) its account's node. */
export type DeviceKey = ResolvedKey | DeviceAccountNode;

/** The plan with what the device gave: an address key (`key`) or an account node (`deviceAccount`). */
export function withDeviceKey(plan: ActivationPlan, key: DeviceKey): ActivationPlan {
  return 'chainCodeHex' in key ? { ...plan, deviceAccount: key } : { ...plan, key };
}

/**
 * The HD fields of a request, resolved against the coin (`path_to_address`, `gap_limit`,
 * `scan_policy`, `min_addresses_number`) before the wallet's recorded address count is known.
 */
export interface HdScanRequest {
  readonly accountId: number;
  readonly chain: 'External' | 'Internal';
  readonly addressId: number;
  readonly gapLimit: number;
  readonly scanPolicy: 'do_not_scan' | 'scan_if_new_wallet' | 'scan';
  readonly minAddresses: number;
}

/** What an HD activation of one account chain must do (resolved from the request and the log). */
export interface HdScanPlan {
  readonly accountId: number;
  readonly chain: 'External' | 'Internal';
  /** The enabled address (`path_to_address`). */
  readonly addressId: number;
  readonly gapLimit: number;
  /** Whether to look for used addresses beyond the known ones. */
  readonly scan: boolean;
  /** At least this many addresses are listed (`min_addresses_number`, and the enabled one). */
  readonly minAddresses: number;
  /** Addresses known from earlier activations (0 for a new wallet). */
  readonly knownAddresses: number;
  /**
   * Addresses recorded on the account's other chain (handed out or found after an earlier
   * activation, e.g. `Internal` ones): listed too, read but not scanned. @default 0
   */
  readonly otherChainAddresses?: number;
}

/** An HD activation: the scan and the wallet it belongs to (a public id, never the seed). */
export interface HdActivation extends HdScanPlan {
  readonly walletId: string;
}

/**
 * The swap contracts an EVM activation was given, as validated (spec 4.1, 4.5, 4.7). This service
 * makes no swaps: they are recorded in `ActivationRequested`, an absent one as `null`.
 */
export interface SwapContracts {
  readonly swapContractAddress: string | null;
  readonly fallbackSwapContract: string | null;
}

/** The three swap v2 contracts an EVM activation was given, as validated (spec 2.2 SwapV2Contracts). */
export type SwapV2Contracts = SwapV2ContractsSetting;

/** The settings an activation decided: the coin's own and each requested token's, by ticker. */
export interface PlannedSettings {
  readonly coin: CoinSettings;
  readonly tokens: Readonly<Record<string, CoinSettings>>;
}

/** A validated activation: everything checked that can be checked without the chain. */
/** `min_connected` / `max_connected` of a legacy `electrum` activation, defaults applied. */
export type ElectrumConnections = ElectrumConnectionsSetting;

export interface ActivationPlan {
  readonly ticker: string;
  readonly family: ChainFamilyId;
  readonly via: ActivationVia;
  readonly tokens: readonly string[];
  readonly getBalances: boolean;
  /** Family-specific validated parameters (nodes, contracts). Never logged, never in an event. */
  readonly params: unknown;
  /** Set for hardware keys: activate this key's address instead of asking the key provider. */
  readonly key?: ResolvedKey;
  /** Set in HD mode (a mnemonic, or a device's account node): scan and list the account's addresses. */
  readonly hd?: HdActivation;
  /**
   * A hardware key whose account is scanned: the HD request, resolved into {@link hd} once the
   * device gave its account node (which names the wallet, so its recorded addresses are known).
   */
  readonly deviceHd?: HdScanRequest;
  /** The account node the device gave (with {@link deviceHd}); the family derives the addresses from it. */
  readonly deviceAccount?: DeviceAccountNode;
  /** EVM coins: the swap contracts of the request (recorded, not used). */
  readonly swapContracts?: SwapContracts;
  /** EVM coins: the swap v2 contracts of the request, when given (validated by the family). */
  readonly swapV2Contracts?: SwapV2Contracts;
  /** Legacy `electrum`: how many of its servers the coin keeps connected (spec 4.6), as validated. */
  readonly electrumConnections?: ElectrumConnections;
  /** The settings the coin and its tokens keep (the planner decides them once; tests may leave them out). */
  readonly settings?: PlannedSettings;
}

/**
 * A token to add to an active platform (`enable_erc20`), as checked: its contract in the family's
 * canonical form, its decimals when the coins file gives them (else the family reads `decimals()`),
 * and the settings it keeps.
 */
export interface TokenPlan {
  readonly ticker: string;
  readonly platform: string;
  readonly via: ActivationVia;
  readonly contractAddress: string;
  readonly decimals: number | undefined;
  readonly settings?: CoinSettings;
}

/** Integer balances in the coin's smallest unit. */
export interface Balance {
  readonly spendable: bigint;
  readonly unspendable: bigint;
}

export interface ActivatedToken {
  readonly ticker: string;
  readonly contractAddress: string;
  readonly decimals: number;
  readonly balance?: Balance;
  /** The token's settings, once its platform's machine has taken them from the plan. */
  readonly settings?: CoinSettings;
}

/** One listed HD address: its path and balances keyed by ticker (platform and tokens). */
export interface HdListedAddress {
  readonly address: string;
  readonly derivationPath: string;
  readonly chain: 'External' | 'Internal';
  readonly balances: Readonly<Record<string, Balance>>;
}

/** One address of an HD account as its family reads it: how often it was used, and its balances by ticker. */
export interface HdAddressRead extends HdListedAddress {
  /** The address id on its chain. */
  readonly addressIndex: number;
  /** Transactions that touched it (0 and no balance: unused). */
  readonly txCount: bigint;
}

/**
 * How an HD coin reaches more addresses of its account after activation (`get_new_address`,
 * `scan_for_new_addresses`): the family derives them from the same key and reads them in one round
 * trip through the coin's own nodes. Held in memory with the coin, never in an event.
 */
export interface HdAddressSource {
  /**
   * Derives addresses `indices` of `chain` and reads each one's use and its balances (the coin's
   * and each of `tokens`', by ticker), in one round trip; must stop when `signal` aborts.
   */
  read(
    chain: 'External' | 'Internal',
    indices: readonly number[],
    tokens: readonly { readonly ticker: string; readonly contractAddress: string; readonly decimals: number | undefined }[],
    signal: AbortSignal,
  ): Promise<{ readonly currentBlock: number; readonly addresses: readonly HdAddressRead[] }>;
}

/** An HD account as an activation found it. */
export interface HdAccountListing {
  readonly walletId: string;
  readonly accountId: number;
  /** e.g. `m/44'/60'/0'`. */
  readonly accountPath: string;
  readonly chain: 'External' | 'Internal';
  /** Used addresses now known (recorded so later activations need not rescan). */
  readonly knownAddresses: number;
  /** Addresses known on the account's other chain (a UTXO coin's scan covers both), when any. */
  readonly otherChainKnown?: number;
  /** Every listed address, External ones first, each chain in address-id order from 0. */
  readonly addresses: readonly HdListedAddress[];
  /** The activation's `gap_limit`: `get_new_address` and `scan_for_new_addresses` default to it. */
  readonly gapLimit?: number;
  /** More addresses of the account (absent: the family reaches none after activation). */
  readonly source?: HdAddressSource;
}

/** What a successful activation knows about the coin. */
export interface ActivatedCoin {
  readonly ticker: string;
  readonly family: ChainFamilyId;
  readonly address: string;
  /** Uncompressed public key, `04` + 128 hex. */
  readonly pubkey: string;
  readonly derivationMethod: DerivationMethod;
  /** BIP32 path of the address (HD and hardware keys). */
  readonly derivationPath?: string;
  readonly currentBlock: number;
  readonly decimals: number;
  readonly balance?: Balance;
  readonly tokens: readonly ActivatedToken[];
  /** Legacy activations report these (spec 4.6); `mature` only for UTXO coins. */
  readonly confirmations?: { readonly required: number; readonly requiresNotarization: boolean; readonly mature?: number };
  /** HD mode: the scanned account and its listed addresses (the enabled one is `address`). */
  readonly hd?: HdAccountListing;
  /** EVM coins through legacy `enable`: the amount held by running swaps (none in this service). */
  readonly lockedBySwaps?: bigint;
  /** The coin's settings, once its machine has taken them from the plan (they change with set_* commands). */
  readonly settings?: CoinSettings;
  /** EVM platforms activated with `nft_req`: the NFTs its indexer listed for the address. */
  readonly nfts?: readonly NftHolding[];
  /** Opaque handle the family uses for later reads (e.g. `my_balance`). Not part of any event. */
  readonly connection: unknown;
}

/** A balance as events record it: decimal strings in the coin's unit. */
export function balanceInfo(balance: Balance, decimals: number): BalanceInfo {
  return { spendable: formatAmount(balance.spendable, decimals), unspendable: formatAmount(balance.unspendable, decimals) };
}

/** A token as events record it: decimal-string balance, its settings. */
export function summarizeToken(token: ActivatedToken): ActivatedTokenInfo {
  const { ticker, contractAddress, decimals, balance, settings } = token;
  return {
    ticker,
    contractAddress,
    decimals,
    ...(balance === undefined ? {} : { balance: balanceInfo(balance, decimals) }),
    ...(settings === undefined ? {} : { settings }),
  };
}

/**
 * The coin with the settings its plan decided: the coin's own, and each fresh token's (tokens the
 * family returned without one in the plan keep none).
 */
export function withPlannedSettings(coin: ActivatedCoin, settings: PlannedSettings | undefined): ActivatedCoin {
  if (settings === undefined) return coin;
  return {
    ...coin,
    settings: settings.coin,
    tokens: coin.tokens.map((t) => {
      const own = settings.tokens[t.ticker];
      return own === undefined ? t : { ...t, settings: own };
    }),
  };
}

/** The coin after `change` of `ticker` (itself or one of its tokens); unchanged when it has no settings. */
export function withSettingChanged(coin: ActivatedCoin, ticker: string, change: SettingChange): ActivatedCoin {
  const apply = (s: CoinSettings | undefined): CoinSettings | undefined => (s === undefined ? undefined : { ...s, [change.setting]: change.value });
  if (ticker === coin.ticker) {
    const settings = apply(coin.settings);
    return settings === undefined ? coin : { ...coin, settings };
  }
  return {
    ...coin,
    tokens: coin.tokens.map((t) => {
      if (t.ticker !== ticker) return t;
      const settings = apply(t.settings);
      return settings === undefined ? t : { ...t, settings };
    }),
  };
}

/**
 * Summarizes a coin: decimal-string amounts, no connection details. Called once per activation, by
 * the coin's machine: the summary is the `CoinActivated` event's data and the v2 result.
 */
export function summarizeActivation(coin: ActivatedCoin, attempt: number): ActivationSummary {
  const data: ActivationSummary = {
    ticker: coin.ticker,
    family: coin.family,
    address: coin.address,
    pubkey: coin.pubkey,
    derivationMethod: coin.derivationMethod,
    currentBlock: coin.currentBlock,
    tokens: coin.tokens.map(summarizeToken),
    attempt,
  };
  if (coin.balance !== undefined) data.balance = balanceInfo(coin.balance, coin.decimals);
  if (coin.derivationPath !== undefined) data.derivationPath = coin.derivationPath;
  if (coin.hd !== undefined) data.hd = summarizeHd(coin, coin.hd);
  if (coin.settings !== undefined) data.settings = coin.settings;
  if (coin.nfts !== undefined) data.nfts = [...coin.nfts];
  return data;
}

/** The listing with decimal-string balances (platform decimals for the platform, each token's own). */
function summarizeHd(coin: ActivatedCoin, hd: HdAccountListing): NonNullable<ActivationSummary['hd']> {
  const decimalsOf = new Map<string, number>([[coin.ticker, coin.decimals], ...coin.tokens.map((t) => [t.ticker, t.decimals] as const)]);
  const totals = new Map<string, Balance>();
  for (const a of hd.addresses) {
    for (const [ticker, b] of Object.entries(a.balances)) {
      const sum = totals.get(ticker) ?? { spendable: 0n, unspendable: 0n };
      totals.set(ticker, { spendable: sum.spendable + b.spendable, unspendable: sum.unspendable + b.unspendable });
    }
  }
  return {
    walletId: hd.walletId,
    accountIndex: hd.accountId,
    accountPath: hd.accountPath,
    chain: hd.chain,
    knownAddresses: hd.knownAddresses,
    ...(hd.otherChainKnown ? { otherChain: { chain: hd.chain === 'External' ? ('Internal' as const) : ('External' as const), knownAddresses: hd.otherChainKnown } } : {}),
    totalBalances: Object.fromEntries([...totals].map(([ticker, b]) => [ticker, balanceInfo(b, decimalsOf.get(ticker) ?? 0)])),
    addresses: hd.addresses.map((a) => ({
      address: a.address,
      derivationPath: a.derivationPath,
      chain: a.chain,
      balances: Object.fromEntries(Object.entries(a.balances).map(([ticker, b]) => [ticker, balanceInfo(b, decimalsOf.get(ticker) ?? 0)])),
    })),
  };
}
