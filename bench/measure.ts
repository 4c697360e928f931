/**
 * One measured sample of each path, with the values it read, so the bench can prove both paths
 * read the same (correct) chain state before it reports any timing.
 */
import { performance } from 'node:perf_hooks';
import { Interface, parseUnits } from 'ethers';
import type { LatencyProxyStats } from '../devnet/index.ts';
import { TEST_ADDRESS, SWAP_CONTRACT } from '../devnet/testing/stack.ts';
import type { BenchFixture, BenchToken } from './fixture.ts';
import { NATIVE_WEI } from './fixture.ts';
import { readSequentially } from './sequentialBaseline.ts';

/** What one path saw for one activation: its wall time and the node traffic the proxy counted. */
export interface Sample extends LatencyProxyStats {
  readonly wallMs: number;
}

/** Chain state read by a path, in base units (token balances in the order requested). */
export interface ReadValues {
  readonly currentBlock: number;
  readonly native: bigint;
  readonly tokens: readonly bigint[];
}

export interface Measured {
  readonly sample: Sample;
  readonly values: ReadValues;
}

/**
 * Ours: a real HTTP `enable_eth_with_tokens` to the running service with the proxy as its only
 * node; wall time is the RPC call as a client sees it. Afterwards ETH is force-disabled (not
 * timed) so the next run activates from scratch.
 */
export async function measureOurs(fixture: BenchFixture, tokens: readonly BenchToken[]): Promise<Measured> {
  const { stack, proxy } = fixture;
  const params = {
    ticker: 'ETH',
    nodes: [{ url: proxy.url }],
    swap_contract_address: SWAP_CONTRACT,
    fallback_swap_contract: SWAP_CONTRACT,
    erc20_tokens_requests: tokens.map((t) => ({ ticker: t.ticker })),
  };
  proxy.reset();
  const started = performance.now();
  const { status, body } = await stack.v2('enable_eth_with_tokens', params);
  const wallMs = performance.now() - started;
  const stats = proxy.stats();
  if (status !== 200 || body?.result === undefined) {
    throw new Error(`enable_eth_with_tokens answered HTTP ${status}: ${JSON.stringify(body).slice(0, 500)}`);
  }
  const disabled = await stack.legacy('disable_coin', { coin: 'ETH', force_disable: true });
  if (disabled.status !== 200) throw new Error(`disable_coin answered HTTP ${disabled.status}: ${JSON.stringify(disabled.body)}`);
  const afterDisable = proxy.stats().httpRequests - stats.httpRequests;
  if (afterDisable !== 0) throw new Error(`disable_coin made ${afterDisable} node request(s); the reset between runs is not free`);
  return { sample: { wallMs, ...stats }, values: valuesFromResult(body.result, tokens) };
}

/** Baseline: the reference's N + 2 sequential single requests through the same proxy. */
export async function measureBaseline(fixture: BenchFixture, tokens: readonly BenchToken[]): Promise<Measured> {
  const { proxy, devnet } = fixture;
  proxy.reset();
  const started = performance.now();
  const read = await readSequentially(proxy.url, devnet.chainId, TEST_ADDRESS, tokens.map((t) => t.contractAddress));
  const wallMs = performance.now() - started;
  return { sample: { wallMs, ...proxy.stats() }, values: read };
}

const erc20 = new Interface(['function balanceOf(address owner) view returns (uint256)']);

/**
 * Diagnostic, not a path under test: how long the devnet itself takes to answer the same N + 2
 * calls as one batch, posted straight to it (no proxy, no latency, not counted). Subtracted from
 * ours' time beyond the round trip, it shows what the service itself adds.
 */
export async function measureNodeBatch(fixture: BenchFixture, tokens: readonly BenchToken[]): Promise<number> {
  const balanceOf = erc20.encodeFunctionData('balanceOf', [TEST_ADDRESS]);
  const batch = [
    { jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] },
    { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [TEST_ADDRESS, 'latest'] },
    ...tokens.map((t, i) => ({ jsonrpc: '2.0', id: i + 2, method: 'eth_call', params: [{ to: t.contractAddress, data: balanceOf }, 'latest'] })),
  ];
  const started = performance.now();
  const response = await fetch(fixture.devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
  const answers: unknown = await response.json();
  const ms = performance.now() - started;
  if (!Array.isArray(answers) || answers.length !== batch.length || answers.some((a) => (a as { error?: unknown }).error !== undefined)) {
    throw new Error(`devnet answered the ${batch.length}-call batch wrongly: ${JSON.stringify(answers).slice(0, 300)}`);
  }
  return ms;
}

/** Parses the Iguana result's decimal strings back to base units (ethers' parser, not ours). */
function valuesFromResult(result: any, tokens: readonly BenchToken[]): ReadValues {
  const native = result?.eth_addresses_infos?.[TEST_ADDRESS]?.balances?.spendable;
  const balances = result?.erc20_addresses_infos?.[TEST_ADDRESS]?.balances ?? {};
  if (typeof native !== 'string') throw new Error(`result has no native balance for ${TEST_ADDRESS}`);
  return {
    currentBlock: Number(result.current_block),
    native: parseUnits(native, 18),
    tokens: tokens.map((t) => {
      const text = balances[t.ticker]?.spendable;
      if (typeof text !== 'string') throw new Error(`result has no balance for ${t.ticker}`);
      return parseUnits(text, t.decimals);
    }),
  };
}

/**
 * Throws unless ours and the baseline read the same block and balances, and those balances are
 * the ones the devnet was set up with (so two equally broken paths cannot agree silently).
 */
export function assertSameValues(ours: ReadValues, baseline: ReadValues, tokens: readonly BenchToken[], label: string): void {
  const problems: string[] = [];
  if (ours.currentBlock !== baseline.currentBlock) problems.push(`current block: ours ${ours.currentBlock}, baseline ${baseline.currentBlock}`);
  for (const [name, v] of [['ours', ours], ['baseline', baseline]] as const) {
    if (v.native !== NATIVE_WEI) problems.push(`${name} native balance ${v.native}, expected ${NATIVE_WEI}`);
    if (v.tokens.length !== tokens.length) problems.push(`${name} read ${v.tokens.length} token balances, expected ${tokens.length}`);
    tokens.forEach((t, i) => {
      if (v.tokens[i] !== t.amount) problems.push(`${name} ${t.ticker} balance ${v.tokens[i]}, expected ${t.amount}`);
    });
  }
  if (problems.length > 0) throw new Error(`${label}: paths disagree:\n  ${problems.slice(0, 10).join('\n  ')}`);
}
