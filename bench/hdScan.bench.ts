/**
 * HD leg of `npm run bench` (issue "HD wallets", item 6): node traffic and wall time of a fresh HD
 * wallet's `enable_eth_with_tokens` (gap_limit 20, the default) with N ERC20s, beside the
 * reference's call pattern made one request at a time, both through one latency-injecting,
 * counting proxy in front of the devnet.
 *
 * Ours reads every address of a gap window in one JSON-RPC read: for a fresh wallet that is
 * 1 + 20 × (2 + N) calls (eth_blockNumber; per address eth_getTransactionCount, eth_getBalance and
 * N balanceOf) in ceil(calls / batch size) requests sent at once. The baseline is the reference's
 * 2 + 21 × (2 + N) sequential requests: eth_blockNumber, the enabled address's eth_getBalance, then
 * gap_limit + 1 = 21 addresses checked one by one (nonce, balance, each token's balanceOf).
 *
 * "Fresh" is real: every measured run starts a new service with an empty event log (new dbdir),
 * so the default `scan_if_new_wallet` scans. The mnemonic has never been used on the devnet (no
 * funds, tokens or transactions), so the scan stops after the first window.
 *
 * Env: BENCH_LATENCY_MS (default 50), BENCH_RUNS (default 5), BENCH_BATCH_SIZE (default: the
 * service's 100). Exits non-zero only when the run fails (setup, an RPC error, or the paths reading
 * different values); a missed target is printed as MISSED.
 */
import './silence.ts';
import { rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getBigInt, Interface, parseUnits } from 'ethers';
import { systemClock } from '../kernel/clock.ts';
import { startLatencyProxy } from '../devnet/index.ts';
import { createHdKeyProvider, evmAddress } from '../infra/keys/index.ts';
import { enableEthParams, startStack, startTestDevnet, type TestToken } from '../devnet/testing/stack.ts';
import { hdActivationResult } from '../spec/activationResult.ts';
import { readBenchConfig } from './benchConfig.ts';
import type { Sample } from './measure.ts';
import { environment, saveResults } from './results.ts';
import { summarize } from './stats.ts';
import { count, renderTable, wall } from './table.ts';

const TOKEN_COUNTS = [0, 10] as const;
/** The service's default gap limit: not sent in the request, so the default is what is measured. */
const GAP_LIMIT = 20;
/** A valid BIP39 mnemonic (a BIP39 test vector) with nothing on the devnet. */
const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const ETH_PATH = "m/44'/60'";
/** The requirement for a fresh wallet. */
const TARGET_ROUND_TRIPS = 2;
/**
 * Wall-time target: the round trips made, plus what the in-process devnet itself needs for those
 * calls (measured in the same run: it shares the 2 cores with the service), plus this much for the
 * service: deriving the keys of a never-seen account (~10-15 ms of hardened steps on a new
 * service), the durable event write the answer waits for, encoding, the proxy hop and HTTP.
 */
const TARGET_SLACK_MS = 50;
const config = readBenchConfig();
const limitFor = (roundTrips: number, nodeAloneMs: number) => roundTrips * config.latencyMs + nodeAloneMs + TARGET_SLACK_MS;

/** Token i: `HD00`…, decimals cycling 18/6/8/0, minted to the (Iguana) test wallet, never to the HD wallet. */
const SPECS: readonly TestToken[] = Array.from({ length: Math.max(...TOKEN_COUNTS) }, (_, i) => {
  const decimals = [18, 6, 8, 0][i % 4]!;
  return { symbol: `HD${String(i).padStart(2, '0')}`, decimals, amount: BigInt(i + 1) * 10n ** BigInt(decimals) + BigInt(i) };
});

/** One JSON-RPC call: method and params. */
type Call = readonly [method: string, params: readonly unknown[]];
/** What a path read: the block height, the addresses ours lists, and every non-zero value it saw. */
interface Read { readonly block: number; readonly listed: readonly string[]; readonly nonZero: readonly string[] }
type World = Awaited<ReturnType<typeof startWorld>>;

