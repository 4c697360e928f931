import { CommandKind, expectKind, type ActivationCommand, type ChainFamily, type PlanContext } from '../../actors/ports/chainFamily.ts';
import { activatedPlatform, balanceFromRead, tokenFromRead, tokensForBalance, tokenToRead } from '../../actors/platformRead.ts';
import { platformPlan } from '../../actors/platformPlan.ts';
import { ChainFamilyId, type ActivatedCoin, type ActivationPlan, type Balance } from '../../machines/activation.types.ts';
import type { Clock } from '../../kernel/clock.ts';
import { BusyNodes } from '../failover/busyNodes.ts';
import { readFromNodes, type NodeList } from '../failover/nodeList.ts';
import { evmAddress, evmToTronBase58, type KeyProvider } from '../keys/index.ts';
import { readTronAccount, readTronAddresses } from './tronAccountReader.ts';
import { activateHdAccount } from '../../actors/hdActivation.ts';
import { isHdKeyProvider } from '../../actors/ports/keyProvider.ts';
import { createTronHttp } from './tronHttp.ts';
import { MulticallSupport } from '../multicall/multicallSupport.ts';
import type { TronMulticallRoute } from './tronMulticall.ts';
import { planTronActivation, TRC20_RULE, type TronNode, type TronPlanParams } from './tronPlan.ts';
import { gatewaySigner, requireGatewaySigner } from '../gatewayProxy/gatewaySigner.ts';
import { balancePollOf } from '../../actors/ports/balanceWatch.ts';
import { tronCoinWatch } from './tronBalanceWatch.ts';
import { createTronWithdraw } from './withdraw/tronWithdrawCapability.ts';
import { urlLabel } from '../../kernel/urlLabel.ts';

export interface TronFamilyOptions {
  readonly keys: KeyProvider;
  readonly clock: Clock;
  /** Budget of one node before failing over (default 10 s, as for EVM). */
  readonly nodeTimeoutMs?: number;
  /** Nodes that answered "busy", shared with every family (default: a book of this family's own). */
  readonly busyNodes?: BusyNodes;
}

/** Nodes of an active TRX, best first, the account's 20 bytes in EVM form (for calls), its multicall. */
interface TronConnection extends NodeList<TronNode> {
  readonly owner: string;
  readonly multicall?: string;
  /** Time between two polls of the block number while the coin's balances are watched (coins-file `balance_poll_s`). */
  readonly balancePollMs?: number;
}

/**
 * TRON (`TRX` protocol, wallet-only) with its TRC20 tokens, over the node's HTTP API. Same key and
 * same 20-byte account as EVM, shown as a base58 `T…` address; same results and failover as EVM.
 */
