import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { startNatsServer, type NatsServer } from '../../devnet/nats/natsServer.ts';
import type { StoredEvent } from '../../spec/events.ts';
import { EmbeddedEventLog } from '../log/embeddedEventLog.ts';
import { startProjector } from '../projector/projector.ts';
import { connectForever, ensureTestStream, publishEvents } from '../../devnet/testkits/projectorTestkit.ts';
import { openStatusKv } from '../projector/statusKv.ts';
import { EVENTS_STREAM, statusKey } from '../jetstream/subjects.ts';
import { busyNode } from '../../devnet/testkits/statusScenario.ts';
import { embeddedLogSource, jetStreamSource, replay } from './replay.ts';
import { formatHistoryLine, history, type HistorySubject } from './replayHistory.ts';
import { runReplayCli } from '../../scripts/replayCli.ts';
import { kvDigest, writeStateToKv } from './replayKv.ts';

const root = join(import.meta.dirname, '..', '..');
let server: NatsServer;
let nc: NatsConnection;
let kv: KV;
let dirs: string[] = [];

/** Writes `events` through a real embedded log (it gives them their metadata); returns what it stored. */
async function embeddedLog(nodeId: string | undefined, events: readonly StoredEvent[]): Promise<{ dir: string; stored: StoredEvent[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'replay-'));
  dirs.push(dir);
  const log = await EmbeddedEventLog.open({ dir, sessionId: 's-1', ...(nodeId === undefined ? {} : { nodeId }), fsync: false, clock: new ManualClock() });
  for (const e of events) await log.append(e.metadata.stream, [{ type: e.type, data: e.data } as never]);
  const stored: StoredEvent[] = [];
  for await (const e of log.read()) stored.push(e);
  await log.close();
  return { dir, stored };
}

async function projectAll(): Promise<void> {
  const p = await startProjector({ nc, ackWaitMs: 2_000, pollMs: 100 });
  await p.whenCaughtUp();
  await p.stop();
}

async function historyLines(source: Promise<Parameters<typeof history>[0]>, subject: HistorySubject): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of history(await source, subject)) out.push(formatHistoryLine(entry));
  return out;
}

/** Runs `tsx scripts/<script>` with `args`; resolves with its exit code and output. */
function cli(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', script), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The replay CLI in this process, its output captured (stderr is not a TTY). */
async function replayCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runReplayCli(args, { stdout: { write: (t: string) => (stdout += t) }, stderr: { isTTY: false, write: (t: string) => (stderr += t) } });
  return { code, stdout, stderr };
}

const digestLine = (stdout: string) => /^digest\s+(sha256:[0-9a-f]{64})$/m.exec(stdout)?.[1];

