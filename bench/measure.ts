/**
 * One measured sample of each path, with the values it read, so the bench can prove every path
 * reads the same (correct) chain state before it reports any timing; and the diagnostics that
 * post each path's calls straight to the devnet.
 */
import { performance } from 'node:perf_hooks';
import { Interface, parseUnits } from 'ethers';
import type { LatencyProxy, LatencyProxyStats } from '../devnet/index.ts';
import { TEST_ADDRESS, SWAP_CONTRACT, type Stack } from '../devnet/testing/stack.ts';
import { aggregate3Call, decodeAggregate3, getEthBalanceCall } from '../infra/multicall/aggregate3.ts';
import { accountReads, deploylessChunks } from '../infra/evm/multicall/deployless.ts';
import type { BenchFixture, BenchToken } from './fixture.ts';
import { NATIVE_WEI, NO_CODE_ADDRESS } from './fixture.ts';
import { readSequentially } from './sequentialBaseline.ts';

/** What one path saw for one activation: its wall time and the node traffic the proxy counted (incl. calls without `to`). */
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
 * Ours: a real HTTP `enable_eth_with_tokens` to the running `stack` with `proxy` as its only
 * node; wall time is the RPC call as a client sees it. Afterwards ETH is force-disabled (not
 * timed) so the next run activates from scratch (the service still remembers what it learned of
 * the node, as it would in a session).
 */
export async function measureOurs(stack: Stack, proxy: LatencyProxy, tokens: readonly BenchToken[]): Promise<Measured> {
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

/** Baseline: the reference's N + 2 sequential single requests through the devnet's proxy. */
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
 * Diagnostic, not a path under test: how long the devnet itself takes to answer the plain path's
 * N + 2 calls as one batch, posted straight to it (no proxy, no latency, not counted). Subtracted from
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

/** A diagnostic: the devnet answering a path's calls straight (ms), and our encode/decode CPU for them (ms). */
export interface NodeAlone {
  readonly nodeMs: number;
  readonly encodeMs: number;
  readonly decodeMs: number;
}

/**
 * Diagnostic, not a path under test: the multicall path's node work and client CPU, apart. The
 * devnet answering `[eth_blockNumber, aggregate3(getEthBalance + N balanceOf)]` posted straight to
 * it (no proxy, not counted), and the time our own code takes to encode that `aggregate3` and to
 * decode its answer. Set beside {@link measureNodeBatch}, it shows whether a difference in wall
 * time is the node's execution (which a remote node pays on its side) or ours.
 */
export async function measureNodeMulticall(fixture: BenchFixture, tokens: readonly BenchToken[]): Promise<NodeAlone> {
  const multicall = fixture.devnet.multicall;
  if (multicall === undefined) throw new Error('the bench devnet has no multicall contract');
  const balanceOf = erc20.encodeFunctionData('balanceOf', [TEST_ADDRESS]);
  const items = [{ target: multicall, callData: getEthBalanceCall(TEST_ADDRESS) }, ...tokens.map((t) => ({ target: t.contractAddress, callData: balanceOf }))];
  let started = performance.now();
  const data = aggregate3Call(items);
  const encodeMs = performance.now() - started;
  const batch = [
    { jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] },
    { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: multicall, data }, 'latest'] },
  ];
  started = performance.now();
  const response = await fetch(fixture.devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
  const answers = (await response.json()) as { result?: unknown }[];
  const nodeMs = performance.now() - started;
  started = performance.now();
  const outcomes = decodeAggregate3(answers[1]?.result, items.length);
  const decodeMs = performance.now() - started;
  if (outcomes === undefined || outcomes.some((o) => !o.success)) throw new Error(`devnet answered aggregate3 wrongly: ${JSON.stringify(answers).slice(0, 300)}`);
  return { nodeMs, encodeMs, decodeMs };
}

/**
 * Diagnostic, not a path under test: the deployless path's node work and client CPU, apart, as
 * {@link measureNodeMulticall} does for `aggregate3`: the devnet answering `[eth_blockNumber, the
 * deployless eth_call(s)]` of a first contact on the chain without Multicall3 (probe of
 * NO_CODE_ADDRESS, then the native balance and N `balanceOf`, in chunks of DEPLOYLESS_CHUNK_READS)
 * posted straight to it, and the time our code takes to encode those calls and decode the answers.
 */
export async function measureNodeDeployless(fixture: BenchFixture, tokens: readonly BenchToken[]): Promise<NodeAlone> {
  let started = performance.now();
  const pieces = deploylessChunks(accountReads([TEST_ADDRESS], tokens.map((t) => t.contractAddress)), NO_CODE_ADDRESS);
  const calls = pieces.map(({ data }) => data);
  const encodeMs = performance.now() - started;
  const batch = [
    { jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] },
    ...calls.map((data, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'eth_call', params: [{ data }, 'latest'] })),
  ];
  started = performance.now();
  const response = await fetch(fixture.devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
  const answers = (await response.json()) as { id?: unknown; result?: unknown }[];
  const nodeMs = performance.now() - started;
  started = performance.now();
  const byId = new Map(answers.map((a) => [a.id, a]));
  const outcomes = pieces.map(({ count }, i) => decodeAggregate3(byId.get(i + 1)?.result, count, true));
  const decodeMs = performance.now() - started;
  const flat = outcomes.flatMap((o) => o ?? []);
  // The first outcome is the probe (of an address without code: not a Multicall3 answer); every balance read must succeed.
  if (outcomes.some((o) => o === undefined) || flat.length !== tokens.length + 2 || flat.slice(1).some((o) => !o.success)) {
    throw new Error(`devnet answered the deployless call wrongly: ${JSON.stringify(answers).slice(0, 300)}`);
  }
  return { nodeMs, encodeMs, decodeMs };
}

/**
 * Throws unless every path read the same block and balances, and those balances are the ones the
 * devnet was set up with (so equally broken paths cannot agree silently).
 */
export function assertSameValues(read: Readonly<Record<string, ReadValues>>, tokens: readonly BenchToken[], label: string): void {
  const problems: string[] = [];
  const entries = Object.entries(read);
  const [firstName, first] = entries[0]!;
  for (const [name, v] of entries.slice(1)) {
    if (v.currentBlock !== first.currentBlock) problems.push(`current block: ${firstName} ${first.currentBlock}, ${name} ${v.currentBlock}`);
  }
  for (const [name, v] of entries) {
    if (v.native !== NATIVE_WEI) problems.push(`${name} native balance ${v.native}, expected ${NATIVE_WEI}`);
    if (v.tokens.length !== tokens.length) problems.push(`${name} read ${v.tokens.length} token balances, expected ${tokens.length}`);
    tokens.forEach((t, i) => {
      if (v.tokens[i] !== t.amount) problems.push(`${name} ${t.ticker} balance ${v.tokens[i]}, expected ${t.amount}`);
    });
  }
  if (problems.length > 0) throw new Error(`${label}: paths disagree:\n  ${problems.slice(0, 10).join('\n  ')}`);
}
