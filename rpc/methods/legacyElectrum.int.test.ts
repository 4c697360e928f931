import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { refusedUrl, startEvmDevnet, type EvmDevnet } from '../../devnet/index.ts';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { fundImmatureCoinbase } from '../../devnet/litecoind/coinbaseFunding.ts';
import { LITECOIN_REGTEST, p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { devnetTls } from '../../devnet/electrum/devnetTls.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { formatAmount } from '../../spec/amount.ts';
import { legacyActivationResponse } from '../../spec/legacyElectrum.ts';
import { startStack, TEST_PASSPHRASE, type Stack } from '../../devnet/testing/stack.ts';
import { eventually } from '../../devnet/testing/tasks.ts';

const COIN = 'LTCR';
const FUNDED = 150_000_000n; // 1.5 LTC, confirmed
const PENDING = 25_000_000n; // 0.25 LTC, in the mempool

let node: Litecoind;
let evm: EvmDevnet;
let server: ElectrumServer;
let untrusted: ElectrumServer;
let hash160: string;
let address: string;
let coinbase: bigint;
let caFile: string;
let segwitAddress: string;
const SEGWIT_FUNDED = 33_000_001n;

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: COIN });
  hash160 = Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex');
  address = p2pkhAddress(hash160);
  [node, evm] = await Promise.all([
    startLitecoind(),
    startEvmDevnet({ tokens: [{ symbol: 'QTOK', decimals: 6, mint: [{ address: `0x${hash160}`, amount: 7_654_321n }] }] }),
  ]);
  await node.fund(address, FUNDED, 1);
  coinbase = (await fundImmatureCoinbase(node, hash160)).litoshis;
  segwitAddress = payments.p2wpkh({ hash: Buffer.from(hash160, 'hex'), network: LITECOIN_REGTEST }).address!;
  await node.fund(segwitAddress, SEGWIT_FUNDED, 1);
  await node.fund(address, PENDING, 0);
  server = await startElectrumServer({ litecoind: node, evm });
  untrusted = await startElectrumServer({ litecoind: node, tls: devnetTls().untrusted, transports: ['SSL'] });
  caFile = join(await mkdtemp(join(tmpdir(), 'electrum-ca-')), 'ca.pem');
  await writeFile(caFile, devnetTls().ca);
});
after(async () => {
  await Promise.all([server?.stop(), untrusted?.stop()]);
  await Promise.all([node?.stop(), evm?.stop()]);
});

const COINS = () => [
  { coin: COIN, name: 'litecoin', mm2: 1, pubtype: 111, decimals: 8, protocol: { type: 'UTXO' } },
  { coin: 'QTUMR', mm2: 1, pubtype: 120, decimals: 8, protocol: { type: 'QTUM' } },
  { coin: 'LTCW', mm2: 1, pubtype: 111, segwit: true, bech32_hrp: 'rltc', address_format: { format: 'segwit' }, decimals: 8, protocol: { type: 'UTXO' } },
  // a CashAddr prefix beyond spec 2.3's three, as eCash's entry has it (the chain read is by script)
  { coin: 'XECR', mm2: 1, address_format: { format: 'cashaddress', network: 'ecash' }, decimals: 8, protocol: { type: 'UTXO' } },
  { coin: 'QTOK-QRC20', mm2: 1, pubtype: 120, protocol: { type: 'QRC20', protocol_data: { platform: 'QTUMR', contract_address: evm.tokens[0]!.address } } },
];

function stack(options: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  return startStack({ extraCoins: COINS(), config: { electrum: { ca_file: caFile } }, ...options });
}

const tcp = () => ({ url: server.tcp!, protocol: 'TCP' });

