/**
 * What each balance read costs the node: ETH + N token balances of one wallet (N = 50, 100, 500)
 * read through Multicall3's `aggregate3` (chunks of 100, as the service sends them) and through the
 * deployless call (chunks of 150), on one in-process devnet chain that has both.
 *
 * - gas: each chunk sent once as a real transaction (the same execution as its `eth_call`; a
 *   deployless chunk's transaction creates a contract whose code is the answer), `gasUsed` summed.
 *   `eth_estimateGas` cannot be used: the deployless constructor stops early when gas runs short,
 *   so a binary search finds a gas that answers fewer reads.
 * - node CPU: the process's CPU time (the chain runs in this process) for all chunks of one read as
 *   `eth_call`s, the two paths interleaved, BENCH_RUNS × 10 times (default 50); median and p90.
 * - the two answers must hold the same values, checked against plain `eth_call`s.
 *
 * Prints a table, saves JSON under bench/results/ (latest-read-cost.json).
 */
import './silence.ts';
import { relative } from 'node:path';
import { Interface } from 'ethers';
import { startEvmDevnet } from '../devnet/index.ts';
import { aggregate3Call, chunked, decodeAggregate3, getEthBalanceCall, MULTICALL_CHUNK_SIZE } from '../infra/multicall/aggregate3.ts';
import { DEPLOYLESS_CHUNK_READS, accountReads, deploylessChunks } from '../infra/evm/multicall/deployless.ts';
import { integerFrom } from './benchConfig.ts';
import { environment, saveResults } from './results.ts';
import { percentile } from './stats.ts';
import { renderTable } from './table.ts';

const COUNTS = [50, 100, 500] as const;
const OWNER = '0x00000000000000000000000000000000000a11ce';
const runs = (integerFrom(process.env, 'BENCH_RUNS', 1) ?? 5) * 10;
const erc20 = new Interface(['function balanceOf(address) view returns (uint256)']);

type Tx = { readonly to?: string; readonly data: string };
interface PathCost { calls: number; calldataBytes: number; gas: bigint; cpuMs: number[] }

const devnet = await startEvmDevnet({
  fund: [{ address: OWNER, wei: 10n ** 18n + 1n }],
  tokens: Array.from({ length: Math.max(...COUNTS) }, (_, i) => ({ symbol: `RC${i}`, decimals: 6, mint: [{ address: OWNER, amount: BigInt(i + 1) * 1_000_003n }] })),
});
const multicall = devnet.multicall!;

/** The chunks of each path for ETH + n tokens. */
function transactions(n: number): Record<'aggregate3' | 'deployless', Tx[]> {
  const tokens = devnet.tokens.slice(0, n).map((t) => t.address);
  const balanceOf = erc20.encodeFunctionData('balanceOf', [OWNER]);
  const items = [{ target: multicall, callData: getEthBalanceCall(OWNER) }, ...tokens.map((target) => ({ target, callData: balanceOf }))];
  return {
    aggregate3: chunked(items, MULTICALL_CHUNK_SIZE).map((chunk) => ({ to: multicall, data: aggregate3Call(chunk) })),
    deployless: deploylessChunks(accountReads([OWNER], tokens)).map(({ data }) => ({ data })),
  };
}

/** The values of one path's answers (32-byte words), in read order. */
async function values(txs: readonly Tx[]): Promise<string[]> {
  const words: string[] = [];
  for (const tx of txs) {
    const outcomes = decodeAggregate3(await devnet.request('eth_call', [tx, 'latest']), 1_000, true);
    if (outcomes === undefined || outcomes.some((o) => !o.success)) throw new Error(`a chunk was not answered: ${JSON.stringify(outcomes)?.slice(0, 200)}`);
    words.push(...outcomes.map((o) => o.returnData));
  }
  return words;
}

