/**
 * EVM leg of the balance-watch bench (issue 24 item 8): ETH and 99 ERC20s enabled on one node,
 * twice over the same chain: a service that polls the block number every `balance_poll_s`, and one
 * that follows `newHeads` over the node's WebSocket. Every block changes all 100 balances (one
 * transfer and 99 mints, mined together); for each block it counts the balance reads sent from the
 * mine to the last of its frames (polls are counted per minute, idle), and times each
 * `BALANCE:ETH` frame on `/event-stream` from the mine.
 * The reference client's polling (one `my_balance` per coin per 30 s) runs against the polling
 * service in the same window and is timed the same way.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Interface, toQuantity } from 'ethers';
import { systemClock } from '../../kernel/clock.ts';
import { startLatencyProxy, type LatencyProxy } from '../../devnet/index.ts';
import { devnetCoins, enableEthParams, startStack, startTestDevnet, TEST_ADDRESS, TEST_PASSWORD, type Stack, type TestToken } from '../../devnet/testing/stack.ts';
import { eventually } from '../../devnet/testing/tasks.ts';
import { formatAmount, parseAmount } from '../../spec/amount.ts';
import { aggregate3Call, CANONICAL_MULTICALL_ADDRESS, getEthBalanceCall } from '../../infra/multicall/aggregate3.ts';
import { recordSse, type SseRecorder } from './sseRecorder.ts';
import { seenAfter, startClientPolling } from './clientPolling.ts';
import type { WatchLeg, WatchPath } from './watchReport.ts';
import { mulberry32 } from '../../devnet/testing/seededRandom.ts';

export interface EvmWatchOptions {
  readonly coins: number;
  readonly blocks: number;
  readonly pollS: number;
  readonly clientPeriodMs: number;
  readonly latencyMs: number;
}

const WEI_PER_BLOCK = 10n ** 15n;
const erc20 = new Interface(['function mint(address to, uint256 amount)', 'function balanceOf(address owner) view returns (uint256)']);

/**
 * What the node alone needs for one read of every watched balance: the median of 5 `aggregate3`
 * calls of them, straight into the in-process chain (no HTTP, no service). The chain executes each
 * call, so this is part of every delay and no service can go below it.
 */
async function nodeReadMs(devnet: Awaited<ReturnType<typeof startTestDevnet>>): Promise<number> {
  const items = [
    { target: CANONICAL_MULTICALL_ADDRESS, callData: getEthBalanceCall(TEST_ADDRESS) },
    ...devnet.tokens.map((t) => ({ target: t.address, callData: erc20.encodeFunctionData('balanceOf', [TEST_ADDRESS]) })),
  ];
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await devnet.request('eth_call', [{ to: CANONICAL_MULTICALL_ADDRESS, data: aggregate3Call(items) }, 'latest']);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[2]!;
}

interface Watcher {
  readonly name: string;
  readonly stack: Stack;
  readonly proxy: LatencyProxy;
  readonly stream: SseRecorder;
  readonly requestsPerBlock: number[];
  readonly delays: number[];
}

