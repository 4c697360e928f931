import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog } from './events/log/embeddedEventLog.ts';
import { startSilentNode } from './devnet/index.ts';
import { SWAP_CONTRACT, TEST_PASSPHRASE, TEST_PASSWORD } from './devnet/testing/stack.ts';
import { reservePort } from './devnet/testing/ports.ts';
import type { StoredEvent } from './spec/events.ts';

/** kill -9 of the real service mid-burst (issue 4): the log stays intact, unfinished work ends explicitly. */


function startService(conf: string): ChildProcess {
  return spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(import.meta.dirname, 'main.ts')], {
    env: { ...process.env, MM_CONF_PATH: conf, COIN_ACTIVATION_LOG: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function untilListening(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`service exited (${code})`)));
  });
}

async function readAll(dbdir: string): Promise<StoredEvent[]> {
  const log = await EmbeddedEventLog.open({ dir: dbdir, sessionId: 'auditor' });
  const events: StoredEvent[] = [];
  for await (const e of log.read()) events.push(e);
  await log.close();
  return events;
}

test('kill -9 mid-burst: the log reopens intact and every unfinished activation and task ends with an event', async () => {
  const silent = await startSilentNode();
  const dir = await mkdtemp(join(tmpdir(), 'crash-'));
  const port = await reservePort();
  const tickers = Array.from({ length: 15 }, (_, i) => `EVM${String(i).padStart(3, '0')}`);
  const coins = tickers.map((coin) => ({ coin, decimals: 18, protocol: { type: 'ETH', protocol_data: { chain_id: 1337 } } }));
  const conf = join(dir, 'MM2.json');
  await writeFile(conf, JSON.stringify({ rpc_password: TEST_PASSWORD, passphrase: TEST_PASSPHRASE, rpcport: port, dbdir: join(dir, 'db'), coins }));
  const url = `http://127.0.0.1:${port}`;
  const params = (ticker: string) => ({
    ticker,
    nodes: [{ url: silent.url }],
    swap_contract_address: SWAP_CONTRACT,
    fallback_swap_contract: SWAP_CONTRACT,
    erc20_tokens_requests: [],
  });
  const post = (method: string, p: unknown) =>
    fetch(url, { method: 'POST', body: JSON.stringify({ mmrpc: '2.0', userpass: TEST_PASSWORD, method, params: p }) }).catch(() => undefined);

  let child = startService(conf);
  try {
    await untilListening(child);
    for (const ticker of tickers.slice(0, 10)) void post('enable_eth_with_tokens', params(ticker)); // never answered
    const inits = await Promise.all(tickers.slice(10).map((t) => post('task::enable_eth::init', params(t))));
    const taskIds = await Promise.all(inits.map(async (r) => ((await r!.json()) as any).result.task_id as number));
    // All 15 wait on the chain, and their ActivationRequested is durable (the chain call can start
    // before the fsync ends; an activation not yet on disk needs no interruption record).
    const requested = async () => ((await readFile(join(dir, 'db', 'events.log'), 'utf8').catch(() => '')).match(/"type":"ActivationRequested"/g) ?? []).length;
    while (silent.connections() < 15 || (await requested()) < 15) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    child = startService(conf);
    await untilListening(child);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));

    const events = await readAll(join(dir, 'db'));
    assert.deepEqual(events.map((e) => e.metadata.seq), events.map((_, i) => i + 1), 'no gap, nothing lost');
    assert.equal(events.filter((e) => e.type === 'SessionStarted').length, 2);
    const interrupted = events.filter((e) => e.type === 'ActivationInterrupted').map((e) => (e.data as { ticker: string }).ticker);
    assert.deepEqual(interrupted.sort(), tickers);
    const tasksInterrupted = events.filter((e) => e.type === 'TaskInterrupted').map((e) => (e.data as { taskId: number }).taskId);
    assert.deepEqual(tasksInterrupted.sort((a, b) => a - b), taskIds.sort((a, b) => a - b));
    const firstSession = events[0]!.metadata.sessionId;
    for (const e of events.filter((e) => e.type.endsWith('Interrupted'))) {
      assert.notEqual(e.metadata.sessionId, firstSession, 'recorded by the next start');
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await silent.stop();
  }
});
