/**
 * History leg of `npm run bench` (issue 26): the first sync of an address with 1,000 transactions
 * over Electrum at BENCH_LATENCY_MS (default 50) per round trip, against the reference's model of
 * one request and one second per transaction (its v2 loop's `Timer::sleep(1.)` after each fetched
 * transaction, `mm2src/coins/utxo/utxo_tx_history_v2.rs`) computed for the same history.
 *
 * Regtest litecoind pays the service's address BENCH_HISTORY_TXS (default 1,000) times from its own
 * wallet (a block every 24 transactions, the mempool's chain limit), the devnet Electrum server
 * serves it, and a TCP relay in front of the server adds the latency and counts the messages (round
 * trips: one per batch). Each measured run starts a new service with an empty dbdir (a first sync),
 * activates the coin with `tx_history: true` and times from the activation's answer to the pass's
 * `HistorySynced`; the history is then checked: every transaction, each a receipt of 0.001. Calls
 * are the history's own (each element of a batch counts); round trips are every message the
 * service sent meanwhile (the balance watcher's first read included). Everything
 * (litecoind's datadir, the dbdirs) lives in temp dirs removed at the end.
 *
 * Env: BENCH_LATENCY_MS (50), BENCH_RUNS (default 3 here), BENCH_HISTORY_TXS (1000).
 */
import './silence.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startLitecoind } from '../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer } from '../devnet/electrum/electrumServer.ts';
import { startTcpLatencyRelay } from '../devnet/proxies/tcpLatencyRelay.ts';
import { startStack, startTestDevnet, TEST_PASSPHRASE } from '../devnet/testing/stack.ts';
import { createIguanaKeyProvider } from '../infra/keys/index.ts';
import { integerFrom, readBenchConfig } from './benchConfig.ts';
import { summarize } from './stats.ts';
import { renderTable } from './table.ts';
import { environment, RESULTS_DIR, saveResults } from './results.ts';

const COIN = 'LTCR';
const COINS = [{ coin: COIN, name: 'litecoin', mm2: 1, pubtype: 111, decimals: 8, protocol: { type: 'UTXO' } }];
/** The reference's wait after each fetched transaction (seconds). */
const REFERENCE_SLEEP_S = 1;
const GOAL_WALL_S = 5;
const GOAL_RATIO = 100;
/** Unconfirmed descendants litecoind accepts in one chain (25), less one. */
const PER_BLOCK = 24;

const config = readBenchConfig();
const txCount = integerFrom(process.env, 'BENCH_HISTORY_TXS', 1) ?? 1_000;
const runs = integerFrom(process.env, 'BENCH_RUNS', 1) ?? 3;

const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: COIN });
const address = p2pkhAddress(Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex'));
const stoppers: (() => Promise<unknown>)[] = [];
try {
  const node = await startLitecoind({ initialBlocks: 101 + Math.ceil(txCount / PER_BLOCK) });
  stoppers.push(() => node.stop());
  const madeAt = performance.now();
  for (let i = 0; i < txCount; i++) {
    await node.rpc('sendtoaddress', [address, '0.001']);
    if ((i + 1) % PER_BLOCK === 0) await node.mine(1);
  }
  await node.mine(1);
  const makeS = (performance.now() - madeAt) / 1000;
  const server = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
  stoppers.push(() => server.stop());
  const devnet = await startTestDevnet();
  stoppers.push(() => devnet.stop());

  const measured: { wallMs: number; calls: number; roundTrips: number }[] = [];
  for (let run = 0; run < runs; run++) {
    const relay = await startTcpLatencyRelay(server.tcp!, config.latencyMs);
    const dbdir = await mkdtemp(join(tmpdir(), 'history-bench-'));
    const s = await startStack({ devnet, extraCoins: COINS, dbdir });
    try {
      let synced: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (synced = resolve));
      s.service.log.subscribe((e) => e.type === 'HistorySynced' && synced());
      const answer = await s.legacy('electrum', { coin: COIN, servers: [{ url: relay.address, protocol: 'TCP' }], tx_history: true });
      if (answer.status !== 200) throw new Error(`activation: ${JSON.stringify(answer.body)}`);
      const startedAt = performance.now();
      const messagesBefore = relay.messages();
      await done;
      const wallMs = performance.now() - startedAt;
      const roundTrips = relay.messages() - messagesBefore;
      const result = (await s.v2('my_tx_history', { coin: COIN, limit: txCount + 10 })).body.result;
      if (result.total !== txCount || result.transactions.some((t: { received_by_me: string }) => t.received_by_me !== '0.001')) {
        throw new Error(`history of ${result.total} entries, expected ${txCount} receipts of 0.001`);
      }
      measured.push({ wallMs, calls: s.service.history.requestsOf(COIN) ?? 0, roundTrips });
    } finally {
      await s.stop();
      await relay.stop();
      await rm(dbdir, { recursive: true, force: true });
    }
  }

  const wall = summarize(measured.map((m) => m.wallMs));
  const calls = measured[0]!.calls;
  const roundTrips = summarize(measured.map((m) => m.roundTrips));
  const referenceS = txCount * (REFERENCE_SLEEP_S + config.latencyMs / 1000) + config.latencyMs / 1000;
  const ratio = referenceS / (wall.median / 1000);
  const wallOk = wall.median / 1000 < GOAL_WALL_S;
  const ratioOk = ratio >= GOAL_RATIO;
  const lines = [
    `\nFirst history sync of one address with ${txCount} transactions over Electrum, ${config.latencyMs} ms per round trip, ${runs} runs (median); regtest history made in ${makeS.toFixed(1)} s`,
    ...renderTable(
      ['path', 'wall', 'round trips', 'history calls'],
      [
        ['ours', `${(wall.median / 1000).toFixed(2)} s (${(wall.min / 1000).toFixed(2)}–${(wall.max / 1000).toFixed(2)})`, String(roundTrips.median), String(calls)],
        ['reference model: 1 request + 1 s per tx', `${referenceS.toFixed(0)} s`, String(txCount + 1), String(txCount + 1)],
      ],
    ),
    `goal under ${GOAL_WALL_S} s: ${wallOk ? 'met' : 'MISSED'}; goal ≥ ${GOAL_RATIO}× faster: ${ratio.toFixed(0)}× → ${ratioOk ? 'met' : 'MISSED'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const date = new Date();
  const paths = await saveResults(
    { bench: 'tx-history', date: date.toISOString(), environment: { ...environment(), latencyMs: config.latencyMs, txCount, runs }, makeS, wallMs: wall, roundTrips, calls, referenceS, ratio, goals: { wallOk, ratioOk } },
    date,
    { name: 'tx-history', latest: 'tx-history-latest.json' },
  );
  process.stdout.write(`results: ${paths.map((p) => relative(process.cwd(), p)).join(', ')} (in ${relative(process.cwd(), RESULTS_DIR)})\n`);
} finally {
  for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
}