export async function runEvmWatch(o: EvmWatchOptions): Promise<WatchLeg> {
  const specs: TestToken[] = Array.from({ length: o.coins - 1 }, (_, i) => {
    const decimals = [6, 18, 8][i % 3]!;
    return { symbol: `W${String(i).padStart(3, '0')}`, decimals, amount: 1000n * 10n ** BigInt(decimals) + BigInt(i) };
  });
  const decimals = new Map<string, number>([['ETH', 18], ...specs.map((s) => [`${s.symbol}-ERC20`, s.decimals] as const)]);
  const stoppers: (() => Promise<unknown> | void)[] = [];
  try {
    const devnet = await startTestDevnet({ tokens: specs });
    stoppers.push(() => devnet.stop());
    const coins = devnetCoins(devnet).map((c) => ((c as { coin: string }).coin === 'ETH' ? { ...(c as object), balance_poll_s: o.pollS } : c));
    const tickers = specs.map((s) => `${s.symbol}-ERC20`);
    const start = async (name: string, node: (proxy: LatencyProxy) => Record<string, string>, clientId: number): Promise<Watcher> => {
      const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: o.latencyMs });
      stoppers.push(() => proxy.stop());
      const stack = await startStack({ devnet, coins, clock: systemClock });
      stoppers.push(() => stack.stop());
      const { status, body } = await stack.v2('enable_eth_with_tokens', { ...enableEthParams(stack, tickers), nodes: [node(proxy)] });
      if (status !== 200) throw new Error(`${name}: ${JSON.stringify(body)}`);
      await eventually(() => stack.service.registry.balanceWatchers === 1, `${name}: the watcher`, 30_000);
      const stream = await recordSse(`${stack.service.url}/event-stream?id=${clientId}`, { authorization: `Bearer ${TEST_PASSWORD}` });
      stoppers.push(() => stream.close());
      await eventually(() => stream.frames.length > 0, `${name}: the stream's ready frame`);
      const enabled = await stack.v2('stream::balance::enable', { coin: 'ETH', client_id: clientId });
      if (enabled.status !== 200) throw new Error(`${name}: ${JSON.stringify(enabled.body)}`);
      return { name, stack, proxy, stream, requestsPerBlock: [], delays: [] };
    };
    const polled = await start(`polling every ${o.pollS} s`, (proxy) => ({ url: proxy.url }), 1);
    const heads = await start('newHeads over a WebSocket', (proxy) => ({ url: proxy.url, ws_url: devnet.wsUrl }), 2);
    const watchers = [polled, heads];

    // Idle: what watching costs while nothing happens.
    await sleep(o.pollS * 1000);
    for (const w of watchers) w.proxy.reset();
    const idleMs = 3 * o.pollS * 1000;
    await sleep(idleMs);
    const idlePerMinute = watchers.map((w) => (w.proxy.stats().httpRequests * 60_000) / idleMs);

    // Blocks, each changing every balance, at random gaps; the client polls all along.
    const client = startClientPolling(polled.stack.service.url, TEST_PASSWORD, ['ETH', ...tickers], o.clientPeriodMs);
    const random = mulberry32(24);
    const changes: { coin: string; at: number; amount: bigint }[] = [];
    const initial = new Map<string, bigint>([['ETH', 1_234_500_000_000_000_000n], ...specs.map((s) => [`${s.symbol}-ERC20`, s.amount] as const)]);
    await devnet.request('evm_setAutomine', [false]);
    for (let k = 1; k <= o.blocks; k++) {
      await sleep(o.pollS * 1000 * (0.6 + random() * 1.4));
      await devnet.request('eth_sendTransaction', [{ from: devnet.deployer, to: TEST_ADDRESS, value: toQuantity(WEI_PER_BLOCK) }]);
      for (const s of specs) {
        const unit = 10n ** BigInt(s.decimals);
        const token = devnet.tokens.find((t) => t.symbol === s.symbol)!.address;
        await devnet.request('eth_sendTransaction', [{ from: devnet.deployer, to: token, data: erc20.encodeFunctionData('mint', [TEST_ADDRESS, unit]) }]);
      }
      // A block's reads: the watcher's balance reads are its only eth_calls (one aggregate3 each);
      // its block-number polls are counted apart, per minute (a poll in flight at the mine would
      // otherwise be charged to the block).
      const readsOf = (w: Watcher) => w.proxy.stats().byMethod.eth_call ?? 0;
      const before = watchers.map(readsOf);
      const frameCounts = watchers.map((w) => w.stream.frames.length);
      await devnet.request('evm_mine', []);
      const minedAt = performance.now();
      const expected = new Map([...initial].map(([coin, amount]) => [coin, amount + BigInt(k) * (coin === 'ETH' ? WEI_PER_BLOCK : 10n ** BigInt(decimals.get(coin)!))]));
      for (const [coin, amount] of expected) changes.push({ coin, at: minedAt, amount });
      for (const [i, w] of watchers.entries()) {
        const seen = new Map<string, number>();
        await eventually(() => {
          for (const f of w.stream.frames.slice(frameCounts[i])) {
            const frame = JSON.parse(f.data) as { _type?: string; message?: { ticker: string; balance: { spendable: string } }[] };
            for (const m of frame._type === 'BALANCE:ETH' ? (frame.message ?? []) : []) {
              if (!seen.has(m.ticker) && parseAmount(m.balance.spendable, decimals.get(m.ticker)!) === expected.get(m.ticker)) seen.set(m.ticker, f.at);
            }
          }
          return seen.size === expected.size;
        }, `${w.name}: block ${k}'s ${expected.size} frames`, o.pollS * 1000 + 30_000);
        for (const at of seen.values()) w.delays.push(at - minedAt);
      }
      await sleep(20); // a read still answering is counted with its block
      watchers.forEach((w, i) => w.requestsPerBlock.push(readsOf(w) - before[i]!));
    }
    await sleep(o.clientPeriodMs + 500);
    client.stop();
    const clientDelays = seenAfter(client.answers, changes, (coin, balance) => parseAmount(balance, decimals.get(coin)!));
    // What a my_balance of every coin costs the node now (answered from the watched values).
    polled.proxy.reset();
    for (const coin of ['ETH', ...tickers]) await polled.stack.legacy('my_balance', { coin });
    const myBalanceCalls = polled.proxy.stats().httpRequests;
    const nodeMs = await nodeReadMs(devnet);

    const paths: WatchPath[] = watchers.map((w, i) => ({
      name: `ours, ${w.name}`,
      idleRequestsPerMinute: idlePerMinute[i]!,
      requestsPerBlock: w.requestsPerBlock,
      delaysMs: w.delays,
      goalP99Ms: w === polled ? o.pollS * 1000 + 200 : 50,
      goalRequestsPerBlock: 1,
      nodeReadMs: nodeMs,
    }));
    return {
      name: `EVM: ETH + ${o.coins - 1} ERC20 on one node`,
      coins: o.coins,
      blocks: o.blocks,
      paths,
      client: {
        // The reference answers each my_balance with one node call (eth_getBalance or eth_call).
        requestsPerMinute: (o.coins * 60_000) / o.clientPeriodMs,
        delaysMs: clientDelays,
        unseen: changes.length - clientDelays.length,
        ourNodeCallsForAllCoins: myBalanceCalls,
      },
      formatted: formatAmount(WEI_PER_BLOCK, 18),
    };
  } finally {
    for (const stop of stoppers.reverse()) await stop();
  }
}
