/**
 * Activation progress in the event log (issue 15): each node attempt of the failover policy, the
 * tokens read and each HD scan window, on the coin's stream, through the RPC with real peers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BusyMode, refusedUrl, startBusyNode, startEvmDevnet, startSilentNode, type EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { enableEthParams, startStack, startTestDevnet, DEVNET_CHAIN_ID, type Stack } from '../../devnet/testing/stack.ts';
import { eventually, startTask, untilFinished } from '../../devnet/testing/tasks.ts';
import { coinStream } from '../../events/log/eventLog.ts';
import type { StoredEvent } from '../../spec/events.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { evmAddress } from '../../infra/keys/index.ts';

const START = Date.UTC(2030, 0, 1, 12, 0, 0);
const PROGRESS = new Set(['NodeAttempted', 'TokensRead', 'HdWindowScanned']);

/** The events of `ticker`'s stream, in log order. */
async function coinEvents(s: Stack, ticker: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of s.service.log.read()) if (e.metadata.stream === coinStream(ticker)) out.push(e);
  return out;
}

/** The progress events, flat: `type` and the data's fields. */
const progressOf = (events: readonly StoredEvent[]): Record<string, unknown>[] =>
  events.filter((e) => PROGRESS.has(e.type)).map((e) => ({ type: e.type, ...(e.data as Record<string, unknown>) }));

/** Everything the service wrote, as text (for secret checks). */
async function wholeLog(s: Stack): Promise<string> {
  const lines: string[] = [];
  for await (const e of s.service.log.read()) lines.push(JSON.stringify(e));
  return lines.join('\n');
}

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_000_000n }] });
});
after(() => devnet.stop());

describe('NodeAttempted and TokensRead (devnet)', () => {
  test('a refusing first node, then a working one: two attempts, by origin only, then the tokens, then CoinActivated', async () => {
    const s = await startStack({ devnet, clock: new ManualClock(START) });
    try {
      const refused = await refusedUrl();
      const secretUrl = `${refused.replace('http://', 'http://user:hunter2@')}/v3/secret-api-key?apikey=k3y`;
      const answer = await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20'], { nodes: [{ url: secretUrl }, { url: `${devnet.url}/?key=also-secret` }] }));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const events = await coinEvents(s, 'ETH');
      assert.deepEqual(
        events.map((e) => e.type),
        ['ActivationRequested', 'NodeAttempted', 'NodeAttempted', 'TokensRead', 'CoinActivated'],
      );
      const about = { ticker: 'ETH', family: 'evm', attempt: 1 };
      assert.deepEqual(progressOf(events), [
        { type: 'NodeAttempted', ...about, read: 1, retry: 0, node: 0, origin: new URL(refused).origin, outcome: 'failed', ms: 0 },
        { type: 'NodeAttempted', ...about, read: 1, retry: 1, node: 1, origin: new URL(devnet.url).origin, outcome: 'answered', ms: 0 },
        { type: 'TokensRead', ...about, read: 1, of: 1 },
      ]);
      const text = await wholeLog(s);
      for (const secret of ['hunter2', 'secret-api-key', 'k3y', 'also-secret', '/v3/']) assert.ok(!text.includes(secret), `the log holds ${secret}`);
    } finally {
      await s.stop();
    }
  });

  test('a silent node times out on the clock (its ms is the budget), a busy one is retried later and skipped meanwhile', async () => {
    const clock = new ManualClock(START);
    const silent = await startSilentNode();
    const busy = await startBusyNode({ target: devnet.url, behaviour: { mode: BusyMode.Http429, retryAfter: '30' } });
    const coin = (ticker: string) => ({ coin: ticker, decimals: 18, mm2: 1, derivation_path: "m/44'/60'", protocol: { type: 'ETH', protocol_data: { chain_id: DEVNET_CHAIN_ID } } });
    const s = await startStack({ devnet, clock, extraCoins: [coin('ETH2')] });
    try {
      const pending = s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nodes: [{ url: silent.url }, { url: busy.url }, { url: devnet.url }] }));
      await eventually(() => silent.connections() > 0, 'the silent node is asked');
      clock.advance(10_000);
      assert.equal((await pending).status, 200);
      clock.advance(1_000);
      const second = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { ticker: 'ETH2', nodes: [{ url: busy.url }, { url: devnet.url }] }));
      assert.equal(second.status, 200, JSON.stringify(second.body));

      const about = (ticker: string) => ({ ticker, family: 'evm', attempt: 1 });
      const origin = (url: string) => new URL(url).origin;
      assert.deepEqual(progressOf(await coinEvents(s, 'ETH')), [
        { type: 'NodeAttempted', ...about('ETH'), read: 1, retry: 0, node: 0, origin: origin(silent.url), outcome: 'timedOut', ms: 10_000 },
        { type: 'NodeAttempted', ...about('ETH'), read: 1, retry: 1, node: 1, origin: origin(busy.url), outcome: 'busy', ms: 0, retryAfterMs: 30_000 },
        { type: 'NodeAttempted', ...about('ETH'), read: 1, retry: 2, node: 2, origin: origin(devnet.url), outcome: 'answered', ms: 0 },
      ]);
      assert.deepEqual(progressOf(await coinEvents(s, 'ETH2')), [
        { type: 'NodeAttempted', ...about('ETH2'), read: 1, retry: 0, node: 0, origin: origin(busy.url), outcome: 'skippedBusy', ms: 0, retryAfterMs: 29_000 },
        { type: 'NodeAttempted', ...about('ETH2'), read: 1, retry: 1, node: 1, origin: origin(devnet.url), outcome: 'answered', ms: 0 },
      ]);
    } finally {
      await s.stop();
      await busy.stop();
      await silent.stop();
    }
  });

  test('a task\'s activation: its progress names the task, on the coin\'s stream', async () => {
    const s = await startStack({ devnet, clock: new ManualClock(START) });
    try {
      const taskId = await startTask(s, enableEthParams(s, ['USDT-ERC20']));
      assert.equal((await untilFinished(s, taskId)).result.status, 'Ok');
      const progress = progressOf(await coinEvents(s, 'ETH'));
      assert.deepEqual(
        progress.map((p) => [p.type, p.taskId, p.outcome]),
        [
          ['NodeAttempted', taskId, 'answered'],
          ['TokensRead', taskId, undefined],
        ],
      );
    } finally {
      await s.stop();
    }
  });
});

