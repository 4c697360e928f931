/**
 * Every bench, one after the other, each in its own process (so one's devnet, service and heap
 * cannot disturb the next's timings): `enable_eth_with_tokens` for ETH with ERC20s on each read
 * path vs the sequential baseline; what the deployless and the `aggregate3` read each cost the
 * node; TRX with TRC20s; a fresh HD wallet's gap-limit scan vs the reference's sequential checks;
 * `task::enable_eth::status` polling vs a bare node:http server; task progress pushed on
 * `/event-stream` vs polled (server CPU, change-to-client latency); balances watched per node
 * (node requests per block, block-to-frame delay) vs the client polling my_balance; the NATS bench (event → KV
 * latency and replay throughput vs raw JetStream on one nats-server). Each bench's own env
 * variables apply. Exits non-zero if any bench failed (after running the rest).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHES = ['enableEthWithTokens.bench.ts', 'readCost.bench.ts', 'enableTrx.bench.ts', 'hdScan.bench.ts', 'balanceWatch.bench.ts', 'taskStatus.bench.ts', 'taskStream.bench.ts', 'nats.bench.ts'] as const;

function run(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`./${file}`, import.meta.url))], { stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

let failed = 0;
for (const [i, file] of BENCHES.entries()) {
  process.stdout.write(`${i === 0 ? '' : '\n'}=== ${file} ===\n`);
  const code = await run(file);
  if (code !== 0) {
    failed += 1;
    process.stderr.write(`${file} failed (exit ${code})\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
