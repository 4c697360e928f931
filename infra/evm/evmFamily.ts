import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { CommandKind, expectKind, type ActivationCommand, type ChainFamily, type PlanContext } from '../../actors/chainFamily.ts';
import { activatedPlatform, balanceFromRead, platformPlan, tokensForBalance } from '../../actors/platformRead.ts';
import { ChainFamilyId, type ActivatedCoin, type ActivationPlan, type Balance } from '../../machines/activation.types.ts';
import type { Clock } from '../clock/clock.ts';
import { readFromNodes, type NodeList } from '../failover/nodeList.ts';
import type { KeyProvider } from '../keys/index.ts';
import { evmAddress } from '../keys/index.ts';
import { readAccount } from './accountReader.ts';
import { createEvmProvider } from './evmProvider.ts';
import { planEvmActivation, type EvmPlanParams } from './evmPlan.ts';

export interface EvmFamilyOptions {
  readonly keys: KeyProvider;
  readonly clock: Clock;
  /** Budget of one node before failing over (default 10 s, as the reference). */
  readonly nodeTimeoutMs?: number;
  /** Most JSON-RPC calls per HTTP request; more go out as concurrent chunks (default 100). */
  readonly batchSize?: number;
}

/** Nodes of an active coin, best first (the one that last answered leads). */
interface EvmConnection extends NodeList {
  readonly chainId: number;
}

/** EVM platforms (ETH, MATIC, BNB, … any `ETH` protocol entry) with their ERC20 tokens. */
export function createEvmFamily(options: EvmFamilyOptions): ChainFamily {
  const timeoutMs = options.nodeTimeoutMs ?? 10_000;
  const batchSize = options.batchSize ?? 100;

  /** Runs `work` against the connection's nodes with the shared failover policy. */
  function withNodes<T>(
    connection: EvmConnection,
    signal: AbortSignal,
    work: (provider: ReturnType<typeof createEvmProvider>) => Promise<T>,
  ): Promise<T> {
    return readFromNodes(connection, signal, { clock: options.clock, timeoutMs }, async (url, nodeSignal) => {
      const provider = createEvmProvider({ url, chainId: connection.chainId, batchSize, signal: nodeSignal });
      try {
        return await work(provider);
      } finally {
        provider.destroy();
      }
    });
  }

  /** The key provider's key for the platform (no path: Iguana). */
  async function softwareKey(params: EvmPlanParams): Promise<{ uncompressedHex: string; address: string; derivationPath?: string }> {
    const publicKey = await options.keys.publicKey(params.platform);
    return { uncompressedHex: publicKey.uncompressedHex, address: evmAddress(publicKey) };
  }

  return {
    id: ChainFamilyId.Evm,
    serves: { platform: ['ETH'] },

    plan(anyCommand: ActivationCommand, context: PlanContext): ActivationPlan {
      const command = expectKind(anyCommand, CommandKind.Platform);
      const protocol = context.platformProtocol;
      const chainId = protocol.type === 'ETH' ? (protocol.chainId ?? context.platform.chain_id) : undefined;
      if (chainId === undefined) {
        const error = 'chain_id is not set in the coins file';
        throw new ActivationError(
          ErrorType.CoinProtocolParseError,
          `Platform coin ${command.ticker} protocol parsing failed: ${error}`,
          { ticker: command.ticker, error },
        );
      }
      return platformPlan(command, ChainFamilyId.Evm, planEvmActivation(command, context, chainId));
    },

    async activate(plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin> {
      const params = plan.params as EvmPlanParams;
      const key = plan.key ?? (await softwareKey(params));
      signal.throwIfAborted();
      const address = key.address;
      const connection: EvmConnection = { chainId: params.chainId, nodes: params.nodes };
      const read = await withNodes(connection, signal, (provider) =>
        readAccount(provider, address, params.tokens, plan.getBalances),
      );
      return activatedPlatform(
        {
          plan,
          family: ChainFamilyId.Evm,
          address,
          pubkey: key.uncompressedHex,
          derivationMethod: plan.key === undefined ? options.keys.derivationMethod : 'HDWallet',
          derivationPath: key.derivationPath,
          decimals: params.decimals,
          tokens: params.tokens,
          connection,
        },
        read,
      );
    },

    async balance(coin: ActivatedCoin, ticker: string, signal: AbortSignal): Promise<Balance> {
      const connection = coin.connection as EvmConnection;
      const read = await withNodes(connection, signal, (provider) => readAccount(provider, coin.address, tokensForBalance(coin, ticker), true));
      return balanceFromRead(coin, ticker, read);
    },
  };
}
