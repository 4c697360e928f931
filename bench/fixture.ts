/**
 * The bench's world: one devnet (with Multicall3 at the canonical address) with the test wallet
 * funded and DEPLOYED_TOKENS ERC20s minted to it, latency proxies in front of it that every measured
 * path goes through, and two real services on random loopback ports:
 *
 * - `stack`: the devnet's own coins file, so its ETH entry's `multicall_address` is the canonical
 *   Multicall3. Through `proxy` its first read is deployless and finds the contract; later reads
 *   go through `aggregate3`. Through `limitedProxy` (in front of `limitedNode`, which refuses every
 *   `eth_call` without `to`) its first read is refused and it reads with plain batched calls.
 * - `noMulticallStack`: the same service whose ETH entry points `multicall_address` at
 *   NO_CODE_ADDRESS: a chain without Multicall3. Its probe finds nothing, so every read stays
 *   deployless.
 *
 * Why a second service on the same devnet rather than a second devnet without the contract: all
 * paths then ask the same chain process, with the same state, tokens and proxy, so the only
 * difference measured is the client's read path (a second in-process chain would also compete for
 * the 2 cores while idle and differ in its own execution time). The limited node is a thin filter
 * in front of the same chain, not a second one.
 */
import { rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../kernel/clock.ts';
import { startEvmDevnet, startLatencyProxy, startLimitedNode, type EvmDevnet, type LatencyProxy } from '../devnet/index.ts';
import { DEVNET_CHAIN_ID, TEST_ADDRESS, devnetCoins, startStack, type Stack } from '../devnet/testing/stack.ts';
import { DEPLOYED_TOKENS, type BenchConfig } from './benchConfig.ts';

/** The test wallet's native balance (wei); odd last digit so a rounding bug would show. */
export const NATIVE_WEI = 1_234_500_000_000_000_001n;

/** An address with no code on the devnet (checked at start): the `multicall_address` of a chain without Multicall3. */
export const NO_CODE_ADDRESS = '0x00000000000000000000000000000000000c0DE0';

const DECIMALS_CYCLE = [18, 6, 8, 0] as const;

/** A deployed bench token and what the test wallet must hold of it. */
export interface BenchToken {
  /** Coins-file ticker, `<symbol>-ERC20`. */
  readonly ticker: string;
  readonly contractAddress: string;
  readonly decimals: number;
  /** Minted to TEST_ADDRESS, in base units. */
  readonly amount: bigint;
}

/** Milliseconds spent on each startup phase. */
export interface StartupTimings {
  /** Chain start, TestToken compile (disk-cached), DEPLOYED_TOKENS deploys + mints, HTTP up. */
  readonly devnetMs: number;
  /** Temp config dir, event log, service listening (both services). */
  readonly serviceMs: number;
  /** The limited node and both proxies. */
  readonly proxyMs: number;
}

export interface BenchFixture {
  readonly devnet: EvmDevnet;
  /** Its ETH entry's `multicall_address` is the devnet's Multicall3. */
  readonly stack: Stack;
  /** A chain without Multicall3: its ETH entry's `multicall_address` has no code. */
  readonly noMulticallStack: Stack;
  /** In front of the devnet. */
  readonly proxy: LatencyProxy;
  /** In front of a node that refuses `eth_call` without `to` (the same chain). */
  readonly limitedProxy: LatencyProxy;
  readonly tokens: readonly BenchToken[];
  readonly startup: StartupTimings;
  /** Stops service, proxy and devnet and removes the temp dir; safe after a partial failure. */
  stop(): Promise<void>;
}

/** Token i: symbol `BT000`…, decimals cycling through 18/6/8/0, a distinct non-round amount. */
function tokenSpec(i: number): { symbol: string; decimals: number; amount: bigint } {
  const decimals = DECIMALS_CYCLE[i % DECIMALS_CYCLE.length]!;
  return { symbol: `BT${String(i).padStart(3, '0')}`, decimals, amount: BigInt(i + 1) * 10n ** BigInt(decimals) + BigInt(i) };
}

/** Starts devnet, services, limited node and proxies (timing each), tearing down what started if a later step fails. */
export async function startFixture(config: BenchConfig): Promise<BenchFixture> {
  const specs = Array.from({ length: DEPLOYED_TOKENS }, (_, i) => tokenSpec(i));
  const stoppers: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop().catch(() => {});
  };
  try {
    let t = performance.now();
    const devnet = await startEvmDevnet({
      chainId: DEVNET_CHAIN_ID,
      fund: [{ address: TEST_ADDRESS, wei: NATIVE_WEI }],
      tokens: specs.map((s) => ({ symbol: s.symbol, decimals: s.decimals, mint: [{ address: TEST_ADDRESS, amount: s.amount }] })),
    });
    stoppers.push(() => devnet.stop());
    const devnetMs = performance.now() - t;

    const answer = await fetch(devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [NO_CODE_ADDRESS, 'latest'] }),
    });
    const { result: code } = (await answer.json()) as { result?: unknown };
    if (code !== '0x') throw new Error(`${NO_CODE_ADDRESS} has code on the devnet; the chain without Multicall3 needs an empty address`);
    if (devnet.multicall === undefined) throw new Error('the bench devnet has no Multicall3');

    t = performance.now();
    const service = async (coins?: readonly unknown[]) => {
      const started = await startStack({
        devnet,
        clock: systemClock,
        ...(coins ? { coins } : {}),
        ...(config.batchSizeSource === 'BENCH_BATCH_SIZE' ? { evm: { batchSize: config.batchSize } } : {}),
      });
      stoppers.push(async () => {
        await started.stop();
        await rm(started.dir, { recursive: true, force: true });
      });
      return started;
    };
    const stack = await service();
    const noMulticallStack = await service(
      devnetCoins(devnet).map((entry) => ((entry as { coin?: string }).coin === 'ETH' ? { ...(entry as object), multicall_address: NO_CODE_ADDRESS } : entry)),
    );
    const serviceMs = performance.now() - t;

    t = performance.now();
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: config.latencyMs });
    stoppers.push(() => proxy.stop());
    const limitedNode = await startLimitedNode(devnet.request, { refuseCallsWithoutTo: true });
    stoppers.push(() => limitedNode.stop());
    const limitedProxy = await startLatencyProxy({ target: limitedNode.url, latencyMs: config.latencyMs });
    stoppers.push(() => limitedProxy.stop());
    const proxyMs = performance.now() - t;

    const tokens = devnet.tokens.map((deployed, i) => ({
      ticker: `${deployed.symbol}-ERC20`,
      contractAddress: deployed.address,
      decimals: deployed.decimals,
      amount: specs[i]!.amount,
    }));
    return { devnet, stack, noMulticallStack, proxy, limitedProxy, tokens, startup: { devnetMs, serviceMs, proxyMs }, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