const erc20 = new Interface(['function balanceOf(address owner) view returns (uint256)']);

function fail(message: string): never {
  throw new Error(message);
}

/** Devnet with SPECS deployed, the proxy, and the wallet's first gap_limit + 1 External addresses. */
async function startWorld(stoppers: (() => Promise<unknown>)[]) {
  const devnet = await startTestDevnet({ tokens: SPECS });
  stoppers.push(() => devnet.stop());
  const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: config.latencyMs });
  stoppers.push(() => proxy.stop());
  const keys = createHdKeyProvider(MNEMONIC);
  const addresses = await Promise.all(
    Array.from({ length: GAP_LIMIT + 1 }, async (_, addressId) => evmAddress(await keys.publicKey({ coin: 'ETH', derivation_path: ETH_PATH }, { accountId: 0, chain: 'External', addressId }))),
  );
  return { devnet, proxy, addresses };
}

/** The scan's calls for one address, in the reference's order: nonce, balance, each token's balanceOf. */
function addressCalls(address: string, contracts: readonly string[]): Call[] {
  const data = erc20.encodeFunctionData('balanceOf', [address]);
  return [['eth_getTransactionCount', [address, 'latest']], ['eth_getBalance', [address, 'latest']], ...contracts.map((to): Call => ['eth_call', [{ to, data }, 'latest']])];
}

const request = ([method, params]: Call, id: number) => ({ jsonrpc: '2.0', id, method, params });

