/**
 * HD leg of `npm run bench`: node calls, HTTP requests and wall time of a fresh HD wallet's
 * `enable_eth_with_tokens` (gap_limit 20, the default) with N ERC20s on four paths, all through
 * latency-injecting, counting proxies in front of one devnet:
 *
 * - multicall: the chain has Multicall3 and the node is new to the service (a new service per
 *   run), so its reads are deployless: one JSON-RPC batch of eth_blockNumber, 20
 *   eth_getTransactionCount and one `eth_call` without `to` per 150 reads, the reads being the probe
 *   of the node's Multicall3 and 20 × (1 + N) balances: 21 + ceil((1 + 20 × (1 + N)) / 150) calls.
 * - deployless: a chain without Multicall3 (the service's ETH `multicall_address` has no code),
 *   the node new to the service, no primer: the same calls, whose probe finds nothing.
 * - plain: a node that refuses `eth_call` without `to` (a limited node in front of the same chain,
 *   behind its own proxy): 1 + 20 × (2 + N) calls (per address nonce, balance and N balanceOf) in
 *   ceil(calls / batch size) requests. Before the measured activation its service activates a
 *   second platform entry (PLAIN_PRIMER, same chain, same node URL, same multicall address) once,
 *   untimed: so the service already knows the node refuses calls without `to`, as in a session,
 *   and the ETH wallet is still new to it.
 * - baseline: the reference's 2 + 21 × (2 + N) sequential requests: eth_blockNumber, the enabled
 *   address's eth_getBalance, then gap_limit + 1 = 21 addresses checked one by one.
 *
 * "Fresh" is real: every measured run starts a new service with an empty event log (new dbdir),
 * so the default `scan_if_new_wallet` scans. The mnemonic has never been used on the devnet (no
 * funds, tokens or transactions), so the scan stops after the first window. Every path must read
 * the same block, list the same address and see only zero balances.
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
import { startLatencyProxy, startLimitedNode, type LatencyProxy } from '../devnet/index.ts';
import { createHdKeyProvider, evmAddress } from '../infra/keys/index.ts';
import { devnetCoins, enableEthParams, startStack, startTestDevnet, type TestToken } from '../devnet/testing/stack.ts';
import { hdActivationResult } from '../spec/activationResult.ts';
import { readBenchConfig } from './benchConfig.ts';
import { NO_CODE_ADDRESS } from './fixture.ts';
import { DEPLOYLESS_CHUNK_READS, accountReads, deploylessChunks } from '../infra/evm/multicall/deployless.ts';
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
/** The limits for a fresh wallet at gap 20 with TARGET_N tokens, on the multicall and deployless paths. */
const TARGET_ROUND_TRIPS = 1;
const TARGET_CALLS = 25;
const TARGET_N = 10;
/** The paths the target is checked on: both read deployless on a node new to the service. */
const TARGET_MODES = ['multicall', 'deployless'] as const;
/** The plain path's second platform entry, activated once to teach the service the node refuses calls without `to`. */
const PLAIN_PRIMER = 'ETHPLAIN';
/** The primer's derivation path: not ETH_PATH, so no key the measured scan needs is derived by it. */
const PRIMER_PATH = "m/44'/61'";
/**
 * Wall-time target: the round trips made, plus what the in-process devnet itself needs for those
 * calls (measured in the same run: it shares the 2 cores with the service), plus this much for the
 * service: deriving the keys of a never-seen account (~10-15 ms of hardened steps on a new
 * service), the durable event write the answer waits for, encoding, the proxy hop and HTTP.
 */
const TARGET_SLACK_MS = 50;
const MODES = ['multicall', 'deployless', 'plain'] as const;
type Mode = (typeof MODES)[number];
const MODE_LABELS: Readonly<Record<Mode, string>> = {
  multicall: 'Multicall3 chain, new service: deployless',
  deployless: 'no Multicall3, new service: deployless',
  plain: 'node refuses no-to calls (known): plain',
};
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

/**
 * Devnet with SPECS deployed, the proxy in front of it, a node refusing calls without `to` (the same
 * chain) with its own proxy, and the wallet's first gap_limit + 1 External addresses.
 */
