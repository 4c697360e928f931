import type { CoinEntry, CoinProtocol } from '../../spec/coins.ts';
import type { AddressPathRequest, HdRequest } from '../hdPlan.ts';
import type { CoinsCatalog } from './coinsCatalog.ts';
import type {
  KeyPolicy,
  ActivatedCoin,
  ActivatedToken,
  TokenPlan,
  ActivationPlan,
  ActivationVia,
  Balance,
  ChainFamilyId,
  SwapV2Contracts,
} from '../../machines/activation.types.ts';
import type { GasPriceFailure, GasPriceRead } from '../../machines/gasPriceRefresh.machine.ts';
import type { CoinWatch, WatchedBalance, WatchRead } from './balanceWatch.ts';
import type { WithdrawCapability } from './withdraw.ts';

export type { GasPriceFailure, GasPriceRead };

/** A node as the activation request gives it (domain form of the spec's CoinNode). */
export interface NodeSpec {
  readonly url: string;
  readonly wsUrl?: string;
  readonly gatewayProxy?: boolean;
}

/**
 * The kinds of activation request; a family says which protocols it serves for each. `standalone`:
 * a coin on its own through a task (`task::enable_utxo`, `task::enable_qtum`).
 */
export const CommandKind = { Platform: 'platform', Electrum: 'electrum', Enable: 'enable', Standalone: 'standalone' } as const;
export type CommandKind = (typeof CommandKind)[keyof typeof CommandKind];

/** A platform-with-tokens activation as a domain command (from `enable_eth_with_tokens` or a task). */
export interface PlatformActivationCommand {
  readonly kind: typeof CommandKind.Platform;
  readonly ticker: string;
  readonly via: ActivationVia;
  readonly nodes: readonly NodeSpec[];
  readonly tokens: readonly { readonly ticker: string; readonly requiredConfirmations?: number }[];
  readonly getBalances: boolean;
  readonly keyPolicy: KeyPolicy;
  /** EVM swap contracts (required there, omitted for TRON); checked by the family. */
  readonly swapContractAddress?: string;
  readonly fallbackSwapContract?: string;
  /** `nft_req`: list the wallet's NFTs from this indexer (non-HD EVM platforms; others refuse it). */
  readonly nft?: NftIndexerSpec;
  /** HD mode only: the enabled address and how to scan (ignored by an Iguana key). */
  readonly hd?: HdRequest;
  /** The platform's gas station (EVM; its tokens pay gas in the platform coin, so they share it). */
  readonly gasStation?: GasStationSpec;
  /** Settings the coin keeps (`actors/coinSettings.ts`); absent ones fall back to the coins entry. */
  readonly requiredConfirmations?: number;
  readonly requiresNotarization?: boolean;
  readonly mm2?: number;
  readonly txHistory?: boolean;
  /** EVM: the swap v2 contracts (required with MM2.json `use_trading_proto_v2`); checked by the family. */
  readonly swapV2Contracts?: SwapV2Contracts;
}

/** An Electrum server as the legacy `electrum` request gives it (spec 2.2 ActivationServers). */
export interface ElectrumServerSpec {
  readonly url: string;
  readonly protocol: 'TCP' | 'SSL' | 'WSS';
  /** Opt-out of TLS certificate verification for this server (default: verify). */
  readonly disableCertVerification?: boolean;
}

/**
 * `utxo_merge_params` (spec 2.2 UtxoMergeParams, the reference's shape): merge the wallet's UTXOs
 * into one once it holds `mergeAt` of them. Merging signs and broadcasts transactions, which this
 * service does not do, so a request with it is refused (docs/compatibility.md §9).
 */
export interface UtxoMergeSpec {
  readonly mergeAt: number;
  readonly checkEverySeconds: number;
  readonly maxMergeAtOnce: number;
}

