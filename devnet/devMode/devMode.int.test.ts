import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evmToTronBase58 } from '../../infra/keys/index.ts';
import { startDevMode } from './devMode.ts';

/** The JSON bodies of the banner's `curl ... -d '<json>'` lines, as a newcomer would paste them. */
function curlBodies(banner: string): { url: string; body: string }[] {
  return [...banner.matchAll(/curl -s (\S+) -d '(.+)'$/gm)].map((m) => ({ url: m[1]!, body: m[2]! }));
}

test('dev mode serves a devnet and prints curl commands that activate ETH with tokens', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'devmode-'));
  const dev = await startDevMode({ dir, listenPort: 0, devnetPort: 0, tronPort: 0, electrumPort: 0 });
  try {
    const curls = curlBodies(dev.banner.replaceAll('http://127.0.0.1:7783', dev.service.url));
    assert.equal(curls.length, 5);
    const call = async (i: number) => (await fetch(curls[i]!.url, { method: 'POST', body: curls[i]!.body })).json() as Promise<any>;
    const activated = await call(0);
    const infos = activated.result.erc20_addresses_infos[dev.address];
    assert.deepEqual(infos.balances, {
      'USDT-ERC20': { spendable: '25000', unspendable: '0' },
      'DAI-ERC20': { spendable: '1500.5', unspendable: '0' },
    });
    assert.deepEqual(activated.result.eth_addresses_infos[dev.address].balances, { spendable: '10', unspendable: '0' });
    assert.deepEqual(
      Object.values(activated.result.nfts_infos).map((n: any) => `${n.contract_type} ${n.token_id} ${n.amount}`).sort(),
      ['ERC1155 1 5', 'ERC721 1 1'],
      'the NFTs dev mode minted to the wallet',
    );
    const trx = await call(1);
    const tronAddress = evmToTronBase58(dev.address);
    assert.deepEqual(trx.result.eth_addresses_infos[tronAddress].balances, { spendable: '10000000000000', unspendable: '0' });
    assert.deepEqual(trx.result.erc20_addresses_infos[tronAddress].balances, { 'USDT-TRC20': { spendable: '25000', unspendable: '0' } });
    assert.match(dev.banner, new RegExp(`${tronAddress} on TRON`));
    assert.ok(dev.utxo.running, 'litecoind is installed here (npm test installs it)');
    const ltc = await call(2);
    assert.deepEqual(ltc, {
      result: 'success',
      address: dev.utxo.address,
      balance: '12.5',
      unspendable_balance: '0',
      coin: 'LTC',
      required_confirmations: 3,
      requires_notarization: false,
      mature_confirmations: 100,
    });
    const enabled = await call(3);
    assert.deepEqual(enabled.result.map((c: { ticker: string }) => c.ticker).sort(), ['DAI-ERC20', 'ETH', 'LTC', 'TRX', 'USDT-ERC20', 'USDT-TRC20']);
    assert.deepEqual(await call(4), { coin: 'USDT-ERC20', balance: '25000', unspendable_balance: '0', address: dev.address });
    const conf = JSON.parse(await readFile(join(dir, 'MM2.json'), 'utf8'));
    assert.equal(conf.rpc_password, dev.password);
  } finally {
    await dev.stop();
  }
  // a second start in the same folder keeps the password and wallet
  const again = await startDevMode({ dir, listenPort: 0, devnetPort: 0, tronPort: 0, electrumPort: 0 });
  try {
    assert.equal(again.password, JSON.parse(await readFile(join(dir, 'MM2.json'), 'utf8')).rpc_password);
  } finally {
    await again.stop();
  }
});
