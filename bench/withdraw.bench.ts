/**
 * Withdraw leg of `npm run bench` (issue 25): what one EVM withdrawal costs the node, through a
 * latency-injecting, counting proxy in front of the devnet chain: ours (one JSON-RPC batch: balance,
 * token balance, pending and mined nonce, gas price, fee history, gas estimate; `max` with an
 * estimated gas adds the estimate as a second trip) beside the reference's calls made one after
 * another as its `eth/eth_withdraw.rs` `build` awaits them (balance → gas price and fee history →
 * estimate → nonce), replayed through the same proxy. Env: BENCH_LATENCY_MS (default 50),
 * BENCH_RUNS (default 5). Exits non-zero when a withdrawal fails.
 */
import './silence.ts';
import { performance } from 'node:perf_hooks';
import { getAddress } from 'ethers';
import { startLatencyProxy, type LatencyProxy } from '../devnet/index.ts';
import { TEST_ADDRESS, enableEthParams, startStack, startTestDevnet } from '../devnet/testing/stack.ts';
import { integerFrom } from './benchConfig.ts';
import { summarize } from './stats.ts';
import { count, renderTable, wall } from './table.ts';

const latencyMs = integerFrom(process.env, 'BENCH_LATENCY_MS', 0) ?? 50;
const runs = integerFrom(process.env, 'BENCH_RUNS', 1) ?? 5;
const RECIPIENT = getAddress('0x8ba1f109551bd432803012645ac136ddd64dba72');

const devnet = await startTestDevnet({ nativeWei: 10n ** 20n, tokens: [{ symbol: 'USDT', decimals: 6, amount: 10n ** 12n }] });
const proxy: LatencyProxy = await startLatencyProxy({ target: devnet.url, latencyMs });
const stack = await startStack({ devnet });
try {
  const enabled = await stack.v2('enable_eth_with_tokens', { ...enableEthParams(stack, ['USDT-ERC20']), nodes: [{ url: proxy.url }] });
  if (enabled.status !== 200) throw new Error(`activation failed: ${JSON.stringify(enabled.body)}`);
  const token = devnet.tokens[0]!.address;
  const transfer = `0xa9059cbb${RECIPIENT.slice(2).toLowerCase().padStart(64, '0')}${(10n ** 6n).toString(16).padStart(64, '0')}`;
  /** The reference's order: each step awaits the one before (its `get_addr_nonce` asks every node at once: one node here). */
  const sequential = (erc20: boolean) => async () => {
    const call = (method: string, params: unknown[]) => fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then((r) => r.json());
    await call(erc20 ? 'eth_call' : 'eth_getBalance', erc20 ? [{ to: token, data: `0x70a08231${TEST_ADDRESS.slice(2).toLowerCase().padStart(64, '0')}` }, 'latest'] : [TEST_ADDRESS, 'latest']);
    await Promise.all([call('eth_gasPrice', []), call('eth_feeHistory', ['0x1', 'latest', []])]);
    await call('eth_estimateGas', [erc20 ? { from: TEST_ADDRESS, to: token, data: transfer } : { from: TEST_ADDRESS, to: RECIPIENT, value: '0x1' }]);
    await call('eth_getTransactionCount', [TEST_ADDRESS, 'pending']);
  };
  const ours = (params: Record<string, unknown>) => async () => {
    const answer = await stack.v2('withdraw', { to: RECIPIENT, ...params });
    if (answer.status !== 200) throw new Error(`withdraw failed: ${JSON.stringify(answer.body)}`);
  };
  // [label, round trips one after another (by construction), the run]
  const cases: [string, number, () => Promise<void>][] = [
    ['ETH, estimated fee: ours', 1, ours({ coin: 'ETH', amount: '1' })],
    ['ETH: reference order', 4, sequential(false)],
    ['ERC20, estimated fee: ours', 1, ours({ coin: 'USDT-ERC20', amount: '1' })],
    ['ERC20: reference order', 4, sequential(true)],
    ['ETH max, estimated gas: ours', 2, ours({ coin: 'ETH', max: true })],
    ['ETH, EthGas given: ours', 1, ours({ coin: 'ETH', amount: '1', fee: { type: 'EthGas', gas_price: '2', gas: 21000 } })],
  ];
  const rows: string[][] = [];
  for (const [, , run] of cases) await run(); // warm-up (first-use compilation, sockets), not measured
  for (const [label, trips, run] of cases) {
    const requests: number[] = [];
    const calls: number[] = [];
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      proxy.reset();
      const start = performance.now();
      await run();
      times.push(performance.now() - start);
      requests.push(proxy.stats().httpRequests);
      calls.push(proxy.stats().rpcCalls);
    }
    rows.push([label, String(trips), count(summarize(requests)), count(summarize(calls)), wall(summarize(times))]);
  }
  console.log(`withdraw: ${latencyMs} ms per round trip, ${runs} runs each (median [min–max])`);
  for (const line of renderTable(['withdrawal', 'round trips in sequence', 'HTTP requests', 'node calls', 'wall, ms'], rows)) console.log(line);
} finally {
  await stack.stop();
  await proxy.stop();
  await devnet.stop();
}
