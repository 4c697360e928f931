/**
 * A real EVM chain in this process: hardhat@2's EDR-backed provider, configured with the same
 * defaults hardhat's own `createProvider` resolves for the `hardhat` network (automine on).
 * Hardhat is only used as a library: no CLI, no config file, no telemetry, no forking.
 */
import type { createHardhatNetworkProvider } from 'hardhat/internal/hardhat-network/provider/provider.js';

/** Direct EIP-1193 style call into the chain. */
export type EvmRequest = (method: string, params?: readonly unknown[]) => Promise<unknown>;

type HardhatNetworkProviderConfig = Parameters<typeof createHardhatNetworkProvider>[0];

export interface InProcessEvmOptions {
  chainId: number;
  /** Accounts the node owns (can `eth_sendTransaction`), with their genesis balance in wei. */
  ownedAccounts: { privateKey: string; balanceWei: bigint }[];
}

/**
 * Hardhat creates its one EDR context lazily and registers the chain type after an `await`, without
 * guarding against a second caller: two chains started at once could see the context before
 * registration finished ("Provider for provided chain type does not exist"). Every start waits on
 * this one initialization first.
 */
let edrContextReady: Promise<unknown> | undefined;

/**
 * Starts an in-process chain and returns its request function. Hardhat is imported lazily
 * (~250 ms) so modules that merely import the devnet package stay cheap.
 */
export async function startInProcessEvm(options: InProcessEvmOptions): Promise<EvmRequest> {
  const [{ createHardhatNetworkProvider: create, getGlobalEdrContext }, { defaultHardhatNetworkParams: defaults }] = await Promise.all([
    import('hardhat/internal/hardhat-network/provider/provider.js'),
    import('hardhat/internal/core/config/default-config.js'),
  ]);
  await (edrContextReady ??= getGlobalEdrContext());
  // Mirrors hardhat/internal/core/providers/construction.js + config-resolution.js for a config
  // that overrides nothing but chainId and accounts.
  const config: HardhatNetworkProviderConfig = {
    chainId: options.chainId,
    networkId: options.chainId,
    hardfork: defaults.hardfork,
    blockGasLimit: defaults.blockGasLimit,
    initialBaseFeePerGas: defaults.initialBaseFeePerGas,
    minGasPrice: BigInt(defaults.minGasPrice),
    throwOnTransactionFailures: defaults.throwOnTransactionFailures,
    throwOnCallFailures: defaults.throwOnCallFailures,
    automine: defaults.mining.auto,
    intervalMining: defaults.mining.interval,
    mempoolOrder: defaults.mining.mempool.order as HardhatNetworkProviderConfig['mempoolOrder'],
    chains: new Map(defaults.chains),
    coinbase: defaults.coinbase,
    genesisAccounts: options.ownedAccounts.map((a) => ({ privateKey: a.privateKey, balance: a.balanceWei })),
    allowUnlimitedContractSize: defaults.allowUnlimitedContractSize,
    allowBlocksWithSameTimestamp: defaults.allowBlocksWithSameTimestamp ?? false,
    initialDate: new Date(),
    forkConfig: undefined,
    forkCachePath: undefined,
    enableTransientStorage: defaults.enableTransientStorage ?? false,
    enableRip7212: defaults.enableRip7212 ?? false,
  };
  const provider = await create(config, { enabled: defaults.loggingEnabled });
  return (method, params) => provider.request({ method, params: params === undefined ? undefined : [...params] });
}