/** A legacy `electrum` activation (spec 4.6) as a domain command. */
export interface ElectrumActivationCommand {
  readonly kind: typeof CommandKind.Electrum;
  readonly ticker: string;
  readonly via: ActivationVia;
  /** `undefined` when the request had none (reported after the legacy checks, as the reference). */
  readonly servers: readonly ElectrumServerSpec[] | undefined;
  readonly minConnected?: number;
  readonly maxConnected?: number;
  readonly requiredConfirmations?: number;
  readonly requiresNotarization?: boolean;
  readonly txHistory?: boolean;
  readonly addressFormat?: { readonly format: string; readonly network?: string };
  readonly swapContractAddress?: string;
  readonly fallbackSwapContract?: string;
  /** HD mode: the address to enable (default account 0, External, index 0). */
  readonly pathToAddress?: AddressPathRequest;
  /** `utxo_merge_params`, when given (refused: see {@link UtxoMergeSpec}). */
  readonly utxoMerge?: UtxoMergeSpec;
}

/** An NFT indexer (spec 2.2 NftProvider, `nft_req.info`). */
export interface NftIndexerSpec {
  readonly url: string;
  /** Sign its requests with the node's gateway-proxy identity. @default false */
  readonly gatewayProxy: boolean;
}

/** A gas station to price EVM transactions from (spec 4.1, 4.5, 4.7). */
export interface GasStationSpec {
  readonly url: string;
  /** Decimals of the station's numbers (default 8). */
  readonly decimals: number;
  readonly policy: 'MeanAverageFast' | 'Average';
}

/** A legacy `enable` activation (spec 4.7): a native UTXO daemon, or EVM nodes given as `urls`. */
export interface EnableActivationCommand {
  readonly kind: typeof CommandKind.Enable;
  readonly ticker: string;
  readonly via: ActivationVia;
  /** EVM node URLs (required for EVM coins; unused by native UTXO daemons). */
  readonly urls: readonly string[] | undefined;
  readonly swapContractAddress?: string;
  readonly fallbackSwapContract?: string;
  readonly gasStation?: GasStationSpec;
  readonly requiredConfirmations?: number;
  readonly requiresNotarization?: boolean;
  readonly txHistory?: boolean;
  /** HD mode: the address to enable (default account 0, External, index 0). */
  readonly pathToAddress?: AddressPathRequest;
  /** `utxo_merge_params`, when given (refused: see {@link UtxoMergeSpec}). */
  readonly utxoMerge?: UtxoMergeSpec;
  /** UTXO coins: the request's address format, replacing the coins entry's. */
  readonly addressFormat?: { readonly format: string; readonly network?: string };
}

/** Where a standalone UTXO coin reads its chain (the reference's `mode`): Electrum servers or its native daemon. */
export type UtxoModeSpec =
  | {
      readonly rpc: 'Electrum';
      readonly servers: readonly ElectrumServerSpec[];
      readonly minConnected?: number;
      readonly maxConnected?: number;
    }
  | { readonly rpc: 'Native' };

/**
 * A coins-file value the request repeats (the reference's client copies `pubtype`, `txfee`, … from
 * its own coins config into every request). This service reads them from the coins file only, so
 * the family accepts one only when it equals the value the coin already has.
 */
export interface RepeatedCoinField {
  /** The request's field name, e.g. `dust_amount` (named in a refusal). */
  readonly name: string;
  readonly value: number;
}

/**
 * A UTXO or QTUM coin activated on its own by a task (`task::enable_utxo`, `task::enable_qtum`:
 * the reference's `UtxoActivationParams`).
 */
export interface StandaloneActivationCommand {
  readonly kind: typeof CommandKind.Standalone;
  readonly ticker: string;
  readonly via: ActivationVia;
  readonly mode: UtxoModeSpec;
  readonly keyPolicy: KeyPolicy;
  /** HD fields; with an Iguana or hardware key only what such a key already does passes. */
  readonly hd?: HdRequest;
  readonly requiredConfirmations?: number;
  readonly requiresNotarization?: boolean;
  readonly txHistory?: boolean;
  readonly addressFormat?: { readonly format: string; readonly network?: string };
  /** `utxo_merge_params`, when given (refused: see {@link UtxoMergeSpec}). */
  readonly utxoMerge?: UtxoMergeSpec;
  /** `max_connected` at the top of the params (the client repeats `rpc_data.max_connected` there). */
  readonly repeatedMaxConnected?: number;
  readonly repeatedCoinFields: readonly RepeatedCoinField[];
}

/** Every activation command a family may be asked to plan. */
export type ActivationCommand = PlatformActivationCommand | ElectrumActivationCommand | EnableActivationCommand | StandaloneActivationCommand;