async function gasOf(txs: readonly Tx[]): Promise<bigint> {
  let gas = 0n;
  for (const tx of txs) {
    const hash = await devnet.request('eth_sendTransaction', [{ from: devnet.deployer, ...tx, gas: '0xf42400' }]);
    const receipt = (await devnet.request('eth_getTransactionReceipt', [hash])) as { status: string; gasUsed: string };
    if (receipt.status !== '0x1') throw new Error('a chunk failed as a transaction');
    gas += BigInt(receipt.gasUsed);
  }
  return gas;
}

const rows: { n: number; paths: Record<string, PathCost> }[] = [];
try {
  for (const n of COUNTS) {
    const txs = transactions(n);
    const expected = [
      `0x${BigInt((await devnet.request('eth_getBalance', [OWNER, 'latest'])) as string).toString(16).padStart(64, '0')}`,
      ...(await Promise.all(devnet.tokens.slice(0, n).map((t) => devnet.request('eth_call', [{ to: t.address, data: erc20.encodeFunctionData('balanceOf', [OWNER]) }, 'latest']) as Promise<string>))),
    ];
    const paths: Record<string, PathCost> = {};
    for (const [name, list] of Object.entries(txs)) {
      const got = await values(list);
      if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`${name} read other values than plain calls at N=${n}`);
      paths[name] = { calls: list.length, calldataBytes: list.reduce((sum, tx) => sum + (tx.data.length - 2) / 2, 0), gas: 0n, cpuMs: [] };
    }
    for (let run = 0; run < runs; run++) {
      for (const [name, list] of Object.entries(txs)) {
        const before = process.cpuUsage();
        for (const tx of list) await devnet.request('eth_call', [tx, 'latest']);
        const used = process.cpuUsage(before);
        paths[name]!.cpuMs.push((used.user + used.system) / 1000);
      }
    }
    for (const [name, list] of Object.entries(txs)) paths[name]!.gas = await gasOf(list);
    rows.push({ n, paths });
    process.stdout.write(`  N=${n}: done\n`);
  }
} finally {
  await devnet.stop();
}

const median = (list: number[]) => percentile([...list].sort((a, b) => a - b), 50);
const p90 = (list: number[]) => percentile([...list].sort((a, b) => a - b), 90);
const cells = rows.flatMap(({ n, paths }) =>
  Object.entries(paths).map(([name, p]) => [
    String(n),
    name,
    String(p.calls),
    String(p.calldataBytes),
    p.gas.toLocaleString('en-US'),
    `${median(p.cpuMs).toFixed(2)} / ${p90(p.cpuMs).toFixed(2)}`,
  ]),
);
const ratios = rows.map(({ n, paths }) => [
  String(n),
  `${(Number(paths.deployless!.gas) / Number(paths.aggregate3!.gas)).toFixed(2)}×`,
  `${(median(paths.deployless!.cpuMs) / median(paths.aggregate3!.cpuMs)).toFixed(2)}×`,
]);
process.stdout.write(
  [
    `\nNode cost of reading ETH + N token balances: aggregate3 (chunks of ${MULTICALL_CHUNK_SIZE}) vs deployless (chunks of ${DEPLOYLESS_CHUNK_READS}), in-process devnet, ${runs} interleaved runs`,
    '',
    ...renderTable(['tokens N', 'read', 'eth_calls', 'calldata bytes', 'gas', 'node CPU ms (median / p90)'], cells),
    '',
    'Deployless / aggregate3, medians:',
    ...renderTable(['tokens N', 'gas', 'node CPU'], ratios),
    '',
  ].join('\n'),
);
const saved = await saveResults(
  { startedAt: new Date().toISOString(), environment: environment(), runs, rows: rows.map((r) => ({ n: r.n, paths: Object.fromEntries(Object.entries(r.paths).map(([k, p]) => [k, { ...p, gas: p.gas.toString() }])) })) },
  new Date(),
  { name: 'read-cost', latest: 'latest-read-cost.json' },
);
process.stdout.write(`Saved ${saved.map((p) => relative(process.cwd(), p)).join(' and ')}\n`);
process.exit(0);
