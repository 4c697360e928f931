import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { formatAmount, parseAmount } from '../../spec/amount.ts';
import { startStack, TEST_PASSPHRASE } from '../../devnet/testing/stack.ts';
import { eventually } from '../../devnet/testing/tasks.ts';

/** A native-daemon coin's balance polled at its `balance_poll_s` (issue 24), on a manual clock, against regtest litecoind. */

const COIN = 'LTCN';
const POLL = 5_000;

let node: Litecoind;
let address: string;

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: COIN });
  address = p2pkhAddress(Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex'));
  node = await startLitecoind();
  await node.fund(address, 100_000_000n, 1);
  await node.rpc('importaddress', [address, '', true]);
});
after(() => node?.stop());

describe('a native-daemon coin watched by polling', () => {
  test('When a transfer is mined, Then the next poll writes one BalanceChanged and my_balance answers it; a quiet poll writes nothing; disable stops the watcher', async () => {
    const clock = new ManualClock();
    const entry = { coin: COIN, name: 'litecoin', mm2: 1, pubtype: 111, decimals: 8, network: 'regtest', protocol: { type: 'UTXO' }, confpath: node.confPath, balance_poll_s: POLL / 1000 };
    const s = await startStack({ extraCoins: [entry], clock });
    try {
      const { status, body } = await s.legacy('enable', { coin: COIN });
      assert.equal(status, 200, JSON.stringify(body));
      await eventually(() => s.service.registry.balanceWatchers === 1 && s.service.registry.watchedBalance(COIN, COIN, address) !== undefined, 'the coin to join a watcher');
      const balance = body.balance as string;
      await node.fund(address, 20_000_000n, 1);
      clock.advance(POLL);
      const changes = async () => {
        const out: string[] = [];
        for await (const e of s.service.log.read()) if (e.type === 'BalanceChanged') out.push(`${e.data.ticker} ${e.data.old.spendable} -> ${e.data.new.spendable}`);
        return out;
      };
      const now = formatAmount(parseAmount(balance, 8) + 20_000_000n, 8);
      const deadline = Date.now() + 5_000;
      while ((await changes()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.deepEqual(await changes(), [`${COIN} ${balance} -> ${now}`]);
      await eventually(() => s.service.registry.watchedBalance(COIN, COIN, address)?.fresh === true, 'the read to be current');
      assert.equal((await s.legacy('my_balance', { coin: COIN })).body.balance, now);
      // a poll that finds the same block writes nothing
      clock.advance(POLL);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal((await changes()).length, 1);
      assert.equal((await s.legacy('disable_coin', { coin: COIN })).status, 200);
      assert.equal(s.service.registry.balanceWatchers, 0);
    } finally {
      await s.stop();
    }
  });
});