export function createTronFamily(options: TronFamilyOptions): ChainFamily {
  const failover = { clock: options.clock, timeoutMs: options.nodeTimeoutMs ?? 10_000, busyNodes: options.busyNodes ?? new BusyNodes(options.clock) };
  const proxySigner = gatewaySigner(options.keys, options.clock);
  /** The HTTP client of `node`, signing its requests when a gateway proxy fronts it. */
  const http = (node: TronNode) => createTronHttp(node.url, node.gatewayProxy ? proxySigner() : undefined);
  /** Which nodes have the configured multicall contract, learned once per node in this session. */
  const multicallSupport = new MulticallSupport();
  const route = (node: TronNode, contract: string | undefined): TronMulticallRoute | undefined =>
    contract === undefined ? undefined : { url: node.url, contract, support: multicallSupport };

  return {
    id: ChainFamilyId.Tron,
    serves: { platform: ['TRX'] },

    plan(anyCommand: ActivationCommand, context: PlanContext): ActivationPlan {
      const command = expectKind(anyCommand, CommandKind.Platform);
      const plan = platformPlan(command, ChainFamilyId.Tron, planTronActivation(command, context));
      requireGatewaySigner(command.nodes, proxySigner);
      return plan;
    },

    async activate(plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin> {
      const params = plan.params as TronPlanParams;
      const keys = options.keys;
      if (plan.hd !== undefined && isHdKeyProvider(keys)) {
        const nodes: NodeList<TronNode> = { nodes: params.nodes };
        return activateHdAccount(
          plan,
          plan.hd,
          {
            keys,
            family: ChainFamilyId.Tron,
            entry: params.platform,
            tokens: params.tokens,
            decimals: params.decimals,
            addressOf: (publicKey) => {
              const owner = evmAddress(publicKey);
              return { display: evmToTronBase58(owner), owner };
            },
            read: (owners, tokens, readSignal) =>
              readFromNodes(nodes, readSignal, failover, (node, nodeSignal) => readTronAddresses(http(node), owners, tokens, nodeSignal, route(node, params.multicall))),
            connectionFor: (owner): TronConnection => ({ nodes: nodes.nodes, owner, ...multicallOf(params) }),
          },
          signal,
        );
      }
      const pubkey = plan.key?.uncompressedHex ?? (await options.keys.publicKey(params.platform)).uncompressedHex;
      signal.throwIfAborted();
      const owner = evmAddress({ uncompressedHex: pubkey });
      const connection: TronConnection = { nodes: params.nodes, owner, ...multicallOf(params) };
      const read = await readFromNodes(connection, signal, failover, (node, nodeSignal) =>
        readTronAccount(http(node), owner, params.tokens, plan.getBalances, nodeSignal, route(node, params.multicall)),
      );
      return activatedPlatform(
        {
          plan,
          family: ChainFamilyId.Tron,
          address: evmToTronBase58(owner),
          pubkey,
          derivationMethod: plan.key === undefined ? options.keys.derivationMethod : 'HDWallet',
          derivationPath: plan.key?.derivationPath,
          decimals: params.decimals,
          tokens: params.tokens,
          connection,
        },
        read,
      );
    },

    async balance(coin: ActivatedCoin, ticker: string, signal: AbortSignal): Promise<Balance> {
      const connection = coin.connection as TronConnection;
      const read = await readFromNodes(connection, signal, failover, (node, nodeSignal) =>
        readTronAccount(http(node), connection.owner, tokensForBalance(coin, ticker), true, nodeSignal, route(node, connection.multicall)),
      );
      return balanceFromRead(coin, ticker, read);
    },

    balanceWatch(coin: ActivatedCoin) {
      const connection = coin.connection as TronConnection;
      return tronCoinWatch(coin, connection.nodes, connection.balancePollMs, (nodes, owner, tokens, withBalances, signal) =>
        readFromNodes(nodes, signal, failover, (node, nodeSignal) => readTronAccount(http(node), owner, tokens, withBalances, nodeSignal, route(node, connection.multicall))),
      );
    },

    // Withdraw and broadcast (issue 25): every node call through this family's failover.
    withdraw: createTronWithdraw({
      clock: options.clock,
      async onNodes(coin, signal, work) {
        const connection = coin.connection as TronConnection;
        const value = await readFromNodes(connection, signal, failover, (node, nodeSignal) => work(http(node), nodeSignal));
        // The node that answered is now first in the list.
        return { value, node: urlLabel(connection.nodes[0]!.url) };
      },
    }),

    // `enable_erc20`: a TRC20 reads at its platform's account through its platform's nodes.
    tokens: {
      rule: TRC20_RULE,
      nodes: (platform) => (platform.connection as TronConnection).nodes,
      async read(platform, token, signal) {
        const connection = platform.connection as TronConnection;
        const read = await readFromNodes(connection, signal, failover, (node, nodeSignal) =>
          readTronAccount(http(node), connection.owner, [tokenToRead(token)], true, nodeSignal, route(node, connection.multicall)),
        );
        return tokenFromRead(token, read);
      },
    },
  };
}

/** The connection's per-platform settings: its multicall contract and its `balance_poll_s`. */
function multicallOf(params: TronPlanParams): { multicall?: string; balancePollMs?: number } {
  return { ...(params.multicall === undefined ? {} : { multicall: params.multicall }), ...balancePollOf(params.platform) };
}
