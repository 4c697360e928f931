/**
 * A MODEL OF THE REFERENCE'S READ PATTERN, for the bench only: not a product path, never imported
 * by the service.
 *
 * The reference activates an ETH platform with N tokens by asking its node for one value per
 * JSON-RPC request, strictly one after another: `eth_blockNumber`, `eth_getBalance`, then
 * `balanceOf` via `eth_call` for each token in request order. That is N + 2 sequential round
 * trips. Here it is reproduced with ethers v6 with batching off (`batchMaxCount: 1`, which also
 * makes ethers send each call at once instead of waiting for a batch) and a static network (no
 * `eth_chainId` probe), so every request the proxy counts is one of those N + 2 values.
 */
import { getBigInt, Interface, JsonRpcProvider, Network } from 'ethers';

const erc20 = new Interface(['function balanceOf(address owner) view returns (uint256)']);

/** What the reference reads for one activation, in base units. */
export interface SequentialRead {
  readonly currentBlock: number;
  readonly native: bigint;
  /** Same order as the `tokenContracts` argument. */
  readonly tokens: readonly bigint[];
}

/**
 * Reads block height, native balance and each token balance of `address` through `nodeUrl`, one
 * HTTP request per value, each awaited before the next is sent.
 */
export async function readSequentially(
  nodeUrl: string,
  chainId: number,
  address: string,
  tokenContracts: readonly string[],
): Promise<SequentialRead> {
  const provider = new JsonRpcProvider(nodeUrl, Network.from(chainId), { staticNetwork: true, batchMaxCount: 1, polling: false });
  try {
    const currentBlock = Number(getBigInt((await provider.send('eth_blockNumber', [])) as string));
    const native = getBigInt((await provider.send('eth_getBalance', [address, 'latest'])) as string);
    const tokens: bigint[] = [];
    for (const contract of tokenContracts) {
      const raw = (await provider.send('eth_call', [{ to: contract, data: erc20.encodeFunctionData('balanceOf', [address]) }, 'latest'])) as string;
      tokens.push(getBigInt(erc20.decodeFunctionResult('balanceOf', raw)[0] as bigint));
    }
    return { currentBlock, native, tokens };
  } finally {
    provider.destroy();
  }
}