describe('HdWindowScanned (devnet, HD wallet)', () => {
  const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  let hdDevnet: EvmDevnet;
  before(async () => {
    const keys = createHdKeyProvider(MNEMONIC);
    const at = async (i: number) => evmAddress(await keys.publicKey({ coin: 'ETH', derivation_path: "m/44'/60'" }, { accountId: 0, chain: 'External', addressId: i }));
    // Addresses 0, 3 and 6 are used (3 by a token only).
    hdDevnet = await startEvmDevnet({
      chainId: DEVNET_CHAIN_ID,
      fund: [
        { address: await at(0), wei: 10n ** 18n },
        { address: await at(6), wei: 1n },
      ],
      tokens: [{ symbol: 'USDT', decimals: 6, mint: [{ address: await at(3), amount: 5n }] }],
    });
  });
  after(() => hdDevnet.stop());

  test('gap limit 5: one event per window (three reads), with the addresses checked and used', async () => {
    const s = await startStack({ devnet: hdDevnet, clock: new ManualClock(START), config: { enable_hd: true, passphrase: MNEMONIC } });
    try {
      const answer = await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20'], { gap_limit: 5 }));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const events = await coinEvents(s, 'ETH');
      const windows = progressOf(events)
        .filter((p) => p.type === 'HdWindowScanned')
        .map(({ fromIndex, checked, used, knownAddresses, accountIndex, chain }) => ({ fromIndex, checked, used, knownAddresses, accountIndex, chain }));
      // By hand: 0–4 finds 0 and 3 (one trailing unused); 5–8 finds 6 (two trailing); 9–11 finds none: five unused follow 6.
      assert.deepEqual(windows, [
        { fromIndex: 0, checked: 5, used: 2, knownAddresses: 4, accountIndex: 0, chain: 'External' },
        { fromIndex: 5, checked: 4, used: 1, knownAddresses: 7, accountIndex: 0, chain: 'External' },
        { fromIndex: 9, checked: 3, used: 0, knownAddresses: 7, accountIndex: 0, chain: 'External' },
      ]);
      // A handful of events for the whole scan: one node attempt and one window per read, the tokens once.
      assert.deepEqual(
        events.map((e) => e.type),
        ['ActivationRequested', ...Array(3).fill(['NodeAttempted', 'HdWindowScanned']).flat(), 'TokensRead', 'CoinActivated'],
      );
    } finally {
      await s.stop();
    }
  });
});
