import type { CoinEntry, CoinProtocol } from '../spec/coins.ts';
import type { CoinsConfig } from '../infra/config/index.ts';
import type {
  KeyPolicy,
  ActivatedCoin,
  ActivationPlan,
  ActivationVia,
  Balance,
  ChainFamilyId,
} from '../machines/activation.types.ts';

/** A node as the activation request gives it (domain form of the spec's CoinNode). */
export interface NodeSpec {
  readonly url: string;
  readonly wsUrl?: string;
  readonly gatewayProxy?: boolean;
}

/** A platform-with-tokens activation as a domain command (from `enable_eth_with_tokens` or a task). */
export interface PlatformActivationCommand {
  readonly ticker: string;
  readonly via: ActivationVia;
  readonly nodes: readonly NodeSpec[];
  readonly tokens: readonly { readonly ticker: string; readonly requiredConfirmations?: number }[];
  readonly getBalances: boolean;
  readonly keyPolicy: KeyPolicy;
  /** EVM swap contracts (required there, omitted for TRON); checked by the family. */
  readonly swapContractAddress?: string;
  readonly fallbackSwapContract?: string;
  /** `nft_req` was given (EVM ignores it here; TRON refuses it). */
  readonly nftRequested?: boolean;
}

/** What a family needs to plan: the platform's entry (already found and parsed) and the coins file. */
export interface PlanContext {
  readonly platform: CoinEntry;
  readonly platformProtocol: CoinProtocol;
  readonly coins: CoinsConfig;
}

/**
 * The port every chain family implements (EVM and TRON today; electrum-UTXO and native-UTXO next).
 * `plan` is pure and synchronous: it runs the family's checks in the spec's order and throws an
 * `ActivationError`, so a bad request changes nothing. `activate` does the chain work and must stop
 * when `signal` aborts.
 */
export interface ChainFamily {
  readonly id: ChainFamilyId;
  /** Coins-file protocol types this family activates as a platform (e.g. `ETH`). */
  readonly platformProtocols: readonly string[];
  plan(command: PlatformActivationCommand, context: PlanContext): ActivationPlan;
  activate(plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin>;
  /** Live balance of an active coin or one of its tokens, in the coin's smallest unit. */
  balance(coin: ActivatedCoin, ticker: string, signal: AbortSignal): Promise<Balance>;
}
