import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { refusedUrl } from '../../devnet/index.ts';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { fundImmatureCoinbase } from '../../devnet/litecoind/coinbaseFunding.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { formatAmount } from '../../spec/amount.ts';
import { legacyActivationResponse } from '../../spec/legacyElectrum.ts';
import { startStack, TEST_PASSPHRASE, type Stack } from '../../devnet/testing/stack.ts';

const FUNDED = 210_000_000n;
const PENDING = 3_000_001n;

let node: Litecoind;
let address: string;
let dir: string;

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'LTCN' });
  const hash160 = Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex');
  address = p2pkhAddress(hash160);
  node = await startLitecoind();
  await node.fund(address, FUNDED, 1);
  await fundImmatureCoinbase(node, hash160); // immature: listunspent leaves it out
  await node.fund(address, PENDING, 0);
  dir = await mkdtemp(join(tmpdir(), 'native-conf-'));
});
after(() => node?.stop());

/** A coins entry for the devnet daemon with `extra` fields. */
const entry = (coin: string, extra: Record<string, unknown>) => ({ coin, name: 'litecoin', mm2: 1, pubtype: 111, decimals: 8, network: 'regtest', protocol: { type: 'UTXO' }, ...extra });

async function confFile(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('legacy enable with a native daemon (litecoind regtest)', () => {
  let s: Stack;
  before(async () => {
    const conf = await readFile(node.confPath, 'utf8');
    const refused = new URL(await refusedUrl()).port;
    const withoutUser = conf.replace(/^rpcuser=.*$/m, '');
    const wrongPassword = conf.replace(/^rpcpassword=.*$/m, 'rpcpassword=not-the-password-4711');
    const noPort = conf.replace(/^rpcport=.*$/m, '');
    s = await startStack({
      extraCoins: [
        entry('LTCN', { confpath: node.confPath }),
        entry('LTC-DOWN', { confpath: await confFile('down.conf', `rpcuser=u\nrpcpassword=p\nrpcport=${refused}\n`) }),
        entry('LTC-NOFILE', { confpath: join(dir, 'missing.conf') }),
        entry('LTC-NOUSER', { confpath: await confFile('nouser.conf', withoutUser) }),
        entry('LTC-BADPW', { confpath: await confFile('badpw.conf', wrongPassword) }),
        entry('LTC-NOPORT', { confpath: await confFile('noport.conf', noPort) }),
        entry('LTC-PORT', { confpath: await confFile('port.conf', noPort), rpcport: node.rpcPort }),
        { coin: 'LTC-NONAME', mm2: 1, pubtype: 111, protocol: { type: 'UTXO' } },
      ],
    });
  });
  after(() => s.stop());

  test('an address the daemon does not watch is refused with how to import it (spec 1.5)', async () => {
    const { status, body } = await s.legacy('enable', { coin: 'LTCN' });
    assert.equal(status, 500);
    assert.equal(body.error, `LTCN: the address ${address} is not imported into the native daemon at 127.0.0.1:${node.rpcPort}; import it with importaddress "${address}" "" true (spec 1.5)`);
    assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
  });

  test('after importaddress: the spec 4.7 response with the listunspent balance', async () => {
    await node.rpc('importaddress', [address, '', true]);
    const { status, body } = await s.legacy('enable', { coin: 'LTCN' });
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(legacyActivationResponse.check(body));
    assert.deepEqual(body, {
      result: 'success',
      address,
      balance: formatAmount(FUNDED + PENDING, 8),
      unspendable_balance: '0',
      coin: 'LTCN',
      required_confirmations: 3,
      requires_notarization: false,
      mature_confirmations: 100,
    });
    assert.equal((await s.legacy('my_balance', { coin: 'LTCN' })).body.balance, formatAmount(FUNDED + PENDING, 8));
    assert.deepEqual((await s.legacy('enable', { coin: 'LTCN' })).body, { error: 'Coin LTCN already initialized' });
    const log = await readFile(join(s.dir, 'db', 'events.log'), 'utf8');
    assert.ok(log.includes('"via":"enable"'), 'the activation is in the event log');
    assert.ok(!log.includes(node.rpcPassword) && !log.includes(node.confPath), 'no daemon credentials or paths in the log');
  });

  test('the entry rpcport is the fallback when the config file has none', async () => {
    const { status, body } = await s.legacy('enable', { coin: 'LTC-PORT', required_confirmations: 7 });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.required_confirmations, 7);
  });

  const failures: [string, string, (body: string) => void][] = [
    ['LTC-DOWN', 'the daemon is down', (e) => assert.match(e, /^Failed to connect to the native daemon of LTC-DOWN at 127\.0\.0\.1:\d+: .*ECONNREFUSED/)],
    ['LTC-NOFILE', 'the config file is missing', (e) => assert.equal(e, `Error parsing the native wallet configuration '${join(dir, 'missing.conf')}': ENOENT`)],
    ['LTC-NOUSER', 'no rpcuser', (e) => assert.match(e, /^Conf file .*nouser\.conf doesn't have the rpcuser key$/)],
    ['LTC-BADPW', 'a wrong password (never echoed)', (e) => {
      assert.match(e, /^Failed to connect to the native daemon of LTC-BADPW at 127\.0\.0\.1:\d+: .*HTTP 401/);
      assert.doesNotMatch(e, /not-the-password-4711/);
    }],
    ['LTC-NOPORT', 'no port anywhere', (e) => assert.equal(e, 'Rpc port is not set neither in `coins` file nor in native daemon config')],
    ['LTC-NONAME', 'neither confpath nor name', (e) => assert.equal(e, "LTC-NONAME: the coins file sets neither confpath nor name, so the daemon's config file cannot be found")],
  ];
  for (const [coin, name, check] of failures) {
    test(name, async () => {
      const { status, body } = await s.legacy('enable', { coin });
      assert.equal(status, 500, JSON.stringify(body));
      assert.deepEqual(Object.keys(body), ['error']);
      check(body.error);
      const enabled = (await s.v2('get_enabled_coins')).body.result.coins.map((c: { ticker: string }) => c.ticker);
      assert.ok(!enabled.includes(coin));
    });
  }

  test('address_format is read as electrum reads it: a switch to segwit is refused before the daemon is asked', async () => {
    const refused = await s.legacy('enable', { coin: 'LTC-DOWN', address_format: { format: 'segwit' } });
    assert.equal(refused.status, 500);
    assert.deepEqual(refused.body, { error: "LTC-DOWN: address_format segwit cannot replace the coins file's standard: both must be segwit, or both standard/cashaddress" });
    const badPrefix = await s.legacy('enable', { coin: 'LTC-DOWN', address_format: { format: 'cashaddress', network: 'no such' } });
    assert.match(badPrefix.body.error, /^LTC-DOWN: address_format network "no such" is not a CashAddr prefix/);
    // An accepted format goes on to the daemon (which is down).
    const accepted = await s.legacy('enable', { coin: 'LTC-DOWN', address_format: { format: 'standard' } });
    assert.match(accepted.body.error, /^Failed to connect to the native daemon of LTC-DOWN/);
  });

  test('utxo_merge_params is validated, then refused before the daemon is asked', async () => {
    // LTC-DOWN's daemon refuses connections: a request that got that far would say so.
    for (const [fields, message] of [
      [{ utxo_merge_params: { merge_at: 'many' } }, 'Error parsing request: utxo_merge_params.merge_at: Expected integer'],
      [{ utxo_merge_params: { merge_at: 50 } }, /^utxo_merge_params is not supported: merging UTXOs means signing and broadcasting transactions/],
    ] as const) {
      const { status, body } = await s.legacy('enable', { coin: 'LTC-DOWN', ...fields });
      assert.equal(status, 500, JSON.stringify(body));
      assert.deepEqual(Object.keys(body), ['error']);
      if (typeof message === 'string') assert.equal(body.error, message);
      else assert.match(body.error, message);
    }
    assert.equal((await s.v2('get_enabled_coins')).body.result.coins.some((c: { ticker: string }) => c.ticker === 'LTC-DOWN'), false);
  });
});