async function startWorld(stoppers: (() => Promise<unknown>)[]) {
  const devnet = await startTestDevnet({ tokens: SPECS });
  stoppers.push(() => devnet.stop());
  if (devnet.multicall === undefined) fail('the bench devnet has no Multicall3');
  const code = await post(devnet.url, request(['eth_getCode', [NO_CODE_ADDRESS, 'latest']], 1));
  if (code?.result !== '0x') fail(`${NO_CODE_ADDRESS} has code on the devnet; the chain without Multicall3 needs an empty address`);
  const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: config.latencyMs });
  stoppers.push(() => proxy.stop());
  const limitedNode = await startLimitedNode(devnet.request, { refuseCallsWithoutTo: true });
  stoppers.push(() => limitedNode.stop());
  const limitedProxy = await startLatencyProxy({ target: limitedNode.url, latencyMs: config.latencyMs });
  stoppers.push(() => limitedProxy.stop());
  const keys = createHdKeyProvider(MNEMONIC);
  const addresses = await Promise.all(
    Array.from({ length: GAP_LIMIT + 1 }, async (_, addressId) => evmAddress(await keys.publicKey({ coin: 'ETH', derivation_path: ETH_PATH }, { accountId: 0, chain: 'External', addressId }))),
  );
  return { devnet, proxy, limitedProxy, addresses };
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
 * The coins file of each mode: the devnet's own (Multicall3 at the canonical address) for
 * `multicall`; ETH's `multicall_address` without code for `deployless`; for `plain` the devnet's own
 * plus PLAIN_PRIMER, a copy of ETH (same chain and multicall address, so what the primer learns of
 * the node holds for ETH).
 */
function coinsFor(devnet: World['devnet'], mode: Mode): unknown[] | undefined {
  if (mode === 'multicall') return undefined;
  const coins = devnetCoins(devnet) as { coin: string }[];
  const eth = coins.find((c) => c.coin === 'ETH')!;
  if (mode === 'deployless') return coins.map((c) => (c.coin === 'ETH' ? { ...eth, multicall_address: NO_CODE_ADDRESS } : c));
  // The primer derives under another coin type, so the measured scan still derives every key anew,
  // as the other runs do; only the node's refusal of calls without `to` is known beforehand.
  return [...coins, { ...eth, coin: PLAIN_PRIMER, derivation_path: PRIMER_PATH }];
}

/** The proxy a mode's service reads through: the limited node's for `plain`, else the devnet's. */
const proxyFor = (world: World, mode: Mode): LatencyProxy => (mode === 'plain' ? world.limitedProxy : world.proxy);

/**
 * Ours: a new service (empty event log, so the wallet and the node are new to it) in HD mode with
 * the mode's proxy as its only node, one real `enable_eth_with_tokens`, then the service is stopped
 * (not timed). In `plain` mode the service first learns, untimed, that the node refuses calls
 * without `to` (see the header).
 */