/** POSTs a JSON-RPC body with plain `fetch`; the parsed answer. */
async function post(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) fail(`node answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** An answer's hex quantity or 32-byte word as a bigint; throws on a JSON-RPC error. */
function valueOf(answer: any, [method]: Call): bigint {
  if (answer?.error !== undefined || typeof answer?.result !== 'string') fail(`${method} answered ${JSON.stringify(answer).slice(0, 300)}`);
  return getBigInt(answer.result);
}

/** One call, one HTTP request. */
async function single(url: string, call: Call): Promise<bigint> {
  return valueOf(await post(url, request(call, 1)), call);
}

/** The calls as batches of `batchSize`, all posted at once (as the service does); values in call order. */
async function batched(url: string, calls: readonly Call[], batchSize: number): Promise<bigint[]> {
  const chunks = Array.from({ length: Math.ceil(calls.length / batchSize) }, (_, i) => calls.slice(i * batchSize, (i + 1) * batchSize));
  const answers = await Promise.all(chunks.map(async (chunk, c) => {
    const list = await post(url, chunk.map((call, i) => request(call, c * batchSize + i)));
    if (!Array.isArray(list) || list.length !== chunk.length) fail(`a ${chunk.length}-call batch was answered with ${JSON.stringify(list).slice(0, 300)}`);
    return list;
  }));
  const byId = new Map(answers.flat().map((a: any) => [a?.id, a]));
  return calls.map((call, i) => valueOf(byId.get(i), call));
}

/**
 * Ours: a new service (empty event log, so the wallet is new to it) in HD mode with the proxy as
 * its only node, one real `enable_eth_with_tokens`, then the service is stopped (not timed).
 */
async function measureOurs({ devnet, proxy }: World, n: number): Promise<{ sample: Sample; read: Read; serviceStartMs: number }> {
  const tickers = devnet.tokens.slice(0, n).map((t) => `${t.symbol}-ERC20`);
  const t = performance.now();
  const stack = await startStack({
    devnet,
    clock: systemClock,
    config: { enable_hd: true, passphrase: MNEMONIC },
    ...(config.batchSizeSource === 'BENCH_BATCH_SIZE' ? { evm: { batchSize: config.batchSize } } : {}),
  });
  const serviceStartMs = performance.now() - t;
  try {
    proxy.reset();
    const started = performance.now();
    const { status, body } = await stack.v2('enable_eth_with_tokens', enableEthParams(stack, tickers, { nodes: [{ url: proxy.url }] }));
    const sample = { wallMs: performance.now() - started, ...proxy.stats() };
    const result = body?.result;
    if (status !== 200 || result === undefined) fail(`enable_eth_with_tokens answered HTTP ${status}: ${JSON.stringify(body).slice(0, 500)}`);
    if (!hdActivationResult.check(result)) fail(`not an HD result: ${JSON.stringify(hdActivationResult.firstProblem(result))}`);
    const decimals = new Map([['ETH', 18], ...devnet.tokens.map((t) => [`${t.symbol}-ERC20`, t.decimals] as const)]);
    const nonZero: string[] = [];
    const listed = result.wallet_balance.accounts.flatMap((account) =>
      account.addresses.map(({ address, balance }) => {
        for (const ticker of ['ETH', ...tickers]) {
          const b = balance?.[ticker];
          if (b === undefined) nonZero.push(`${address} has no ${ticker} balance`);
          else if (parseUnits(b.spendable, decimals.get(ticker)!) !== 0n || parseUnits(b.unspendable, decimals.get(ticker)!) !== 0n) nonZero.push(`${address} ${ticker} ${JSON.stringify(b)}`);
        }
        return address;
      }),
    );
    return { sample, read: { block: result.current_block, listed, nonZero }, serviceStartMs };
  } finally {
    await stack.stop();
    await rm(stack.dir, { recursive: true, force: true });
  }
}

/** The reference's 2 + 21 × (2 + N) calls: block, the enabled address's balance, then the scan. */
function baselineCalls({ devnet, addresses }: World, n: number): Call[] {
  const contracts = devnet.tokens.slice(0, n).map((t) => t.address);
  return [['eth_blockNumber', []], ['eth_getBalance', [addresses[0]!, 'latest']], ...addresses.flatMap((a) => addressCalls(a, contracts))];
}

/** Baseline: the reference's calls through the proxy, each awaited before the next is sent. */
async function measureBaseline(world: World, n: number): Promise<{ sample: Sample; read: Read }> {
  const calls = baselineCalls(world, n);
  const { proxy } = world;
  proxy.reset();
  const started = performance.now();
  const values: bigint[] = [];
  for (const call of calls) values.push(await single(proxy.url, call));
  const sample = { wallMs: performance.now() - started, ...proxy.stats() };
  const nonZero = calls.flatMap((call, i) => (i > 0 && values[i] !== 0n ? [`${call[0]} ${JSON.stringify(call[1])} = ${values[i]}`] : []));
  return { sample, read: { block: Number(values[0]), listed: [world.addresses[0]!], nonZero } };
}

/** Diagnostic: the devnet answering ours' calls (same batches, sent at once) straight to it, no proxy. */
async function measureNodeAlone(world: World, n: number): Promise<number> {
  const contracts = world.devnet.tokens.slice(0, n).map((t) => t.address);
  const calls: Call[] = [['eth_blockNumber', []], ...world.addresses.slice(0, GAP_LIMIT).flatMap((a) => addressCalls(a, contracts))];
  const started = performance.now();
  await batched(world.devnet.url, calls, config.batchSize);
  return performance.now() - started;
}

/** One run of each path (ours first); throws unless both read the same block, address and zero balances. */
async function pair(world: World, n: number, label: string) {
  const ours = await measureOurs(world, n);
  const baseline = await measureBaseline(world, n);
  const problems = ours.read.block === baseline.read.block ? [] : [`block: ours ${ours.read.block}, baseline ${baseline.read.block}`];
  if (ours.read.listed.join() !== baseline.read.listed.join()) problems.push(`ours lists ${ours.read.listed.join(', ')}; expected only ${world.addresses[0]} (nothing used)`);
  problems.push(...ours.read.nonZero.map((x) => `ours: ${x}`), ...baseline.read.nonZero.map((x) => `baseline: ${x}`));
  if (problems.length > 0) fail(`${label}: paths disagree:\n  ${problems.slice(0, 10).join('\n  ')}`);
  return { ours: ours.sample, baseline: baseline.sample, serviceStartMs: ours.serviceStartMs };
}

/** Round trips the proxy saw: requests in waves of at most `maxInFlight` (exact when each wave is sent at once). */
const roundTrips = (s: Sample) => Math.ceil(s.httpRequests / Math.max(1, s.maxInFlight));

/** Per N: summaries, target, speed-up, and a note for every run whose traffic is not as designed. */
function analyze({ n, ours, baseline, nodeAloneMs, serviceStartMs }: { n: number; ours: Sample[]; baseline: Sample[]; nodeAloneMs: number[]; serviceStartMs: number[] }, notes: string[]) {
  const calls = 1 + GAP_LIMIT * (2 + n);
  const requests = Math.ceil(calls / config.batchSize);
  const methods: Record<string, number> = { eth_blockNumber: 1, eth_getTransactionCount: GAP_LIMIT, eth_getBalance: GAP_LIMIT, ...(n > 0 ? { eth_call: GAP_LIMIT * n } : {}) };
  const baselineRequests = 2 + (GAP_LIMIT + 1) * (2 + n);
  ours.forEach((s, i) => {
    if (s.httpRequests !== requests || s.rpcCalls !== calls || s.maxInFlight !== s.httpRequests) notes.push(`N=${n} ours run ${i + 1}: ${s.httpRequests} requests, ${s.rpcCalls} calls, ${s.maxInFlight} in flight; expected ${requests}, ${calls}, all`);
    if (JSON.stringify(Object.entries(s.byMethod).sort()) !== JSON.stringify(Object.entries(methods).sort())) notes.push(`N=${n} ours run ${i + 1}: calls by method ${JSON.stringify(s.byMethod)}, expected ${JSON.stringify(methods)}`);
  });
  baseline.forEach((s, i) => (s.httpRequests !== baselineRequests || s.rpcCalls !== baselineRequests || s.maxInFlight !== 1) && notes.push(`N=${n} baseline run ${i + 1}: ${s.httpRequests} requests, ${s.rpcCalls} calls, ${s.maxInFlight} in flight; expected ${baselineRequests} one at a time`));
  const of = (list: readonly Sample[], f: (s: Sample) => number) => summarize(list.map(f));
  const o = { wallMs: of(ours, (s) => s.wallMs), httpRequests: of(ours, (s) => s.httpRequests), rpcCalls: of(ours, (s) => s.rpcCalls), maxInFlight: of(ours, (s) => s.maxInFlight), roundTrips: of(ours, roundTrips) };
  const b = { wallMs: of(baseline, (s) => s.wallMs), httpRequests: of(baseline, (s) => s.httpRequests) };
  const roundTripsOk = o.roundTrips.max <= TARGET_ROUND_TRIPS;
  const limitMs = limitFor(o.roundTrips.max, summarize(nodeAloneMs).median);
  const wallOk = o.wallMs.median < limitMs;
  return {
    n,
    expected: { calls, requests, baselineRequests },
    ours: o,
    baseline: b,
    speedup: b.wallMs.median / o.wallMs.median,
    nodeAloneMs: summarize(nodeAloneMs),
    serviceStartMs: summarize(serviceStartMs),
    target: { roundTripsOk, wallOk, limitMs, met: roundTripsOk && wallOk },
  };
}

const stoppers: (() => Promise<unknown>)[] = [];
try {
  const startedAt = new Date();
  const t0 = performance.now();
  process.stdout.write(`Starting devnet with ${SPECS.length} tokens and proxy; a new HD service per run…\n`);
  const world = await startWorld(stoppers);
  const warmup = await pair(world, Math.max(...TOKEN_COUNTS), 'warm-up'); // discarded: first connections, lazy imports, JIT
  const samples = [];
  for (const n of TOKEN_COUNTS) {
    const row = { n, ours: [] as Sample[], baseline: [] as Sample[], nodeAloneMs: [] as number[], serviceStartMs: [] as number[] };
    for (let run = 1; run <= config.runs; run++) {
      const p = await pair(world, n, `N=${n} run ${run}`);
      row.ours.push(p.ours);
      row.baseline.push(p.baseline);
      row.serviceStartMs.push(p.serviceStartMs);
      row.nodeAloneMs.push(await measureNodeAlone(world, n));
    }
    samples.push(row);
    process.stdout.write(`  N=${n}: ${config.runs} runs done\n`);
  }
  const notes: string[] = [];
  const rows = samples.map((s) => analyze(s, notes));
  const met = rows.every((r) => r.target.met);
  const totalMs = performance.now() - t0;
  const table = renderTable(
    ['tokens N', 'ours requests', 'ours calls', 'ours round trips', 'ours ms (median [min–max])', 'baseline requests', 'baseline ms (median [min–max])', 'speed-up ×', 'devnet alone ms'],
    rows.map((r) => [String(r.n), count(r.ours.httpRequests), count(r.ours.rpcCalls), count(r.ours.roundTrips), wall(r.ours.wallMs), count(r.baseline.httpRequests), wall(r.baseline.wallMs), `${r.speedup.toFixed(1)}×`, r.nodeAloneMs.median.toFixed(1)]),
  );
  const lines = [
    `\nFresh HD wallet, enable_eth_with_tokens at gap_limit ${GAP_LIMIT} vs the reference's sequential calls — latency ${config.latencyMs} ms/round trip, batch size ${config.batchSize} (${config.batchSizeSource}), ${config.runs} runs per cell\n`,
    ...table,
    `\nTarget per N: at most ${TARGET_ROUND_TRIPS} node round trips (every run) and median wall < round trips × ${config.latencyMs} + devnet alone + ${TARGET_SLACK_MS} ms:`,
    ...rows.map((r) => `  N=${r.n}: ${r.ours.roundTrips.max} round trip(s) → ${r.target.roundTripsOk ? 'ok' : 'MISSED'}; ${r.ours.wallMs.median.toFixed(1)} ms < ${r.target.limitMs.toFixed(1)} ms → ${r.target.wallOk ? 'ok' : 'MISSED'}`),
    `  ${met ? 'met' : '*** MISSED ***'}`,
    'Diagnostic, medians: ours beyond one latency = the devnet alone + the rest (service incl. key derivation, proxy hop, HTTP)',
    ...rows.map((r) => {
      const beyond = r.ours.wallMs.median - config.latencyMs;
      return `  N=${r.n}: ${beyond.toFixed(1)} = ${r.nodeAloneMs.median.toFixed(1)} + ${(beyond - r.nodeAloneMs.median).toFixed(1)} ms`;
    }),
    `Ours per N: 1 + ${GAP_LIMIT} × (2 + N) calls in ceil(calls / ${config.batchSize}) requests sent at once; baseline 2 + ${GAP_LIMIT + 1} × (2 + N) requests one at a time. The devnet alone (last column) answers ours' batches sent straight to it, no proxy.`,
    `A new service per run: started in ${summarize(samples.flatMap((s) => s.serviceStartMs)).median.toFixed(0)} ms (median, not timed).`,
    notes.length === 0 ? 'Traffic as designed in every run.' : 'Surprises:',
    ...notes.map((x) => `  - ${x}`),
    `Total bench time ${(totalMs / 1000).toFixed(1)} s`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const report = {
    startedAt: startedAt.toISOString(),
    environment: { ...environment(), latencyMs: config.latencyMs, batchSize: config.batchSize, batchSizeSource: config.batchSizeSource, runs: config.runs },
    gapLimit: GAP_LIMIT,
    totalMs,
    target: { roundTrips: TARGET_ROUND_TRIPS, slackMs: TARGET_SLACK_MS, met },
    rows,
    notes,
    samples,
    warmup,
  };
  const paths = await saveResults(report, startedAt, { name: 'hd-scan', latest: 'latest-hd.json' });
  process.stdout.write(`Saved ${paths.map((p) => relative(process.cwd(), p)).join(' and ')}\n`);
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  for (const stop of stoppers.reverse()) await stop().catch(() => {});
}