describe('replay (real nats-server)', () => {
  before(async () => {
    server = await startNatsServer();
    nc = await connectForever(server.url);
    await ensureTestStream(nc);
    kv = await openStatusKv(nc);
  });
  after(async () => {
    await nc.close();
    await server.stop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
    dirs = [];
  });

  test('the embedded log and JetStream replay to the same digest, twice, and it matches the projected KV', async () => {
    const a = await embeddedLog('node-a', busyNode('node-a').events);
    const b = await embeddedLog('node-b', busyNode('node-b').events);
    await publishEvents(nc, [...a.stored, ...b.stored]);
    const first = await replay(await jetStreamSource(nc));
    const second = await replay(await jetStreamSource(nc));
    assert.equal(first.events, a.stored.length + b.stored.length);
    assert.equal(second.digest, first.digest, 'same state twice in a row');
    assert.deepEqual(second.state.toObject(), first.state.toObject());
    await projectAll();
    assert.equal(await kvDigest(kv), first.digest, 'the KV matches a replay');
    const fromLogA = await replay(await embeddedLogSource(a.dir));
    assert.equal(fromLogA.digest, (await replay(await jetStreamSource(nc, { node: 'node-a' }))).digest);
    assert.equal(fromLogA.digest, await kvDigest(kv, { node: 'node-a' }));
    assert.ok(first.eventsPerSecond > 0);
  });

  test('after a fault (a lost key, a corrupted one) --write-kv restores the KV of a replay', async () => {
    const result = await replay(await jetStreamSource(nc));
    const key = statusKey('node-a', 'coin.ETH');
    await kv.delete(key);
    await kv.put(statusKey('node-b', 'task.1'), JSON.stringify({ status: 'Ok', lastSeq: 0 }));
    await kv.put('node-z.coin.JUNK', JSON.stringify({ nodeId: 'node-z', lastSeq: 1 }));
    assert.notEqual(await kvDigest(kv), result.digest);
    const r = await writeStateToKv(kv, result.state);
    assert.deepEqual({ written: r.written, deleted: r.deleted, kept: r.kept }, { written: 2, deleted: 0, kept: 1 }, 'a node the replay never saw is kept');
    await kv.delete('node-z.coin.JUNK');
    assert.equal(await kvDigest(kv), result.digest);
  });

  test('history lists one coin (with the session starts that reset it) and one task', async () => {
    const events = busyNode('node-h').events;
    const log = await embeddedLog('node-h', events);
    const coin = await historyLines(embeddedLogSource(log.dir), { kind: 'coin', ticker: 'ETH' });
    assert.deepEqual(
      coin.map((l) => l.split(' ')[3]),
      [
        ...['ActivationRequested', 'CoinActivated', 'GasPriceUpdated', 'GasPriceStale', 'TokenDisabled', 'CoinPassivated', 'SessionStarted'],
        ...['ActivationRequested', 'CoinActivated', 'RequiredConfirmationsSet', 'RequiresNotarizationSet', 'GasPriceUpdated', 'GasPriceStale'],
      ],
    );
    assert.match(coin[1]!, /^3 \d{4}-\d\d-\d\dT[\d:.]+Z node-h CoinActivated \{"ticker":"ETH",/);
    const task = await historyLines(embeddedLogSource(log.dir), { kind: 'task', taskId: 1 });
    assert.deepEqual(task.map((l) => l.split(' ')[3]), ['TaskCreated', 'TaskProgressed', 'HardwarePinEntered', 'TaskFailed']);
    await publishEvents(nc, log.stored);
    assert.deepEqual(await historyLines(jetStreamSource(nc), { kind: 'task', taskId: 1, node: 'node-h' }), task, 'JetStream tells the same');
  });

  test('npm run replay: digest twice, --check-kv, --write-kv, --history, progress lines when not a TTY', async () => {
    await projectAll();
    const run1 = await cli('replay.ts', ['--nats', server.url, '--check-kv']);
    assert.equal(run1.code, 0, run1.stderr);
    const run2 = await replayCli(['--nats', server.url]);
    assert.equal(digestLine(run2.stdout), digestLine(run1.stdout));
    assert.match(run1.stdout, /^kv\s+sha256:[0-9a-f]{64} \(matches\)$/m);
    assert.match(run1.stderr, /^replay: \[#+\] 100% \d+ events, \d+ events\/s$/m, 'periodic lines, no bar redraws');
    assert.doesNotMatch(run1.stderr, /\r/);
    assert.match(run1.stderr, /^replayed \d+ events in [\d.]+ s \(\d+ events\/s\)$/m);

    await kv.delete(statusKey('node-a', 'task.0'));
    const broken = await replayCli(['--nats', server.url, '--check-kv']);
    assert.equal(broken.code, 1);
    assert.match(broken.stdout, /DIFFERS/);
    const fixed = await replayCli(['--nats', server.url, '--write-kv', '--check-kv']);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, /^kv\s+written 1, unchanged \d+, deleted 0, kept 0$/m);

    const task = await replayCli(['--nats', server.url, '--history', 'task', '0', '--node', 'node-a']);
    assert.deepEqual(task.stdout.trim().split('\n').map((l) => l.split(' ')[3]), ['TaskCreated', 'TaskProgressed', 'TaskSucceeded', 'TaskForgotten']);
    const coin = await replayCli(['--nats', server.url, '--history', 'coin', 'BNB']);
    assert.deepEqual(new Set(coin.stdout.trim().split('\n').map((l) => l.split(' ')[2])), new Set(['node-a', 'node-b', 'node-h']), 'every node without --node');
    const bad = await replayCli(['--history', 'task', 'x']);
    assert.equal(bad.code, 2);
  });

  test('npm run replay --dbdir: the embedded log, read-only; --node names the events of a log written before node ids', async () => {
    const events = busyNode('old').events;
    const withIds = await embeddedLog('legacy', events);
    const withoutIds = await embeddedLog(undefined, events);
    const a = await replayCli(['--dbdir', withIds.dir]);
    const b = await replayCli(['--dbdir', withoutIds.dir, '--node', 'legacy']);
    const again = await replayCli(['--dbdir', withoutIds.dir, '--node', 'legacy']);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, new RegExp(`^events\\s+${events.length}$`, 'm'));
    assert.equal(digestLine(b.stdout), digestLine(a.stdout));
    assert.equal(digestLine(again.stdout), digestLine(a.stdout));
    const unnamed = await replayCli(['--dbdir', withoutIds.dir, '--state']);
    assert.match(unnamed.stdout, /"local\.coin\.ETH":/, 'default node id: local');
    const history = await replayCli(['--dbdir', withIds.dir, '--history', 'coin', 'GLMR']);
    assert.deepEqual(history.stdout.trim().split('\n').map((l) => l.split(' ')[3]), ['ActivationRequested', 'SessionStarted', 'ActivationInterrupted']);
  });

  test('npm run projector: its own process, lag logged, clean stop on SIGTERM', async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.consumers.delete(EVENTS_STREAM, 'cli-set').catch(() => false);
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'projector.ts'), '--nats', server.url, '--durable', 'cli-set', '--report-every', '0.2'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, COIN_ACTIVATION_LOG: 'info' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await publishEvents(nc, busyNode('node-cli').events);
      const expected = (await replay(await jetStreamSource(nc))).digest;
      const deadline = Date.now() + 20_000;
      while ((await kvDigest(kv)) !== expected) {
        assert.ok(Date.now() < deadline, `the projector process did not catch up: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      while (!/"msg":"projector: lag","events":0,"ms":0/.test(stderr)) {
        assert.ok(Date.now() < deadline, `no lag report: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /"msg":"projector: stopped"/);
    await jsm.consumers.delete(EVENTS_STREAM, 'cli-set').catch(() => false);
  });
});