async function measureOurs(world: World, n: number, mode: Mode): Promise<{ sample: Sample; read: Read; serviceStartMs: number }> {
  const { devnet } = world;
  const proxy = proxyFor(world, mode);
  const tickers = devnet.tokens.slice(0, n).map((t) => `${t.symbol}-ERC20`);
  const coins = coinsFor(devnet, mode);
  const t = performance.now();
  const stack = await startStack({
    devnet,
    clock: systemClock,
    ...(coins ? { coins } : {}),
    config: { enable_hd: true, passphrase: MNEMONIC },
    ...(config.batchSizeSource === 'BENCH_BATCH_SIZE' ? { evm: { batchSize: config.batchSize } } : {}),
  });
  const serviceStartMs = performance.now() - t;
  try {
    if (mode === 'plain') {
      const primed = await stack.v2('enable_eth_with_tokens', enableEthParams(stack, [], { ticker: PLAIN_PRIMER, nodes: [{ url: proxy.url }] }));
      if (primed.status !== 200 || primed.body?.result === undefined) fail(`${PLAIN_PRIMER} answered HTTP ${primed.status}: ${JSON.stringify(primed.body).slice(0, 300)}`);
    }
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

/**
 * Diagnostic: the devnet answering a mode's calls (same batches, sent at once) straight to it, no
 * proxy: for `plain` its plain calls; for `multicall` and `deployless` eth_blockNumber, the 20
 * nonces and the deployless call(s) of a first contact (the probe of the entry's multicall address).
 */
async function measureNodeAlone(world: World, n: number, mode: Mode): Promise<number> {
  const contracts = world.devnet.tokens.slice(0, n).map((t) => t.address);
  const window = world.addresses.slice(0, GAP_LIMIT);
  let calls: Call[];
  if (mode === 'plain') calls = [['eth_blockNumber', []], ...window.flatMap((a) => addressCalls(a, contracts))];
  else {
    const probe = mode === 'multicall' ? world.devnet.multicall! : NO_CODE_ADDRESS;
    const chunks = deploylessChunks(accountReads(window, contracts), probe).map(({ data }): Call => ['eth_call', [{ data }, 'latest']]);
    calls = [['eth_blockNumber', []], ...window.map((a): Call => ['eth_getTransactionCount', [a, 'latest']]), ...chunks];
  }
  const started = performance.now();
  await batched(world.devnet.url, calls, config.batchSize);
  return performance.now() - started;
}

/** One run of each path (the three modes, then baseline); throws unless all read the same block, address and zero balances. */
async function runAll(world: World, n: number, label: string) {
  const ours = {} as Record<Mode, Awaited<ReturnType<typeof measureOurs>>>;
  for (const mode of MODES) ours[mode] = await measureOurs(world, n, mode);
  const baseline = await measureBaseline(world, n);
  const problems: string[] = [];
  for (const mode of MODES) {
    const { read } = ours[mode];
    if (read.block !== baseline.read.block) problems.push(`block: ${mode} ${read.block}, baseline ${baseline.read.block}`);
    if (read.listed.join() !== baseline.read.listed.join()) problems.push(`${mode} lists ${read.listed.join(', ')}; expected only ${world.addresses[0]} (nothing used)`);
    problems.push(...read.nonZero.map((x) => `${mode}: ${x}`));
  }
  problems.push(...baseline.read.nonZero.map((x) => `baseline: ${x}`));
  if (problems.length > 0) fail(`${label}: paths disagree:\n  ${problems.slice(0, 10).join('\n  ')}`);
  return {
    samples: Object.fromEntries(MODES.map((m) => [m, ours[m].sample])) as Record<Mode, Sample>,
    baseline: baseline.sample,
    serviceStartMs: MODES.map((m) => ours[m].serviceStartMs),
  };
}

/** Round trips the proxy saw: requests in waves of at most `maxInFlight` (exact when each wave is sent at once). */
const roundTrips = (s: Sample) => Math.ceil(s.httpRequests / Math.max(1, s.maxInFlight));

/** Calls by method the design predicts for one path at N tokens, and how many of its eth_calls are without `to`. */
function expectedMix(mode: Mode, n: number): { mix: Record<string, number>; withoutTo: number } {
  const common = { eth_blockNumber: 1, eth_getTransactionCount: GAP_LIMIT };
  if (mode === 'plain') return { mix: { ...common, eth_getBalance: GAP_LIMIT, ...(n > 0 ? { eth_call: GAP_LIMIT * n } : {}) }, withoutTo: 0 };
  // Deployless on a node new to the service: the probe, then per address its balance and N balanceOf.
  const deployless = Math.ceil((1 + GAP_LIMIT * (1 + n)) / DEPLOYLESS_CHUNK_READS);
  return { mix: { ...common, eth_call: deployless }, withoutTo: deployless };
}

interface RawRow {
  n: number;
  samples: Record<Mode, Sample[]>;
  baseline: Sample[];
  nodeAloneMs: Record<Mode, number[]>;
  serviceStartMs: number[];
}

/** Per N: summaries, target, ratios, and a note for every run whose traffic is not as designed. */
function analyze({ n, samples, baseline, nodeAloneMs, serviceStartMs }: RawRow, notes: string[]) {
  const baselineRequests = 2 + (GAP_LIMIT + 1) * (2 + n);
  const expected = Object.fromEntries(MODES.map((mode) => {
    const { mix, withoutTo } = expectedMix(mode, n);
    const calls = Object.values(mix).reduce((x, y) => x + y, 0);
    return [mode, { calls, requests: Math.ceil(calls / config.batchSize), mix, withoutTo }];
  })) as Record<Mode, { calls: number; requests: number; mix: Record<string, number>; withoutTo: number }>;
  for (const mode of MODES) {
    const e = expected[mode];
    samples[mode].forEach((s, i) => {
      const at = `N=${n} ${mode} run ${i + 1}`;
      if (s.httpRequests !== e.requests || s.rpcCalls !== e.calls || s.maxInFlight !== s.httpRequests) notes.push(`${at}: ${s.httpRequests} requests, ${s.rpcCalls} calls, ${s.maxInFlight} in flight; expected ${e.requests}, ${e.calls}, all`);
      if (JSON.stringify(Object.entries(s.byMethod).sort()) !== JSON.stringify(Object.entries(e.mix).sort())) notes.push(`${at}: calls by method ${JSON.stringify(s.byMethod)}, expected ${JSON.stringify(e.mix)}`);
      if (s.callsWithoutTo !== e.withoutTo) notes.push(`${at}: ${s.callsWithoutTo} eth_call without to, expected ${e.withoutTo}`);
    });
  }
  baseline.forEach((s, i) => (s.httpRequests !== baselineRequests || s.rpcCalls !== baselineRequests || s.maxInFlight !== 1 || s.callsWithoutTo !== 0) && notes.push(`N=${n} baseline run ${i + 1}: ${s.httpRequests} requests, ${s.rpcCalls} calls (${s.callsWithoutTo} without to), ${s.maxInFlight} in flight; expected ${baselineRequests} one at a time`));
  const of = (list: readonly Sample[], f: (s: Sample) => number) => summarize(list.map(f));
  const path = (list: readonly Sample[]) => ({
    wallMs: of(list, (s) => s.wallMs),
    httpRequests: of(list, (s) => s.httpRequests),
    rpcCalls: of(list, (s) => s.rpcCalls),
    callsWithoutTo: of(list, (s) => s.callsWithoutTo),
    maxInFlight: of(list, (s) => s.maxInFlight),
    roundTrips: of(list, roundTrips),
  });
  const paths = { ...(Object.fromEntries(MODES.map((m) => [m, path(samples[m])])) as Record<Mode, ReturnType<typeof path>>), baseline: path(baseline) };
  const nodeAlone = Object.fromEntries(MODES.map((m) => [m, summarize(nodeAloneMs[m])])) as Record<Mode, ReturnType<typeof summarize>>;
  const target = Object.fromEntries(TARGET_MODES.map((m) => {
    const o = paths[m];
    const roundTripsOk = o.roundTrips.max <= TARGET_ROUND_TRIPS;
    const callsOk = n !== TARGET_N || o.rpcCalls.max <= TARGET_CALLS;
    const wallLimitMs = limitFor(o.roundTrips.max, nodeAlone[m].median);
    return [m, { roundTripsOk, callsOk, met: roundTripsOk && callsOk, wallLimitMs, wallOk: o.wallMs.median < wallLimitMs }];
  })) as Record<(typeof TARGET_MODES)[number], { roundTripsOk: boolean; callsOk: boolean; met: boolean; wallLimitMs: number; wallOk: boolean }>;
  const p = paths.plain;
  const ratios = Object.fromEntries(TARGET_MODES.map((m) => {
    const o = paths[m];
    return [m, { callsVsPlain: p.rpcCalls.median / o.rpcCalls.median, wallVsPlain: p.wallMs.median / o.wallMs.median, wallVsBaseline: paths.baseline.wallMs.median / o.wallMs.median }];
  })) as Record<(typeof TARGET_MODES)[number], { callsVsPlain: number; wallVsPlain: number; wallVsBaseline: number }>;
  return {
    n,
    expected: { ...expected, baselineRequests },
    paths,
    ratios,
    nodeAloneMs: nodeAlone,
    serviceStartMs: summarize(serviceStartMs),
    target: { ...target, met: TARGET_MODES.every((m) => target[m].met) },
  };
}

const stoppers: (() => Promise<unknown>)[] = [];
try {
  const startedAt = new Date();
  const t0 = performance.now();
  process.stdout.write(`Starting devnet with ${SPECS.length} tokens, a node refusing calls without to, and proxies; a new HD service per run…\n`);
  const world = await startWorld(stoppers);
  const warmup = await runAll(world, Math.max(...TOKEN_COUNTS), 'warm-up'); // discarded: first connections, lazy imports, JIT
  const samples: RawRow[] = [];
  for (const n of TOKEN_COUNTS) {
    const row: RawRow = { n, samples: { multicall: [], deployless: [], plain: [] }, baseline: [], nodeAloneMs: { multicall: [], deployless: [], plain: [] }, serviceStartMs: [] };
    for (let run = 1; run <= config.runs; run++) {
      const r = await runAll(world, n, `N=${n} run ${run}`);
      for (const m of MODES) row.samples[m].push(r.samples[m]);
      row.baseline.push(r.baseline);
      row.serviceStartMs.push(...r.serviceStartMs);
      for (const m of MODES) row.nodeAloneMs[m].push(await measureNodeAlone(world, n, m));
    }
    samples.push(row);
    process.stdout.write(`  N=${n}: ${config.runs} runs done\n`);
  }
  const notes: string[] = [];
  const rows = samples.map((s) => analyze(s, notes));
  const met = rows.every((r) => r.target.met);
  const totalMs = performance.now() - t0;
  const labels = [...MODES.map((m) => [MODE_LABELS[m], m] as const), ['sequential (reference)', 'baseline'] as const];
  const table = renderTable(
    ['tokens N', 'path', 'node calls', 'of them eth_call without to', 'HTTP requests', 'round trips', 'wall ms (median [min–max])'],
    rows.flatMap((r) => labels.map(([label, key]) => {
      const x = r.paths[key];
      return [String(r.n), label, count(x.rpcCalls), count(x.callsWithoutTo), count(x.httpRequests), count(x.roundTrips), wall(x.wallMs)];
    })),
  );
  const target = rows.find((r) => r.n === TARGET_N)!;
  const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  const lines = [
    `\nFresh HD wallet, enable_eth_with_tokens at gap_limit ${GAP_LIMIT}: deployless reads (chain with and without Multicall3) vs plain batched calls vs the reference's sequential calls — latency ${config.latencyMs} ms/round trip, batch size ${config.batchSize} (${config.batchSizeSource}), ${config.runs} runs per cell\n`,
    ...table,
    '\nRatios, medians: plain / path and sequential / path',
    ...renderTable(
      ['tokens N', 'path', 'calls vs plain', 'wall vs plain', 'wall vs sequential'],
      rows.flatMap((r) => TARGET_MODES.map((m) => [String(r.n), MODE_LABELS[m], `${r.ratios[m].callsVsPlain.toFixed(1)}×`, `${r.ratios[m].wallVsPlain.toFixed(2)}×`, `${r.ratios[m].wallVsBaseline.toFixed(1)}×`])),
    ),
    `\nTarget: a fresh wallet at gap ${GAP_LIMIT} with ${TARGET_N} tokens in <= ${TARGET_CALLS} node calls and ${TARGET_ROUND_TRIPS} round trip, on the chain with Multicall3 and on the chain without it (every run; the node is new to each service): ${target.target.met ? 'MET' : '*** MISSED ***'}`,
    ...TARGET_MODES.map((m) => `  ${MODE_LABELS[m]}: calls ${target.paths[m].rpcCalls.max} (worst run) → ${mark(target.target[m].callsOk)}; round trips at every N: ${Math.max(...rows.map((r) => r.paths[m].roundTrips.max))} → ${mark(rows.every((r) => r.target[m].roundTripsOk))}`),
    ...rows.flatMap((r) => TARGET_MODES.map((m) => `  (informational) N=${r.n} ${m}: median wall ${r.paths[m].wallMs.median.toFixed(1)} ms < round trips × ${config.latencyMs} + devnet alone + ${TARGET_SLACK_MS} = ${r.target[m].wallLimitMs.toFixed(1)} ms → ${r.target[m].wallOk ? 'yes' : 'no'}`)),
    'Diagnostic, medians: wall beyond one latency = the devnet alone answering the same calls straight (no proxy) + the rest (service incl. key derivation, proxy hop, HTTP)',
    ...rows.flatMap((r) => MODES.map((m) => {
      const beyond = r.paths[m].wallMs.median - config.latencyMs;
      return `  N=${r.n} ${m}: ${beyond.toFixed(1)} = ${r.nodeAloneMs[m].median.toFixed(1)} + ${(beyond - r.nodeAloneMs[m].median).toFixed(1)} ms`;
    })),
    `Multicall and deployless (first contact): 21 + ceil((1 + ${GAP_LIMIT} × (1 + N)) / ${DEPLOYLESS_CHUNK_READS}) calls, the eth_calls without to; plain: 1 + ${GAP_LIMIT} × (2 + N) calls in ceil(calls / ${config.batchSize}) requests sent at once; sequential: 2 + ${GAP_LIMIT + 1} × (2 + N) requests one at a time.`,
    `A new service per run and path: started in ${summarize(samples.flatMap((s) => s.serviceStartMs)).median.toFixed(0)} ms (median, not timed).`,
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
    target: { roundTrips: TARGET_ROUND_TRIPS, calls: TARGET_CALLS, atN: TARGET_N, paths: TARGET_MODES, slackMs: TARGET_SLACK_MS, met },
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
