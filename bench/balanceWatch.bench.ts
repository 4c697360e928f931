/**
 * Balance watching leg of `npm run bench` (issue 24 item 8): node requests per new block and the
 * delay from a mined block to its `/event-stream` frame, for 100 coins on one EVM node (polled, and
 * followed by newHeads) and 20 coins on one Electrum server, against the reference client's polling
 * (one `my_balance` per coin per 30 s) measured in the same run. Env: BENCH_BLOCKS (default 10),
 * BENCH_POLL_S (default 2), BENCH_CLIENT_PERIOD_S (default 30), BENCH_LATENCY_MS (default 0: the
 * delays are ours, not the network's). Exits non-zero only when the run fails; a missed goal is
 * printed as MISSED.
 */
import './silence.ts';
import { relative } from 'node:path';
import { integerFrom } from './benchConfig.ts';
import { environment, saveResults } from './results.ts';
import { runEvmWatch } from './balanceWatch/evmWatch.ts';
import { runElectrumWatch } from './balanceWatch/electrumWatch.ts';
import { renderLeg } from './balanceWatch/watchReport.ts';

const blocks = integerFrom(process.env, 'BENCH_BLOCKS', 1) ?? 10;
const pollS = integerFrom(process.env, 'BENCH_POLL_S', 1) ?? 2;
const clientPeriodMs = (integerFrom(process.env, 'BENCH_CLIENT_PERIOD_S', 1) ?? 30) * 1000;
const latencyMs = integerFrom(process.env, 'BENCH_LATENCY_MS', 0) ?? 0;

const startedAt = new Date();
const evm = await runEvmWatch({ coins: 100, blocks, pollS, clientPeriodMs, latencyMs });
const electrum = await runElectrumWatch({ coins: 20, blocks, clientPeriodMs, serverPollMs: 20 });
let met = true;
for (const leg of [evm, electrum]) {
  const { lines, met: legMet } = renderLeg(leg);
  met &&= legMet;
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
process.stdout.write(`goals ${met ? 'met' : 'MISSED'}\n`);
const paths = await saveResults({ startedAt: startedAt.toISOString(), environment: { ...environment(), blocks, pollS, clientPeriodMs, latencyMs }, legs: [evm, electrum], met }, startedAt, { name: 'balance-watch', latest: 'latest-balance-watch.json' });
process.stdout.write(`saved ${paths.map((p) => relative(process.cwd(), p)).join(', ')}\n`);
