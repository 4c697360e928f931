/**
 * TRON leg of `npm run bench`: wall time and node traffic of `enable_eth_with_tokens` for TRX with
 * N TRC20s, three ways, each through a latency-injecting, counting proxy in front of a devnet TRON
 * node: ours with the network's multicall (getnowblock, getaccount and one `aggregate3` per 100
 * token calls, all at once; dev mode's configuration), today's path without a multicall configured
 * (N + 2 requests at once), and the reference's N + 2 sequential requests. On TRON one HTTP request
 * is one node call. Env: BENCH_LATENCY_MS (default 50), BENCH_RUNS (default 5). Exits non-zero only when
 * the run fails (setup, an RPC error, or the paths reading different values); a missed target is
 * printed as MISSED.
 */
import './silence.ts';
import { rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../kernel/clock.ts';
import { startLatencyProxy, type LatencyProxyStats } from '../devnet/index.ts';
import { evmToTronBase58 } from '../infra/keys/tronAddress.ts';
import { devnetCoins, enableTrxParams, startStack, startTestDevnet, TEST_ADDRESS, type Stack, type TestToken } from '../devnet/testing/stack.ts';
import { TRON_MULTICALL_CHUNK_SIZE } from '../infra/tron/tronMulticall.ts';
import { int64, parseJsonExact } from '../infra/tron/tronHttp.ts';
import { formatAmount, parseAmount } from '../spec/amount.ts';
import { integerFrom } from './benchConfig.ts';
import { environment, saveResults } from './results.ts';
import { summarize } from './stats.ts';
import { count, renderTable, wall } from './table.ts';

const TOKEN_COUNTS = [0, 10, 50] as const;
const TARGET_N = 50;
/**
 * The target at TARGET_N: one round trip. Every call is in flight at once, and the wall time is
 * at most the latency plus what the devnet node itself needs for those calls (measured in the same
 * run: it executes each on the in-process chain) plus this much for the service.
 */
const TARGET_SLACK_MS = 30;
/** Issue 14's limit at TARGET_N: at most this many HTTP requests, all in one round trip. */
const TARGET_MAX_REQUESTS = 4;
/** Our requests with the multicall: block, account, and one `aggregate3` per chunk of token calls. */
const multicallRequests = (n: number) => 2 + Math.ceil(n / TRON_MULTICALL_CHUNK_SIZE);
/** TRX balance in SUN: above 2^53 with an odd last digit, so a float or rounding bug would show. */
const TRX_SUN = 1_234_500_000_000_000_001n;
const OWNER = evmToTronBase58(TEST_ADDRESS);
/** balanceOf's argument: the owner's 20 bytes left-padded to 32. */
const PARAMETER = TEST_ADDRESS.slice(2).toLowerCase().padStart(64, '0');
const latencyMs = integerFrom(process.env, 'BENCH_LATENCY_MS', 0) ?? 50;
const runs = integerFrom(process.env, 'BENCH_RUNS', 1) ?? 5;

/** Token i: `TT000`…, decimals cycling 6/18/8/0, a distinct non-round amount. */
const SPECS: readonly TestToken[] = Array.from({ length: Math.max(...TOKEN_COUNTS) }, (_, i) => {
  const decimals = [6, 18, 8, 0][i % 4]!;
  return { symbol: `TT${String(i).padStart(3, '0')}`, decimals, amount: BigInt(i + 1) * 10n ** BigInt(decimals) + BigInt(i) };
});

type Sample = LatencyProxyStats & { readonly wallMs: number };
/** What a path read: block height, TRX in SUN, token balances in base units (SPECS order). */
interface Read { readonly block: number; readonly trx: bigint; readonly tokens: readonly bigint[] }
type World = Awaited<ReturnType<typeof startWorld>>;

/** Devnet, service + TRON node, proxy; tears down what started if a later step fails. */
async function startWorld(stoppers: (() => Promise<unknown>)[]) {
  const devnet = await startTestDevnet({ nativeWei: TRX_SUN, tokens: SPECS });
  stoppers.push(() => devnet.stop());
  if (devnet.multicall === undefined) fail('the devnet has no multicall contract');
  const stack = await startStack({ devnet, tron: true, clock: systemClock });
  stoppers.push(() => rm(stack.dir, { recursive: true, force: true }), () => stack.stop());
  const proxy = await startLatencyProxy({ target: stack.tron!.url, latencyMs, forwardPath: true });
  stoppers.push(() => proxy.stop());
  // Today's path: the same devnet, the TRX entry without `multicall_address`.
  const today = await startStack({ devnet, tron: true, clock: systemClock, coins: devnetCoins({ chainId: devnet.chainId, tokens: devnet.tokens }) });
  stoppers.push(() => rm(today.dir, { recursive: true, force: true }), () => today.stop());
  const todayProxy = await startLatencyProxy({ target: today.tron!.url, latencyMs, forwardPath: true });
  stoppers.push(() => todayProxy.stop());
  return { devnet, stack, proxy, today: { stack: today, proxy: todayProxy }, contracts: devnet.tokens.map((t) => evmToTronBase58(t.address)) };
}

function fail(message: string): never {
  throw new Error(message);
}

/** Ours: a real `enable_eth_with_tokens` with the proxy as its only node, then a (free) force-disable. */
async function measureOurs({ devnet, stack, proxy }: { devnet: World['devnet']; stack: Stack; proxy: World['proxy'] }, n: number): Promise<{ sample: Sample; read: Read }> {
  const tokens = devnet.tokens.slice(0, n);
  proxy.reset();
  const started = performance.now();
  const { status, body } = await stack.v2('enable_eth_with_tokens', { ...enableTrxParams(stack, tokens.map((t) => `${t.symbol}-TRC20`)), nodes: [{ url: proxy.url }] });
  const sample = { wallMs: performance.now() - started, ...proxy.stats() };
  const result = body?.result;
  if (status !== 200 || result === undefined) fail(`enable_eth_with_tokens answered HTTP ${status}: ${JSON.stringify(body).slice(0, 500)}`);
  const disabled = await stack.legacy('disable_coin', { coin: 'TRX', force_disable: true });
  if (disabled.status !== 200) fail(`disable_coin answered HTTP ${disabled.status}: ${JSON.stringify(disabled.body)}`);
  if (proxy.stats().httpRequests !== sample.httpRequests) fail('disable_coin made node requests; the reset between runs is not free');
  const amount = (text: unknown, decimals: number, what: string) => (typeof text === 'string' ? parseAmount(text, decimals) : fail(`result has no ${what} balance`));
  const balances = result.erc20_addresses_infos?.[OWNER]?.balances ?? {};
  const trx = amount(result.eth_addresses_infos?.[OWNER]?.balances?.spendable, 6, 'TRX');
  return { sample, read: { block: Number(result.current_block), trx, tokens: tokens.map((t) => amount(balances[`${t.symbol}-TRC20`]?.spendable, t.decimals, t.symbol)) } };
}

/** The N + 2 calls the service makes (docs/compatibility.md §11), in the reference's order. */
function tronCalls(contracts: readonly string[], n: number): [path: string, body: object][] {
  const balanceOf = (contract: string) => ({ owner_address: OWNER, contract_address: contract, function_selector: 'balanceOf(address)', parameter: PARAMETER, visible: true });
  return [['/wallet/getnowblock', {}], ['/wallet/getaccount', { address: OWNER, visible: true }], ...contracts.slice(0, n).map((c) => ['/wallet/triggerconstantcontract', balanceOf(c)] as [string, object])];
}

/** POSTs with plain `fetch`; the answer parsed with int64s exact. */
async function post(base: string, [path, body]: [string, object]): Promise<any> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = parseJsonExact(await response.text()) as any;
  if (!response.ok || json?.Error !== undefined) fail(`${path} answered HTTP ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** Baseline: the same N + 2 calls through the proxy, each awaited before the next is sent. */
async function measureBaseline({ proxy, contracts }: World, n: number): Promise<{ sample: Sample; read: Read }> {
  const [blockCall, accountCall, ...tokenCalls] = tronCalls(contracts, n);
  proxy.reset();
  const started = performance.now();
  const block = Number(int64((await post(proxy.url, blockCall!)).block_header?.raw_data?.number) ?? -1n);
  const trx = int64((await post(proxy.url, accountCall!)).balance ?? 0) ?? -1n;
  const tokens: bigint[] = [];
  for (const call of tokenCalls) tokens.push(BigInt(`0x${String((await post(proxy.url, call)).constant_result?.[0]).slice(0, 64)}`));
  return { sample: { wallMs: performance.now() - started, ...proxy.stats() }, read: { block, trx, tokens } };
}

/** Diagnostic: the devnet TRON node answering the same N + 2 calls sent at once straight to it (no proxy). */
async function measureNodeAlone({ stack, contracts }: World, n: number): Promise<number> {
  const started = performance.now();
  await Promise.all(tronCalls(contracts, n).map((call) => post(stack.tron!.url, call)));
  return performance.now() - started;
}

/** One run of each path (ours first); throws unless all read the same block and the funded balances. */
async function pair(world: World, n: number, label: string): Promise<{ ours: Sample; today: Sample; baseline: Sample }> {
  const ours = await measureOurs(world, n);
  const today = await measureOurs({ devnet: world.devnet, ...world.today }, n);
  const baseline = await measureBaseline(world, n);
  const problems = [today, baseline].flatMap((other) => (ours.read.block === other.read.block ? [] : [`block: ours ${ours.read.block}, other ${other.read.block}`]));
  for (const [name, read] of [['ours', ours.read], ['today', today.read], ['baseline', baseline.read]] as const) {
    if (read.trx !== TRX_SUN) problems.push(`${name} TRX ${formatAmount(read.trx, 6)}, expected ${formatAmount(TRX_SUN, 6)}`);
    if (read.tokens.length !== n) problems.push(`${name} read ${read.tokens.length} token balances, expected ${n}`);
    SPECS.slice(0, n).forEach((s, i) => read.tokens[i] !== s.amount && problems.push(`${name} ${s.symbol}-TRC20 ${read.tokens[i]}, expected ${s.amount}`));
  }
  if (problems.length > 0) fail(`${label}: paths disagree:\n  ${problems.slice(0, 10).join('\n  ')}`);
  return { ours: ours.sample, today: today.sample, baseline: baseline.sample };
}

/** Per N: summaries, speed-up, and a note for every run whose traffic is not as designed. */
function analyze({ n, ours, today, baseline, nodeAloneMs }: { n: number; ours: Sample[]; today: Sample[]; baseline: Sample[]; nodeAloneMs: number[] }, notes: string[]) {
  const check = (path: string, list: readonly Sample[], requests: number, inFlight: number) =>
    list.forEach((s, i) => (s.httpRequests !== requests || s.maxInFlight !== inFlight) && notes.push(`N=${n} ${path} run ${i + 1}: ${s.httpRequests} requests, ${s.maxInFlight} in flight; expected ${requests}, ${inFlight}`));
  check('ours', ours, multicallRequests(n), multicallRequests(n));
  check('today', today, n + 2, n + 2);
  check('baseline', baseline, n + 2, 1);
  const summary = (list: readonly Sample[]) => ({ wallMs: summarize(list.map((s) => s.wallMs)), httpRequests: summarize(list.map((s) => s.httpRequests)), maxInFlight: summarize(list.map((s) => s.maxInFlight)) });
  const [o, t, b] = [summary(ours), summary(today), summary(baseline)];
  return { n, ours: o, today: t, baseline: b, speedup: b.wallMs.median / o.wallMs.median, nodeAloneMs: summarize(nodeAloneMs) };
}


const stoppers: (() => Promise<unknown>)[] = [];
try {
  const startedAt = new Date();
  const t0 = performance.now();
  process.stdout.write(`Starting devnet with ${SPECS.length} tokens, service, TRON node and proxy…\n`);
  const world = await startWorld(stoppers);
  const warmup = await pair(world, TARGET_N, 'warm-up'); // discarded: first connections, lazy imports, JIT
  const samples = [];
  for (const n of TOKEN_COUNTS) {
    const row = { n, ours: [] as Sample[], today: [] as Sample[], baseline: [] as Sample[], nodeAloneMs: [] as number[] };
    for (let run = 1; run <= runs; run++) {
      const p = await pair(world, n, `N=${n} run ${run}`);
      row.ours.push(p.ours);
      row.today.push(p.today);
      row.baseline.push(p.baseline);
      row.nodeAloneMs.push(await measureNodeAlone(world, n));
    }
    samples.push(row);
    process.stdout.write(`  N=${n}: ${runs} runs done\n`);
  }
  const notes: string[] = [];
  const rows = samples.map((s) => analyze(s, notes));
  const target = rows.find((r) => r.n === TARGET_N)!;
  const limitMs = latencyMs + target.nodeAloneMs.median + TARGET_SLACK_MS;
  const met =
    target.ours.wallMs.median < limitMs && target.ours.httpRequests.max <= TARGET_MAX_REQUESTS && target.ours.maxInFlight.min === target.ours.httpRequests.max;
  const totalMs = performance.now() - t0;
  const table = renderTable(
    ['tokens N', 'ours (multicall) requests = node calls', 'ours max in flight', 'ours ms (median [min–max])', "today's requests", "today's ms", 'baseline requests', 'baseline ms (median [min–max])', 'speed-up ×', 'devnet node alone ms'],
    rows.map((r) => [String(r.n), count(r.ours.httpRequests), count(r.ours.maxInFlight), wall(r.ours.wallMs), count(r.today.httpRequests), wall(r.today.wallMs), count(r.baseline.httpRequests), wall(r.baseline.wallMs), `${r.speedup.toFixed(1)}×`, r.nodeAloneMs.median.toFixed(1)]),
  );
  const lines = [
    `\nenable_eth_with_tokens TRX + TRC20 vs sequential baseline — latency ${latencyMs} ms/round trip, ${runs} runs per cell\n`,
    ...table,
    `\nTarget at N=${TARGET_N}: at most ${TARGET_MAX_REQUESTS} HTTP requests (node calls), all in flight at once (one round trip), and median wall < latency ${latencyMs} + node alone ${target.nodeAloneMs.median.toFixed(1)} + ${TARGET_SLACK_MS} = ${limitMs.toFixed(1)} ms: ${target.ours.wallMs.median.toFixed(1)} ms → ${met ? 'met' : '*** MISSED ***'}`,
    `  ${(target.ours.wallMs.median - latencyMs).toFixed(1)} ms above the latency; the devnet node alone answers the same ${TARGET_N + 2} calls (sent at once, no proxy) in ${target.nodeAloneMs.median.toFixed(1)} ms`,
    notes.length === 0 ? `Traffic as designed: ours 2 + one aggregate3 per ${TRON_MULTICALL_CHUNK_SIZE} token calls, all at once; today's N+2 all at once; baseline N+2 one at a time.` : 'Surprises:',
    ...notes.map((x) => `  - ${x}`),
    `Total bench time ${(totalMs / 1000).toFixed(1)} s`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const report = { startedAt: startedAt.toISOString(), environment: { ...environment(), latencyMs, runs }, totalMs, target: { n: TARGET_N, limitMs, met }, rows, notes, samples, warmup };
  const paths = await saveResults(report, startedAt, { name: 'enable-trx', latest: 'latest-trx.json' });
  process.stdout.write(`Saved ${paths.map((p) => relative(process.cwd(), p)).join(' and ')}\n`);
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  for (const stop of stoppers.reverse()) await stop().catch(() => {});
}