/** What a family needs to plan: the platform's entry (already found and parsed) and the coins file. */
export interface PlanContext {
  readonly platform: CoinEntry;
  readonly platformProtocol: CoinProtocol;
  readonly coins: CoinsCatalog;
  /** MM2.json `use_trading_proto_v2`: an EVM trading coin then needs its swap v2 contracts. @default false */
  readonly useTradingProtoV2?: boolean;
}

/**
 * The port every chain family implements (EVM and TRON today; electrum-UTXO and native-UTXO next).
 * `plan` is pure and synchronous: it runs the family's checks in the spec's order and throws an
 * `ActivationError`, so a bad request changes nothing. `activate` does the chain work and must stop
 * when `signal` aborts.
 */
export interface ChainFamily {
  readonly id: ChainFamilyId;
  /** Coins-file protocol types this family activates, per kind of request (e.g. platform: `ETH`). */
  readonly serves: { readonly [K in CommandKind]?: readonly string[] };
  /** Only called with a command of a kind (and protocol) listed in `serves`. */
  plan(command: ActivationCommand, context: PlanContext): ActivationPlan;
  activate(plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin>;
  /** Live balance of an active coin or one of its tokens, in the coin's smallest unit. */
  balance(coin: ActivatedCoin, ticker: string, signal: AbortSignal): Promise<Balance>;
  /** Lets go of what an active coin holds open (connections); on disable and at stop. */
  release?(coin: ActivatedCoin): void;
  /** The gas price source of an active coin activated with a gas station; `undefined` without one. */
  gasPriceFeed?(coin: ActivatedCoin): GasPriceFeed | undefined;
  /**
   * Balances at addresses of an active coin's HD account in one read (`account_balance`); absent:
   * its watched node's `read` serves (see {@link balanceWatch}).
   */
  readBalances?(coin: ActivatedCoin, balances: readonly WatchedBalance[], signal: AbortSignal): Promise<WatchRead>;
  /** What to watch of an active coin, and through which node (issue 24); `undefined`: not watched. */
  balanceWatch?(coin: ActivatedCoin): CoinWatch | undefined;
  /** Set by families whose active platforms take tokens one at a time (`enable_erc20`). */
  readonly tokens?: TokenSupport;
  /** How the family withdraws and broadcasts (issue 25); absent: its coins are not withdrawn. */
  readonly withdraw?: WithdrawCapability;
}

/** What a family accepts as a token: one protocol type, and its contract address rule. */
export interface TokenRule {
  /** Coins-file protocol type of this family's tokens, e.g. `ERC20`. */
  readonly protocolType: 'ERC20' | 'TRC20';
  /** The contract address in canonical form, or why it is unacceptable. */
  contractAddress(raw: string): { readonly address: string } | { readonly problem: string };
}

/** How a family adds a token to one of its active platforms (`enable_erc20`, docs/compatibility.md §18). */
export interface TokenSupport {
  /** The coins-file protocol type of its tokens and their contract address rule. */
  readonly rule: TokenRule;
  /** The nodes an active platform reads through (its tokens read through the same ones). */
  nodes(platform: ActivatedCoin): readonly { readonly url: string; readonly gatewayProxy: boolean }[];
  /**
   * Reads `token` at the platform's address through the platform's nodes (one round trip: its
   * balance, and its decimals when the plan has none); must stop when `signal` aborts.
   */
  read(platform: ActivatedCoin, token: TokenPlan, signal: AbortSignal): Promise<ActivatedToken>;
}

/**
 * An active coin's gas station: the price its activation read, and how to read it again (bounded
 * by the family's own timeout). A failed read rejects with a {@link GasPriceFailure}.
 */
export interface GasPriceFeed {
  readonly initial: GasPriceRead;
  read(signal: AbortSignal): Promise<GasPriceRead>;
}

/** Narrows `command` to the kind a family's `plan` expected (a routing bug otherwise). */
export function expectKind<K extends CommandKind>(command: ActivationCommand, kind: K): Extract<ActivationCommand, { kind: K }> {
  if (command.kind !== kind) throw new Error(`expected a ${kind} command, got ${command.kind}`);
  return command as Extract<ActivationCommand, { kind: K }>;
}
