import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvmDevnet } from './devnet/index.ts';
import { isConfigError, loadNodeConfig } from './infra/config/index.ts';
import { startService } from './service.ts';
import { EnabledCoinsProjection } from './events/projections/enabledCoins.ts';
import { LOG_FILE } from './events/log/embeddedEventLog.ts';
import type { StoredEvent } from './spec/events.ts';
import { devnetCoins } from './devnet/devMode/devnetCoins.ts';
import {
  TEST_PASSPHRASE,
  TEST_PASSWORD,
  enableEthParams,
  startStack,
  startTestDevnet,
  type Stack,
} from './devnet/testing/stack.ts';

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({
    nativeWei: 2n * 10n ** 18n,
    tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_000_000n }, { symbol: 'DAI', decimals: 18, amount: 10n ** 18n }],
  });
});
after(() => devnet.stop());

async function events(s: Stack): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of s.service.log.read()) out.push(e);
  return out;
}

async function enable(s: Stack, tokens: string[]): Promise<void> {
  const { status, body } = await s.v2('enable_eth_with_tokens', enableEthParams(s, tokens));
  assert.equal(status, 200, JSON.stringify(body));
}

const sorted = <T extends { ticker: string }>(list: T[]) => [...list].sort((a, b) => a.ticker.localeCompare(b.ticker));

describe('service restart on the same dbdir', () => {
  test('a new session: nothing enabled, history kept, sequences continue, replay equals live', async () => {
    const dbdir = join(await mkdtemp(join(tmpdir(), 'restart-')), 'db');
    const first = await startStack({ devnet, dbdir });
    const firstSession = first.service.sessionId;
    let second: Stack | undefined;
    try {
      await enable(first, ['USDT-ERC20']);
      assert.deepEqual((await first.v2('get_enabled_coins')).body.result.coins.length, 2);
      const firstEvents = await events(first);
      await first.stop();

      second = await startStack({ devnet, dbdir });
      const s = second;
      assert.notEqual(s.service.sessionId, firstSession);
      assert.deepEqual(await s.legacy('get_enabled_coins'), { status: 200, body: { result: [] } }, 'coins must be activated again');
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result, { coins: [] });
      const balance = await s.legacy('my_balance', { coin: 'ETH' });
      assert.equal(balance.status, 500);
      assert.deepEqual(balance.body, { error: 'No such coin: ETH' });
      // not "already activated" either: the old session's activation is over
      await enable(s, ['USDT-ERC20', 'DAI-ERC20']);
      await s.legacy('disable_coin', { coin: 'USDT-ERC20' });

      const all = await events(s);
      assert.deepEqual(all.slice(0, firstEvents.length), firstEvents, 'the first session is kept unchanged');
      assert.deepEqual(
        all.map((e) => [e.type, e.metadata.stream, e.metadata.sessionId === firstSession ? 1 : 2]),
        [
          ['SessionStarted', 'node', 1],
          ['ActivationRequested', 'coin.ETH', 1],
          ['NodeAttempted', 'coin.ETH', 1],
          ['TokensRead', 'coin.ETH', 1],
          ['CoinActivated', 'coin.ETH', 1],
          ['SessionStarted', 'node', 2],
          ['ActivationRequested', 'coin.ETH', 2],
          ['NodeAttempted', 'coin.ETH', 2],
          ['TokensRead', 'coin.ETH', 2],
          ['CoinActivated', 'coin.ETH', 2],
          ['TokenDisabled', 'coin.ETH', 2],
        ],
      );
      const sessions = all.filter((e) => e.type === 'SessionStarted');
      assert.deepEqual(
        sessions.map((e) => (e.type === 'SessionStarted' ? e.data.sessionId : null)),
        [firstSession, s.service.sessionId],
        'each SessionStarted names its own session',
      );
      assert.deepEqual(all.map((e) => e.metadata.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 'global seq: contiguous and increasing');
      assert.deepEqual(
        all.map((e) => [e.metadata.stream, e.metadata.streamSeq]),
        [
          ['node', 1],
          ['coin.ETH', 1],
          ['coin.ETH', 2],
          ['coin.ETH', 3],
          ['coin.ETH', 4],
          ['node', 2],
          ['coin.ETH', 5],
          ['coin.ETH', 6],
          ['coin.ETH', 7],
          ['coin.ETH', 8],
          ['coin.ETH', 9],
        ],
        'per-stream seq continues across sessions',
      );
      assert.equal(new Set(all.map((e) => e.metadata.eventId)).size, all.length);
      assert.equal(s.service.log.lastSeq, 11);

      // the projection rebuilt from the log equals the live one (and is not trivially empty)
      const replayed = new EnabledCoinsProjection();
      for await (const e of s.service.log.read(1)) replayed.apply(e);
      const live = s.service.service.enabledCoins();
      assert.deepEqual(sorted(live).map((c) => c.ticker), ['DAI-ERC20', 'ETH']);
      assert.deepEqual(sorted(replayed.list()), sorted(live));
      assert.equal(replayed.position, 11);
      // and the first session's coins alone would have been different
      const stale = new EnabledCoinsProjection();
      for (const e of firstEvents) stale.apply(e);
      assert.deepEqual(stale.list().map((c) => c.ticker).sort(), ['ETH', 'USDT-ERC20']);
    } finally {
      await second?.stop();
    }
  });

  test('a torn last record is dropped and the service starts', async () => {
    const dbdir = join(await mkdtemp(join(tmpdir(), 'torn-')), 'db');
    const first = await startStack({ devnet, dbdir });
    let second: Stack | undefined;
    try {
      await enable(first, []);
      const before = await events(first);
      await first.stop();

      const path = join(dbdir, LOG_FILE);
      const intact = await readFile(path, 'utf8');
      assert.ok(intact.endsWith('\n'));
      const garbage = '{"type":"CoinDisabled","data":{"ticker":"ETH"';
      await appendFile(path, garbage); // a crash in the middle of a write: no newline

      second = await startStack({ devnet, dbdir });
      assert.deepEqual(second.service.log.recovery, { events: before.length, droppedTailBytes: Buffer.byteLength(garbage) });
      const after = await events(second);
      assert.deepEqual(after.slice(0, before.length), before);
      assert.deepEqual(after.slice(before.length).map((e) => [e.type, e.metadata.seq]), [['SessionStarted', before.length + 1]]);
      const text = await readFile(path, 'utf8');
      assert.equal(text.includes(garbage), false, 'the torn bytes are gone from the file');
      assert.ok(text.startsWith(intact));
      // fully working afterwards
      await enable(second, ['DAI-ERC20']);
      assert.deepEqual((await second.v2('get_enabled_coins')).body.result.coins.map((c: any) => c.ticker).sort(), ['DAI-ERC20', 'ETH']);
    } finally {
      await second?.stop();
    }
  });
});

