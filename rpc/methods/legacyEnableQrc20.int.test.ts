import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { startEvmDevnet, type EvmDevnet } from '../../devnet/index.ts';
import { startQtumd, type Qtumd } from '../../devnet/qtumd/qtumd.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { legacyActivationResponse } from '../../spec/legacyElectrum.ts';
import { startStack, TEST_PASSPHRASE, type Stack } from '../../devnet/testing/stack.ts';

const OWNED = 7_654_321n;
const SWAP = '0x2f754733acd6d753731c00fee32cb484551cc15d';
const NOBODY = '0x000000000000000000000000000000000000dead';
/** Init code of a contract whose every call reverts: it deploys `PUSH1 0 PUSH1 0 REVERT`. */
const ALWAYS_REVERTS = '0x6460006000fd6000526005601bf3';

let evm: EvmDevnet;
let qtumd: Qtumd;
let token: string;
let reverting: string;
let address: string;
let dir: string;

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'QTOK-QRC20' });
  const hash160 = Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed)));
  // Qtum testnet/regtest P2PKH (pubtype 120), computed with bitcoinjs
  address = payments.p2pkh({ hash: hash160, network: { messagePrefix: '', bech32: 'qcrt', bip32: { public: 0, private: 0 }, pubKeyHash: 120, scriptHash: 110, wif: 239 } }).address!;
  evm = await startEvmDevnet({ tokens: [{ symbol: 'QTOK', decimals: 6, mint: [{ address: `0x${hash160.toString('hex')}`, amount: OWNED }] }] });
  token = evm.tokens[0]!.address;
  const hash = (await evm.request('eth_sendTransaction', [{ from: evm.deployer, data: ALWAYS_REVERTS }])) as string;
  reverting = ((await evm.request('eth_getTransactionReceipt', [hash])) as { contractAddress: string }).contractAddress;
  qtumd = await startQtumd({ evm });
  dir = await mkdtemp(join(tmpdir(), 'qrc20-native-'));
});
after(async () => {
  await qtumd?.stop();
  await evm?.stop();
});

/** A QRC20 entry on the `QTUMN` platform with `extra` fields. */
const qrc20 = (coin: string, contract: string, extra: Record<string, unknown> = {}) => ({
  coin,
  mm2: 1,
  pubtype: 120,
  protocol: { type: 'QRC20', protocol_data: { platform: 'QTUMN', contract_address: contract } },
  ...extra,
});

describe('legacy enable of QRC20 tokens with a native Qtum daemon (the qtumd double over the EVM devnet)', () => {
  let s: Stack;
  before(async () => {
    const conf = await readFile(qtumd.confPath, 'utf8');
    const wrongPassword = join(dir, 'badpw.conf');
    await writeFile(wrongPassword, conf.replace(/^rpcpassword=.*$/m, 'rpcpassword=not-the-password-4711'));
    s = await startStack({
      devnet: evm,
      extraCoins: [
        { coin: 'QTUMN', name: 'qtum', mm2: 1, pubtype: 120, decimals: 8, confpath: qtumd.confPath, protocol: { type: 'QTUM' } },
        qrc20('QTOK-QRC20', token),
        qrc20('QDEC-QRC20', token, { decimals: 2 }),
        qrc20('QREV-QRC20', reverting, { decimals: 8 }),
        qrc20('QNONE-QRC20', NOBODY),
        qrc20('QBADPW-QRC20', token, { confpath: wrongPassword }),
      ],
    });
  });
  after(() => s.stop());

  const enabled = async () => (await s.v2('get_enabled_coins')).body.result.coins.map((c: { ticker: string }) => c.ticker);

  test('without swap_contract_address: refused naming the field, before any daemon call', async () => {
    const requests = qtumd.requests();
    const { status, body } = await s.legacy('enable', { coin: 'QTOK-QRC20' });
    assert.equal(status, 500);
    assert.deepEqual(body, { error: 'swap_contract_address: invalid type: null, expected a 0x-prefixed hex string with length of 40' });
    const bad = await s.legacy('enable', { coin: 'QTOK-QRC20', swap_contract_address: SWAP, fallback_swap_contract: SWAP.slice(2) });
    assert.deepEqual(bad.body, { error: 'fallback_swap_contract: 0x prefix is missing' });
    assert.equal(qtumd.requests(), requests, 'the daemon got no request');
    assert.deepEqual(await enabled(), []);
  });

  test('balanceOf and decimals() through callcontract: the spec 4.7 answer, no mature_confirmations', async () => {
    const hits = qtumd.hits.length;
    const { status, body } = await s.legacy('enable', { coin: 'QTOK-QRC20', swap_contract_address: SWAP });
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(legacyActivationResponse.check(body));
    assert.deepEqual(body, {
      result: 'success',
      address,
      balance: '7.654321',
      unspendable_balance: '0',
      coin: 'QTOK-QRC20',
      required_confirmations: 3,
      requires_notarization: false,
    });
    assert.deepEqual(qtumd.hits.slice(hits).sort(), ['callcontract', 'callcontract', 'getblockcount']);
    assert.deepEqual((await s.legacy('my_balance', { coin: 'QTOK-QRC20' })).body, { coin: 'QTOK-QRC20', balance: '7.654321', unspendable_balance: '0', address });
    assert.deepEqual(await enabled(), ['QTOK-QRC20']);
  });

  test("the coins file's decimals are used as they are: decimals() is not called", async () => {
    const hits = qtumd.hits.length;
    const { status, body } = await s.legacy('enable', { coin: 'QDEC-QRC20', swap_contract_address: SWAP, fallback_swap_contract: null });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.balance, '76543.21');
    assert.deepEqual(qtumd.hits.slice(hits).sort(), ['callcontract', 'getblockcount']);
  });

  const failures: [string, string, (error: string) => void][] = [
    ['QREV-QRC20', 'a contract call that reverts', (e) => assert.equal(e, `QREV-QRC20: token QREV-QRC20: balanceOf(address) failed on ${reverting.slice(2).toLowerCase()}: RevertInstruction`)],
    ['QNONE-QRC20', 'a contract that does not exist', (e) => assert.equal(e, `QNONE-QRC20: the native daemon at 127.0.0.1:${qtumd.rpcPort} refused callcontract: Address does not exist`)],
    ['QBADPW-QRC20', 'wrong credentials (never echoed)', (e) => {
      assert.match(e, new RegExp(`^Failed to connect to the native daemon of QBADPW-QRC20 at 127\\.0\\.0\\.1:${qtumd.rpcPort}: \\w+: HTTP 401$`));
      assert.doesNotMatch(e, /not-the-password-4711/);
    }],
  ];
  for (const [coin, name, check] of failures) {
    test(name, async () => {
      const { status, body } = await s.legacy('enable', { coin, swap_contract_address: SWAP });
      assert.equal(status, 500, JSON.stringify(body));
      assert.deepEqual(Object.keys(body), ['error']);
      check(body.error);
      assert.ok(!(await enabled()).includes(coin));
    });
  }
});
