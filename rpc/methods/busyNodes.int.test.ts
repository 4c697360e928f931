/**
 * Busy nodes (HTTP 429, JSON-RPC -32005) through the RPC: skipped at once for the next node, left
 * alone until their Retry-After on the injected clock, for every coin that uses them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BusyMode, startBusyNode, startTronNode, type BusyBehaviour, type EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { evmToTronBase58 } from '../../infra/keys/tronAddress.ts';
import { DEVNET_CHAIN_ID, TEST_ADDRESS, enableEthParams, enableTrxParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';

const NATIVE_WEI = 1_234_500_000_000_000_001n;
/** A whole second, so that HTTP dates (second resolution) are exact on the manual clock. */
const START = Date.UTC(2030, 0, 1, 12, 0, 0);

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ nativeWei: NATIVE_WEI, tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }] });
});
after(() => devnet.stop());

/** More platforms on the same chains, so that several coins use one node. */
const evmCoin = (coin: string) => ({ coin, decimals: 18, mm2: 1, derivation_path: "m/44'/60'", protocol: { type: 'ETH', protocol_data: { chain_id: DEVNET_CHAIN_ID } } });
const tronCoin = (coin: string) => ({ coin, decimals: 6, wallet_only: true, derivation_path: "m/44'/195'", protocol: { type: 'TRX', protocol_data: { network: 'Nile' } } });
const EXTRA: unknown[] = [...['ETH2', 'ETH3', 'ETH4'].map(evmCoin), ...['TRX2', 'TRX3', 'TRX4'].map(tronCoin)];

function stack(clock: ManualClock): Promise<Stack> {
  return startStack({ devnet, tron: true, clock, extraCoins: EXTRA });
}

/** Activates EVM platform `ticker` on `nodes`; returns the HTTP status and body. */
const enableEth = (s: Stack, ticker: string, nodes: string[]) =>
  s.v2('enable_eth_with_tokens', { ...enableEthParams(s, ticker === 'ETH' ? ['USDT-ERC20'] : []), ticker, nodes: nodes.map((url) => ({ url })) });
const enableTrx = (s: Stack, ticker: string, nodes: string[]) =>
  s.v2('enable_eth_with_tokens', { ...enableTrxParams(s, ticker === 'TRX' ? ['USDT-TRC20'] : []), ticker, nodes: nodes.map((url) => ({ url })) });

describe('a busy EVM node', () => {
  const modes: [string, BusyBehaviour][] = [
    ['HTTP 429', { mode: BusyMode.Http429, retryAfter: '30' }],
    ['a -32005 error for the whole batch', { mode: BusyMode.RpcBatch, retryAfter: '30' }],
    ['a -32005 error for one call of the batch', { mode: BusyMode.RpcCall, method: 'eth_blockNumber', retryAfter: '30' }],
  ];
  for (const [name, behaviour] of modes) {
    test(`answering ${name} is skipped at once, for every coin, until its Retry-After`, async () => {
      const clock = new ManualClock(START);
      const busy = await startBusyNode({ target: devnet.url, behaviour });
      const s = await stack(clock);
      try {
        const first = await enableEth(s, 'ETH', [busy.url, devnet.url]);
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.deepEqual(first.body.result.eth_addresses_infos[TEST_ADDRESS].balances, { spendable: '1.234500000000000001', unspendable: '0' });
        assert.deepEqual(first.body.result.erc20_addresses_infos[TEST_ADDRESS].balances['USDT-ERC20'], { spendable: '1234.567891', unspendable: '0' });
        assert.equal(busy.requests(), 1, 'asked once, then the next node at once');

        busy.setBehaviour({ mode: BusyMode.Off });
        assert.equal((await enableEth(s, 'ETH2', [busy.url, devnet.url])).status, 200);
        clock.advance(29_999);
        assert.equal((await enableEth(s, 'ETH3', [busy.url, devnet.url])).status, 200);
        assert.equal(busy.requests(), 1, 'another coin does not ask the busy node before its Retry-After');

        clock.advance(1);
        assert.equal((await enableEth(s, 'ETH4', [busy.url, devnet.url])).status, 200);
        assert.equal(busy.requests(), 2, 'asked again once Retry-After has passed');
      } finally {
        await s.stop();
        await busy.stop();
      }
    });
  }

  test('every node busy: Transport naming them busy by origin only; not asked again before the default 10 s', async () => {
    const clock = new ManualClock(START);
    const busy = await startBusyNode({ target: devnet.url, behaviour: { mode: BusyMode.Http429 } });
    const s = await stack(clock);
    try {
      const secretUrl = `${busy.url}/v3/secret-api-key`;
      const failed = await enableEth(s, 'ETH', [secretUrl]);
      assert.equal(failed.status, 502, JSON.stringify(failed.body));
      assert.equal(failed.body.error_type, 'Transport');
      assert.match(failed.body.error, /all 1 node\(s\) are busy: http:\/\/127\.0\.0\.1:\d+: busy \(HTTP 429 Too Many Requests\), asked again in 10 s/);
      assert.doesNotMatch(JSON.stringify(failed.body), /secret-api-key/);

      busy.setBehaviour({ mode: BusyMode.Off });
      const again = await enableEth(s, 'ETH', [secretUrl]);
      assert.equal(again.status, 502);
      assert.match(again.body.error, /are busy: .*busy, not asked again for 10 s/);
      assert.equal(busy.requests(), 1);

      clock.advance(10_000);
      assert.equal((await enableEth(s, 'ETH', [secretUrl])).status, 200);
      assert.equal(busy.requests(), 2);
    } finally {
      await s.stop();
      await busy.stop();
    }
  });
});

