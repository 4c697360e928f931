import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { evmAddress } from '../../infra/keys/index.ts';
import { startStack, startTestDevnet, SWAP_CONTRACT, type Stack } from '../../devnet/testing/stack.ts';
import type { EvmDevnet } from '../../devnet/index.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const LTC = { coin: 'LTCH', mm2: 1, pubtype: 111, decimals: 8, derivation_path: "m/44'/2'", protocol: { type: 'UTXO' } };
const keys = createHdKeyProvider(MNEMONIC);
const ltcAddress = async (addressId: number) =>
  p2pkhAddress(btcCrypto.hash160(Buffer.from((await keys.publicKey(LTC, { accountId: 0, chain: 'External', addressId })).compressed)));

let node: Litecoind;
let electrum: ElectrumServer;
let devnet: EvmDevnet;
let s: Stack;

before(async () => {
  [node, devnet] = await Promise.all([startLitecoind(), startTestDevnet()]);
  await node.fund(await ltcAddress(0), 100_000_000n, 1);
  await node.fund(await ltcAddress(3), 300_000_000n, 1);
  electrum = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
  s = await startStack({
    devnet,
    config: { enable_hd: true, passphrase: MNEMONIC },
    extraCoins: [LTC, { ...LTC, coin: 'LTC-NOPATH', derivation_path: undefined }],
  });
});
after(async () => {
  await s?.stop();
  await electrum?.stop();
  await node?.stop();
  await devnet?.stop();
});

describe('legacy methods in HD mode', () => {
  test('electrum activates the address at account 0 / External / 0 by default; my_balance and get_enabled_coins follow it', async () => {
    const { status, body } = await s.legacy('electrum', { coin: 'LTCH', servers: [{ url: electrum.tcp, protocol: 'TCP' }] });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.address, await ltcAddress(0));
    assert.equal(body.balance, '1');
    assert.deepEqual((await s.legacy('my_balance', { coin: 'LTCH' })).body, { coin: 'LTCH', balance: '1', unspendable_balance: '0', address: await ltcAddress(0) });
    assert.deepEqual((await s.legacy('get_enabled_coins')).body.result.find((c: any) => c.ticker === 'LTCH'), { ticker: 'LTCH', address: await ltcAddress(0) });
    await s.legacy('disable_coin', { coin: 'LTCH' });
  });

  test('path_to_address picks another address (parts or full path)', async () => {
    const byParts = await s.legacy('electrum', { coin: 'LTCH', servers: [{ url: electrum.tcp, protocol: 'TCP' }], path_to_address: { account_id: 0, chain: 'External', address_id: 3 } });
    assert.equal(byParts.body.address, await ltcAddress(3));
    assert.equal(byParts.body.balance, '3');
    assert.equal((await s.legacy('my_balance', { coin: 'LTCH' })).body.balance, '3');
    await s.legacy('disable_coin', { coin: 'LTCH' });
    const byPath = await s.legacy('electrum', { coin: 'LTCH', servers: [{ url: electrum.tcp, protocol: 'TCP' }], path_to_address: { derivation_path: "m/44'/2'/0'/0/3" } });
    assert.equal(byPath.body.address, await ltcAddress(3));
    await s.legacy('disable_coin', { coin: 'LTCH' });
  });

  test('a coin without derivation_path is refused, naming the coin', async () => {
    const { status, body } = await s.legacy('electrum', { coin: 'LTC-NOPATH', servers: [{ url: electrum.tcp, protocol: 'TCP' }] });
    assert.equal(status, 500);
    assert.match(body.error, /LTC-NOPATH.*derivation_path/);
  });

  test('legacy EVM enable uses the HD address too', async () => {
    const expected = evmAddress(await keys.publicKey({ coin: 'ETH', derivation_path: "m/44'/60'" }));
    const { status, body } = await s.legacy('enable', { coin: 'ETH', urls: [devnet.url], swap_contract_address: SWAP_CONTRACT });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.address, expected);
    await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
  });
});