describe('legacy electrum against the devnet Electrum server (litecoind regtest)', () => {
  test('TCP: the spec 4.6 response, balances exactly what the chain holds, immature coinbase unspendable', async () => {
    const s = await stack();
    try {
      const { status, body } = await s.legacy('electrum', { coin: COIN, servers: [tcp()] });
      assert.equal(status, 200, JSON.stringify(body));
      assert.ok(legacyActivationResponse.check(body), JSON.stringify(legacyActivationResponse.firstProblem(body)));
      assert.deepEqual(Object.keys(body), ['result', 'address', 'balance', 'unspendable_balance', 'coin', 'required_confirmations', 'requires_notarization', 'mature_confirmations']);
      assert.deepEqual(body, {
        result: 'success',
        address,
        balance: formatAmount(FUNDED + PENDING, 8),
        unspendable_balance: formatAmount(coinbase, 8),
        coin: COIN,
        required_confirmations: 3,
        requires_notarization: false,
        mature_confirmations: 100,
      });
      assert.deepEqual((await s.legacy('get_enabled_coins')).body.result, [{ ticker: COIN, address }]);
      // the defaults of min_connected (1) and max_connected (every server given) are kept and shown
      assert.deepEqual((await s.v2('coin_status', { ticker: COIN })).body.result.electrum_connections, { min_connected: 1, max_connected: 1 });
      assert.deepEqual((await s.legacy('my_balance', { coin: COIN })).body, {
        coin: COIN,
        balance: formatAmount(FUNDED + PENDING, 8),
        unspendable_balance: formatAmount(coinbase, 8),
        address,
      });
      const again = await s.legacy('electrum', { coin: COIN, servers: [tcp()] });
      assert.deepEqual(again.body, { error: `Coin ${COIN} already initialized` });
    } finally {
      await s.stop();
    }
  });

  test('null utxo_merge_params and the default path_to_address (what reference clients send with an Iguana key) activate the one address', async () => {
    const s = await stack();
    try {
      const defaultPath = { account_id: 0, chain: 'External', address_id: 0 };
      const { status, body } = await s.legacy('electrum', { coin: COIN, servers: [tcp()], utxo_merge_params: null, path_to_address: defaultPath });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.address, address);
    } finally {
      await s.stop();
    }
  });

  test('a segwit entry activates its bech32 P2WPKH address with that script\'s balance', async () => {
    const s = await stack();
    try {
      const { status, body } = await s.legacy('electrum', { coin: 'LTCW', servers: [tcp()] });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.address, segwitAddress);
      assert.match(segwitAddress, /^rltc1q/);
      assert.equal(body.balance, formatAmount(SEGWIT_FUNDED, 8));
      // the request's address_format overrides the entry: the same key's P2PKH address and balance
      const legacyFormat = await s.legacy('electrum', { coin: COIN, servers: [tcp()], address_format: { format: 'standard' } });
      assert.equal(legacyFormat.body.address, address);
    } finally {
      await s.stop();
    }
  });

  test('an entry with the CashAddr prefix ecash activates, shown as ecash:<payload>, with its P2PKH balance', async () => {
    const s = await stack();
    try {
      const { status, body } = await s.legacy('electrum', { coin: 'XECR', servers: [tcp()] });
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.address, /^ecash:q[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{41}$/);
      assert.equal(body.balance, formatAmount(FUNDED + PENDING, 8));
      assert.deepEqual((await s.legacy('my_balance', { coin: 'XECR' })).body.address, body.address);
    } finally {
      await s.stop();
    }
  });

  test('SSL verifies the certificate (trusted through electrum.ca_file) and WSS works', async () => {
    const s = await stack();
    try {
      for (const [coin, srv] of [[COIN, { url: server.ssl!, protocol: 'SSL' }], ['QTUMR', { url: server.wss!, protocol: 'WSS' }]] as const) {
        const { status, body } = await s.legacy('electrum', { coin, servers: [srv] });
        assert.equal(status, 200, `${srv.protocol}: ${JSON.stringify(body)}`);
        assert.equal(body.balance, formatAmount(FUNDED + PENDING, 8), srv.protocol);
      }
    } finally {
      await s.stop();
    }
  });

  test('a certificate that does not verify is refused by default, accepted only with disable_cert_verification', async () => {
    const s = await stack();
    try {
      const refused = await s.legacy('electrum', { coin: COIN, servers: [{ url: untrusted.ssl!, protocol: 'SSL' }] });
      assert.equal(refused.status, 500);
      assert.match(refused.body.error, new RegExp(`^All electrum servers for ${COIN} are unavailable: ${untrusted.ssl} \\(SSL\\): .*self-signed certificate`));
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
      const optOut = await s.legacy('electrum', { coin: COIN, servers: [{ url: untrusted.ssl!, protocol: 'SSL', disable_cert_verification: true }] });
      assert.equal(optOut.status, 200, JSON.stringify(optOut.body));
    } finally {
      await s.stop();
    }
    // without the CA configured the devnet's own (CA-signed) certificate does not verify either
    const plain = await startStack({ extraCoins: COINS() });
    try {
      const { body } = await plain.legacy('electrum', { coin: COIN, servers: [{ url: server.ssl!, protocol: 'SSL' }] });
      assert.match(body.error, /unavailable: .*unable to (get local issuer|verify)/);
    } finally {
      await plain.stop();
    }
  });

  test('failover: a refusing and a silent server cost no more than the stagger, not the request timeout', async () => {
    const clock = new ManualClock();
    const [refusing, silent] = await Promise.all([startElectrumServer({ litecoind: node, transports: ['TCP'], mode: 'refuse' }), startElectrumServer({ litecoind: node, transports: ['TCP'], mode: 'silent' })]);
    const s = await stack({ clock });
    try {
      const pending = s.legacy('electrum', { coin: COIN, servers: [{ url: refusing.tcp!, protocol: 'TCP' }, { url: silent.tcp!, protocol: 'TCP' }, tcp()] });
      await eventually(() => silent.connections() === 1, 'the silent server to be tried');
      clock.advance(250); // the stagger: the third server is tried while the silent one still hangs
      const { status, body } = await pending;
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.balance, formatAmount(FUNDED + PENDING, 8));
    } finally {
      await s.stop();
      await Promise.all([refusing.stop(), silent.stop()]);
    }
  });

  test('failover with max_connected 1: a silent server holds the request exactly one request timeout', async () => {
    const clock = new ManualClock();
    const silent = await startElectrumServer({ litecoind: node, transports: ['TCP'], mode: 'silent' });
    const s = await stack({ clock, utxoOptions: { requestTimeoutMs: 20_000 } });
    try {
      let settled = false;
      const pending = s.legacy('electrum', { coin: COIN, servers: [{ url: silent.tcp!, protocol: 'TCP' }, tcp()], max_connected: 1 }).finally(() => (settled = true));
      await eventually(() => silent.connections() === 1, 'the silent server to be tried');
      clock.advance(19_999);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(settled, false, 'still waiting on the silent server');
      clock.advance(1);
      const { status, body } = await pending;
      assert.equal(status, 200, JSON.stringify(body));
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('min_connected keeps that many connections open; disable_coin closes them', async () => {
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => startElectrumServer({ litecoind: node, transports: ['TCP'] })));
    const s = await stack();
    try {
      const servers = [a!, b!, c!].map((x) => ({ url: x.tcp!, protocol: 'TCP' }));
      const { status, body } = await s.legacy('electrum', { coin: COIN, servers, min_connected: 2, max_connected: 2 });
      assert.equal(status, 200, JSON.stringify(body));
      await eventually(() => a!.connections() === 1 && b!.connections() === 1, 'two connections, in priority order');
      assert.equal(c!.connections(), 0, 'max_connected 2: the third server is not used');
      // kept as the coin's settings: coin_status, and CoinActivated (so the KV value and a replay)
      assert.deepEqual((await s.v2('coin_status', { ticker: COIN })).body.result.electrum_connections, { min_connected: 2, max_connected: 2 });
      let settings: unknown;
      for await (const e of s.service.log.read()) if (e.type === 'CoinActivated') settings = e.data.settings?.electrumConnections;
      assert.deepEqual(settings, { minConnected: 2, maxConnected: 2 });
      assert.deepEqual((await s.legacy('disable_coin', { coin: COIN })).body, { result: { coin: COIN, cancelled_orders: [], passivized: false } });
      await eventually(() => a!.openSessions() === 0 && b!.openSessions() === 0, 'both connections closed by disable_coin');
      // a fresh activation opens new connections: the old ones were closed, not reused
      await s.legacy('electrum', { coin: COIN, servers: servers.slice(0, 1) });
      assert.equal(a!.connections(), 2);
    } finally {
      await s.stop();
      await Promise.all([a!.stop(), b!.stop(), c!.stop()]);
    }
  });

  test('QRC20 over electrum: balanceOf through blockchain.contract.call, decimals read from the contract', async () => {
    const s = await stack();
    try {
      const { status, body } = await s.legacy('electrum', { coin: 'QTOK-QRC20', servers: [tcp()], swap_contract_address: '0x2f754733acd6d753731c00fee32cb484551cc15d', fallback_swap_contract: '0x2f754733acd6d753731c00fee32cb484551cc15d' });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.balance, '7.654321');
      assert.equal(body.unspendable_balance, '0');
      assert.equal(body.mature_confirmations, undefined);
      assert.ok(server.hits.includes('blockchain.contract.call'));
      const bad = await s.legacy('electrum', { coin: 'QTOK-QRC20', servers: [tcp()], swap_contract_address: 'nope' });
      assert.deepEqual(bad.body, { error: 'Coin QTOK-QRC20 already initialized' });
    } finally {
      await s.stop();
    }
  });

  test('all servers refused: the 7.2 message, nothing registered', async () => {
    const s = await stack();
    try {
      const dead = (await refusedUrl()).replace('http://', '');
      const { status, body } = await s.legacy('electrum', { coin: COIN, servers: [{ url: dead, protocol: 'TCP' }] });
      assert.equal(status, 500);
      assert.match(body.error, new RegExp(`^All electrum servers for ${COIN} are unavailable: ${dead} \\(TCP\\)`));
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
    } finally {
      await s.stop();
    }
  });
});