describe('a busy TRON node', () => {
  test('HTTP 429 with an HTTP-date Retry-After: skipped at once, for every coin, until that date', async () => {
    const clock = new ManualClock(START);
    const retryAfter = new Date(START + 20_000).toUTCString();
    const busy = await startTronNode({ evm: devnet, busy: { status: 429, body: { Error: 'too many requests' }, retryAfter } });
    const s = await stack(clock);
    try {
      const first = await enableTrx(s, 'TRX', [busy.url, s.tron!.url]);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const tron = evmToTronBase58(TEST_ADDRESS);
      assert.deepEqual(first.body.result.eth_addresses_infos[tron].balances, { spendable: '1234500000000.000001', unspendable: '0' });
      const asked = busy.hits.length;
      assert.ok(asked > 0);

      busy.setBusy(false);
      clock.advance(19_999);
      assert.equal((await enableTrx(s, 'TRX2', [busy.url, s.tron!.url])).status, 200);
      assert.equal(busy.hits.length, asked, 'another coin does not ask the busy node before its Retry-After');

      clock.advance(1);
      assert.equal((await enableTrx(s, 'TRX3', [busy.url, s.tron!.url])).status, 200);
      assert.ok(busy.hits.length > asked, 'asked again once the date has passed');
    } finally {
      await s.stop();
      await busy.stop();
    }
  });

  test('a rate-limit {"Error"} with HTTP 200 is busy too; every node busy is Transport naming them busy', async () => {
    const clock = new ManualClock(START);
    const busy = await startTronNode({ evm: devnet, busy: { status: 200, body: { Error: 'rate limit exceeded' } } });
    const s = await stack(clock);
    try {
      const failed = await enableTrx(s, 'TRX', [busy.url]);
      assert.equal(failed.status, 502, JSON.stringify(failed.body));
      assert.equal(failed.body.error_type, 'Transport');
      assert.match(failed.body.error, /all 1 node\(s\) are busy: .*rate limit exceeded.*asked again in 10 s/);
      const asked = busy.hits.length;
      busy.setBusy(false);
      assert.equal((await enableTrx(s, 'TRX', [busy.url])).status, 502);
      assert.equal(busy.hits.length, asked);
      clock.advance(10_000);
      assert.equal((await enableTrx(s, 'TRX', [busy.url])).status, 200);
    } finally {
      await s.stop();
      await busy.stop();
    }
  });
});

test('one busy node is busy for EVM and TRON coins alike (one book per service)', async () => {
  // The same URL serves no two families in practice; the book is still one, keyed by URL only.
  const clock = new ManualClock(START);
  const busy = await startBusyNode({ target: devnet.url, behaviour: { mode: BusyMode.Http429, retryAfter: '5' } });
  const s = await stack(clock);
  try {
    assert.equal((await enableEth(s, 'ETH', [busy.url, devnet.url])).status, 200);
    const failed = await enableTrx(s, 'TRX', [busy.url]);
    assert.equal(failed.status, 502);
    assert.match(failed.body.error, /busy, not asked again for 5 s/);
    assert.equal(busy.requests(), 1);
  } finally {
    await s.stop();
    await busy.stop();
  }
});
