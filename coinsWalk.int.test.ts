import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { COINS_WALK_TABLE, REAL_COINS_FILE } from './devnet/data/index.ts';
import { startWalkPeers, type WalkPeers } from './devnet/coinsWalk/walkPeers.ts';
import { ACCEPTED, UNLIKE_PLAN, walkCoins, type WalkRow } from './devnet/coinsWalk/coinsWalk.ts';
import { WalkMethod } from './devnet/coinsWalk/walkRequests.ts';
import { formatWalkTable, walkTableDiff } from './devnet/coinsWalk/walkTable.ts';
import { startStack, type Stack } from './devnet/testing/stack.ts';
import type { CoinEntry } from './spec/coins.ts';
import { HTTP_STATUS, type ErrorType } from './spec/errors.ts';

/**
 * Every entry of the real coins file through every method that fits it, against the committed
 * table (docs/coinsWalk.md). `UPDATE_COINS_WALK=1` rewrites the table instead of comparing.
 */
const UPDATE = process.env.UPDATE_COINS_WALK === '1';

/**
 * UTXO entries `electrum` does not activate yet, each with the reason (none since CashAddr takes
 * any prefix). The test fails when this list is wrong in either direction.
 */
const ELECTRUM_KNOWN_GAPS: readonly string[] = [];

let entries: CoinEntry[];
let peers: WalkPeers;
const stacks: Partial<Record<WalkMethod, Stack>> = {};
let rows: WalkRow[];
let elapsedMs: number;

before(async () => {
  const started = Date.now();
  entries = JSON.parse(await readFile(REAL_COINS_FILE, 'utf8')) as CoinEntry[];
  peers = await startWalkPeers(entries);
  for (const method of Object.values(WalkMethod)) stacks[method] = await startStack({ devnet: peers.evm, coins: entries });
  rows = await walkCoins(entries, {
    stacks: stacks as Record<WalkMethod, Stack>,
    endpoints: { evmUrl: peers.evm.url, tronUrl: peers.tron.url, electrumTcp: peers.electrum.tcp! },
  });
  elapsedMs = Date.now() - started;
});
after(async () => {
  await Promise.all(Object.values(stacks).map((s) => s.stop()));
  await peers?.stop();
});

describe('the real coins file, every entry through every method that fits it', () => {
  test('matches the committed table', async () => {
    const actual = formatWalkTable(rows);
    if (UPDATE) {
      await writeFile(COINS_WALK_TABLE, actual);
      return;
    }
    const expected = await readFile(COINS_WALK_TABLE, 'utf8').catch(() => '');
    const diff = walkTableDiff(expected, actual);
    const shown = diff.slice(0, 40).join('\n');
    assert.deepEqual(diff, [], `${diff.length} table lines differ (UPDATE_COINS_WALK=1 regenerates the table):\n${shown}`);
    assert.equal(actual, expected, 'same lines, other order or header');
  });

  test('walks every entry, each at least once', () => {
    assert.deepEqual(new Set(rows.map((r) => r.coin)), new Set(entries.map((e) => e.coin)));
    console.log(`coins walk: ${entries.length} entries, ${rows.length} rows in ${elapsedMs} ms`);
  });

  test('every UTXO and QTUM entry activates through electrum (but the known gaps)', () => {
    const electrum = rows.filter((r) => (r.protocol === 'UTXO' || r.protocol === 'QTUM') && r.method === WalkMethod.Electrum);
    assert.equal(electrum.length, entries.filter((e) => e.protocol?.type === 'UTXO' || e.protocol?.type === 'QTUM').length);
    const notActive = electrum.filter((r) => !r.activation.startsWith('ok ')).map((r) => r.coin);
    assert.deepEqual(notActive, ELECTRUM_KNOWN_GAPS, 'update ELECTRUM_KNOWN_GAPS when a gap closes');
  });

  test('a refused plan is refused on the wire with the same error, in its method form', () => {
    const unlike = rows.filter((r) => r.activation.startsWith(UNLIKE_PLAN)).map((r) => `${r.coin} ${r.method}: ${r.activation}`);
    assert.deepEqual(unlike, []);
    for (const row of rows.filter((r) => r.plan !== ACCEPTED)) {
      // Legacy errors are HTTP 500, a task's status answers 200, a v2 error has its type's status.
      const errorType = row.plan.slice(0, row.plan.indexOf(':')) as ErrorType;
      const legacy = row.method === WalkMethod.Electrum || row.method === WalkMethod.Enable;
      const status = legacy ? 500 : row.method === WalkMethod.EnableEthTask ? 200 : HTTP_STATUS[errorType];
      assert.equal(row.activation, `refused HTTP ${status}`, `${row.coin} ${row.method}`);
    }
  });

  test('native enable reads each coin\'s daemon where its config file says', () => {
    const native = rows.filter((r) => r.method === WalkMethod.Enable && r.plan === ACCEPTED && ['UTXO', 'QTUM', 'QRC20'].includes(r.protocol));
    assert.ok(native.length > 0);
    assert.ok(native.some((r) => r.protocol === 'QRC20'));
    const asked = new Set(peers.daemon.calls);
    // A coin is asked about its own address, a QRC20 token runs its contract (callcontract <contract>).
    const contractOf = (coin: string) => String((entries.find((e) => e.coin === coin)?.protocol?.protocol_data as { contract_address?: unknown })?.contract_address).replace(/^0x/, '').toLowerCase();
    const question = (r: WalkRow) => (r.protocol === 'QRC20' ? `callcontract ${contractOf(r.coin)}` : `getaddressinfo ${r.address}`);
    const unasked = native.filter((r) => !asked.has(question(r))).map((r) => r.coin);
    assert.deepEqual(unasked, []);
  });

  test('an accepted plan activates', () => {
    const failed = rows.filter((r) => r.plan === ACCEPTED && !r.activation.startsWith('ok ')).map((r) => `${r.coin} ${r.method}: ${r.activation}`);
    assert.deepEqual(failed, []);
  });
});
