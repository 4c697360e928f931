/**
 * Legacy `enable` of an EVM coin or an ERC20 token on its own (spec 4.7): one batched read of the
 * balance through the coin's `urls` with failover, and, when a gas station is given, its price,
 * queried concurrently (`gasStation.ts`, as the v2 methods). Either failing fails the activation,
 * so nothing is registered; the price is refreshed while the coin is active.
 */
import { ActivationError, ErrorType, errorSentence } from '../../spec/errors.ts';
import type { EnableActivationCommand, PlanContext } from '../../actors/ports/chainFamily.ts';
import { ChainFamilyId, type ActivatedCoin, type ActivationPlan } from '../../machines/activation.types.ts';
import type { Clock } from '../../kernel/clock.ts';
import { AllNodesFailedError } from '../failover/nodeFailover.ts';
import { evmAddress, type KeyProvider } from '../keys/index.ts';
import { readAccount } from './accountReader.ts';
import type { EvmConnection, WithEvmNodes } from './evmNodes.ts';
import { withGasStation } from './gasStation.ts';
import { balancePollOf } from '../../actors/ports/balanceWatch.ts';
import type { WsPool } from './wsPool.ts';
import { planLegacyEvmEnable, type LegacyEvmParams } from './legacyEnablePlan.ts';

/** What the legacy activation needs from its family. */
export interface LegacyEvmDeps {
  readonly keys: KeyProvider;
  readonly clock: Clock;
  /** Budget of the gas station's answer (the family's per-node budget). */
  readonly timeoutMs: number;
  readonly withNodes: WithEvmNodes;
}

/** The plan of a legacy EVM `enable`: the checks of {@link planLegacyEvmEnable}, no tokens. */
export function planLegacyEvm(command: EnableActivationCommand, context: PlanContext): ActivationPlan {
  const params: LegacyEvmParams = planLegacyEvmEnable(command, context);
  return { ticker: command.ticker, family: ChainFamilyId.Evm, via: command.via, tokens: [], getBalances: true, params, swapContracts: params.swapContracts };
}

/** Activates a planned legacy EVM coin: address, balance (and decimals), gas station price; `sockets` become the coin's. */
export async function activateLegacyEvm(plan: ActivationPlan, signal: AbortSignal, deps: LegacyEvmDeps, sockets: WsPool): Promise<ActivatedCoin> {
  const params = plan.params as LegacyEvmParams;
  const publicKey = await deps.keys.publicKey(params.entry, params.addressPath);
  signal.throwIfAborted();
  const address = evmAddress(publicKey);
  const nodes = { chainId: params.chainId, nodes: params.nodes, sockets };
  const tokens = params.token === undefined ? [] : [params.token];
  const [read, gasPrice] = await withGasStation(params.gasStation, signal, deps, (s) =>
    deps.withNodes(nodes, s, (provider) => readAccount(provider, address, tokens, true)).catch((e) => rethrowNodesError(plan.ticker, e)),
  );
  const tokenRead = read.tokens[0];
  // The token's decimals are known now: later balance reads need not ask the contract again.
  const token = params.token === undefined || tokenRead === undefined ? undefined : { ...params.token, decimals: tokenRead.decimals };
  const connection: EvmConnection = {
    chainId: params.chainId,
    nodes: nodes.nodes, // in the order the read left them (the node that answered leads)
    sockets,
    ...balancePollOf(params.entry),
    ...(token === undefined ? {} : { token }),
    ...(gasPrice === undefined ? {} : { gasPrice }),
  };
  // Built here, not by actors/platformRead.ts: a coin on its own has no token list to map.
  const native = tokenRead === undefined ? read.native : tokenRead.balance;
  return {
    ticker: plan.ticker,
    family: ChainFamilyId.Evm,
    address,
    pubkey: publicKey.uncompressedHex,
    derivationMethod: deps.keys.derivationMethod,
    currentBlock: read.currentBlock,
    decimals: tokenRead?.decimals ?? params.decimals,
    ...(native === undefined ? {} : { balance: { spendable: native, unspendable: 0n } }),
    tokens: [],
    connection,
    // EVM coins are never notarized (docs/compatibility.md §9); this service runs no swaps, so nothing is locked.
    confirmations: { required: params.requiredConfirmations, requiresNotarization: false },
    lockedBySwaps: 0n,
  };
}

/** Every node failed: the legacy wording of spec 7.2, naming node origins only. */
function rethrowNodesError(ticker: string, error: unknown): never {
  const cause = error instanceof ActivationError ? error.cause : undefined;
  if (cause instanceof AllNodesFailedError) {
    const message = `All the current rpc nodes for ${ticker} are unavailable: ${cause.failures.map((f) => `${f.label}: ${f.reason}`).join('; ')}`;
    throw errorSentence(ErrorType.Transport, message, { cause });
  }
  throw error;
}