describe('startup refusals', () => {
  test('enable_hd: true with a passphrase that is not a mnemonic refuses to start (ConfigError on passphrase, no words echoed), and touches nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hd-'));
    const dbdir = join(dir, 'db');
    await writeFile(join(dir, 'coins'), JSON.stringify(devnetCoins(devnet)));
    const conf = { rpc_password: TEST_PASSWORD, passphrase: TEST_PASSPHRASE, dbdir, enable_hd: true };
    await writeFile(join(dir, 'MM2.json'), JSON.stringify(conf));
    const config = await loadNodeConfig({ cwd: dir, env: {} });
    assert.equal(config.enableHd, true);
    await assert.rejects(startService({ config, port: 0 }), (e) => {
      assert.ok(isConfigError(e), `not a ConfigError: ${String(e)}`);
      assert.equal(e.key, 'passphrase');
      assert.match(e.message, /enable_hd/);
      assert.doesNotMatch(e.message, new RegExp(TEST_PASSPHRASE));
      return true;
    });
    await assert.rejects(stat(dbdir), { code: 'ENOENT' }, 'no event log was created');

    // the same directory starts fine once enable_hd is false
    await writeFile(join(dir, 'MM2.json'), JSON.stringify({ ...conf, enable_hd: false }));
    const service = await startService({ config: await loadNodeConfig({ cwd: dir, env: {} }), port: 0 });
    try {
      const res = await fetch(service.url, { method: 'POST', body: JSON.stringify({ userpass: TEST_PASSWORD, method: 'get_enabled_coins' }) });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { result: [] });
    } finally {
      await service.stop();
    }
  });
});

test('node_id defaults to a hash of the wallet public key and is in every event', async () => {
  const s = await startStack();
  try {
    assert.match(s.service.nodeId ?? '', /^[0-9a-f]{20}$/);
    const ids = new Set<string | undefined>();
    for await (const e of s.service.log.read()) ids.add(e.metadata.nodeId);
    assert.deepEqual([...ids], [s.service.nodeId]);
    const again = await startStack({ devnet: s.devnet });
    assert.equal(again.service.nodeId, s.service.nodeId, 'stable for a wallet');
    await again.stop();
  } finally {
    await s.stop();
  }
});
