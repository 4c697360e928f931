import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { startStack, startTestDevnet, TEST_PASSPHRASE, type Stack } from '../../devnet/testing/stack.ts';
import type { EvmDevnet } from '../../devnet/index.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { amountField, parseRpcJsonExact } from '../../infra/utxo/daemonAmounts.ts';
import { createRpcClient } from '../../infra/utxo/daemonRpc.ts';
import { formatAmount } from '../../spec/amount.ts';

/**
 * `my_tx_history` of a UTXO coin over its native daemon (legacy `enable`, `tx_history: true`):
 * regtest litecoind watches the service's address (`importaddress`, spec 1.5) and pays it; the
 * history equals what litecoind's wallet says of those transactions, and a new block brings a new one.
 */

const COIN = 'LTCN';
let node: Litecoind;
let devnet: EvmDevnet;
let address: string;
const paid: string[] = [];

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: COIN });
  address = p2pkhAddress(Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex'));
  [node, devnet] = await Promise.all([startLitecoind(), startTestDevnet()]);
  await node.rpc('importaddress', [address, '', false]);
  for (const litoshis of [10_000_000n, 20_000_000n, 30_000_000n]) paid.push(await node.fund(address, litoshis, 1));
  paid.push(await node.fund(address, 5_000_000n, 0)); // unconfirmed
});
after(async () => {
  await node?.stop();
  await devnet?.stop();
});

describe('my_tx_history over a native daemon', () => {
  test('the daemon wallet\'s transactions of the address, with its fees and confirmations; a new block brings the next one', async () => {
    const clock = new ManualClock(Date.now());
    const entry = { coin: COIN, name: 'litecoin', mm2: 1, pubtype: 111, decimals: 8, network: 'regtest', protocol: { type: 'UTXO' }, confpath: node.confPath };
    const s: Stack = await startStack({ devnet, extraCoins: [entry], clock });
    try {
      const enabled = await s.legacy('enable', { coin: COIN, tx_history: true });
      assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
      const finished = async (count: number) => {
        for (const deadline = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 20))) {
          const result = (await s.v2('my_tx_history', { coin: COIN, limit: 20 })).body.result;
          if (result?.sync_status.state === 'Finished' && result.total === count) return result;
          assert.ok(Date.now() < deadline, JSON.stringify(result));
        }
      };
      const result = await finished(paid.length);
      const exact = createRpcClient({ url: node.rpcUrl, user: node.rpcUser, password: node.rpcPassword }, parseRpcJsonExact);
      const want = await Promise.all(
        paid.map(async (txid) => {
          type Detail = { address?: string; category: string; amount: unknown };
          const tx = await exact<{ fee: unknown; confirmations: number; blockheight?: number; blocktime?: number; details: Detail[] }>('gettransaction', [txid, true]);
          // the wallet pays an address it watches: its own view nets to 0, its receive entry is the address's
          const received = tx.details.filter((d) => d.category === 'receive' && d.address === address).reduce((sum, d) => sum + amountField(d.amount), 0n);
          return { txid, received, fee: -amountField(tx.fee), confirmations: tx.confirmations, height: tx.blockheight ?? 0, time: tx.blocktime ?? 0 };
        }),
      );
      want.sort((a, b) => (a.height === 0 ? -1 : b.height === 0 ? 1 : b.height - a.height || (a.txid < b.txid ? -1 : 1)));
      assert.deepEqual(
        result.transactions.map((t: any) => [t.tx_hash, t.received_by_me, t.my_balance_change, t.fee_details.amount, t.confirmations, t.block_height, t.timestamp, t.to.includes(address)]),
        want.map((w) => [w.txid, formatAmount(w.received, 8), formatAmount(w.received, 8), formatAmount(w.fee, 8), w.confirmations, w.height, w.time, true]),
      );
      // the next block (and the transaction in it) is seen at the next poll of the daemon's height
      const next = await node.fund(address, 7_000_000n, 1);
      for (const deadline = Date.now() + 15_000; (await s.v2('my_tx_history', { coin: COIN })).body.result.total < paid.length + 1; ) {
        assert.ok(Date.now() < deadline, 'the new block to be polled');
        clock.advance(10_000);
        await new Promise((r) => setTimeout(r, 50));
      }
      const now = await finished(paid.length + 1);
      assert.ok(now.transactions.some((t: any) => t.tx_hash === next && t.confirmations === 1));
      assert.equal(now.transactions.find((t: any) => t.tx_hash === paid[3]).confirmations, 1, 'the unconfirmed one was mined with it');
    } finally {
      await s.stop();
    }
  });
});
