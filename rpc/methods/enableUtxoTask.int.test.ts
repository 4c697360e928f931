import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { refusedUrl, startEvmDevnet, type EvmDevnet } from '../../devnet/index.ts';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { fundImmatureCoinbase } from '../../devnet/litecoind/coinbaseFunding.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { realCoinEntries } from '../../devnet/data/index.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { formatAmount } from '../../spec/amount.ts';
import { standaloneActivationResult } from '../../spec/activationResult.ts';
import { startStack, TEST_PASSPHRASE, type Stack } from '../../devnet/testing/stack.ts';
import { FAKE_DEVICE_MNEMONIC, FakeHardwareWallet } from '../../devnet/hardware/fakeHardwareWallet.ts';
import { HDNodeWallet } from 'ethers';

/**
 * `task::enable_utxo::*` and `task::enable_qtum::*` with the reference client's own bodies
 * (its UTXO and QTUM requests, field for field) against the devnet Electrum server over a regtest
 * `litecoind`. The coins are the real coins file's LTC, KMD and QTUM entries: Electrum finds a
 * wallet by script, so mainnet address parameters read the regtest chain's outputs.
 */

const FUNDED = 150_000_000n; // 1.5, confirmed
const PENDING = 25_000_000n; // 0.25, in the mempool

let node: Litecoind;
let evm: EvmDevnet;
let server: ElectrumServer;
let hash160: Buffer;
let coinbase: bigint;
let realCoins: Record<string, unknown>[];

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'LTC' });
  hash160 = Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed)));
  [node, evm] = await Promise.all([startLitecoind(), startEvmDevnet()]);
  const regtest = p2pkhAddress(hash160);
  await node.fund(regtest, FUNDED, 1);
  coinbase = (await fundImmatureCoinbase(node, hash160.toString('hex'))).litoshis;
  await node.fund(regtest, PENDING, 0);
  server = await startElectrumServer({ litecoind: node, evm, transports: ['TCP'] });
  realCoins = await realCoinEntries(['LTC', 'KMD', 'QTUM']);
});
after(async () => {
  await server?.stop();
  await Promise.all([node?.stop(), evm?.stop()]);
});

/** The P2PKH address of the test key under `pubtype` (what a coins entry's address looks like). */
const addressFor = (pubtype: number): string => payments.p2pkh({ hash: hash160, network: { pubKeyHash: pubtype } as never }).address!;

function stack(options: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  return startStack({ extraCoins: realCoins, ...options });
}

const servers = () => [{ url: server.tcp!, protocol: 'TCP', disable_cert_verification: false }];

/** The client's `task::enable_utxo::init` params for LTC (client-requests section 5), on the devnet server. */
const ltcParams = () => ({
  ticker: 'LTC',
  activation_params: {
    required_confirmations: 2,
    requires_notarization: false,
    priv_key_policy: 'ContextPrivKey',
    min_addresses_number: 1,
    scan_policy: 'scan_if_new_wallet',
    gap_limit: 20,
    mode: { rpc: 'Electrum', rpc_data: { servers: servers(), max_connected: 1 } },
    tx_history: true,
    pubtype: 48,
    p2shtype: 50,
    wiftype: 176,
    max_connected: 1,
  },
});

/** The same body for KMD: its address parameters, `txversion` 4 and `overwintered` 1. */
const kmdParams = () => {
  const p = ltcParams();
  return { ticker: 'KMD', activation_params: { ...p.activation_params, pubtype: 60, p2shtype: 85, wiftype: 188, txversion: 4, overwintered: 1 } };
};

/** The client's `task::enable_qtum::init` params. */
const qtumParams = () => ({
  ticker: 'QTUM',
  activation_params: {
    required_confirmations: 3,
    requires_notarization: false,
    priv_key_policy: 'ContextPrivKey',
    mode: { rpc: 'Electrum', rpc_data: { servers: servers(), max_connected: 1 } },
  },
});

/** What the client sends: no `id`, v2 envelope, `userpass` (the stack adds it). */
async function init(s: Stack, kind: string, params: unknown): Promise<{ status: number; body: any }> {
  return s.v2(`task::${kind}::init`, params);
}

/** Polls `status` every few ms as the client does (it sends `forget_if_finished` itself) until it is final. */
async function until(s: Stack, kind: string, taskId: number, forget?: boolean): Promise<{ seen: string[]; result: any }> {
  const seen: string[] = [];
  const deadline = Date.now() + 15_000;
  for (;;) {
    const params = forget === undefined ? { task_id: taskId } : { task_id: taskId, forget_if_finished: forget };
    const { status, body } = await s.v2(`task::${kind}::status`, params);
    assert.equal(status, 200, JSON.stringify(body));
    const label = typeof body.result.details === 'string' ? `${body.result.status}/${body.result.details}` : body.result.status;
    if (seen.at(-1) !== label) seen.push(label);
    if (body.result.status === 'Ok' || body.result.status === 'Error') return { seen, result: body.result };
    if (Date.now() > deadline) throw new Error(`task ${taskId} saw ${seen.join(' → ')}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const balance = (spendable: bigint, unspendable: bigint) => ({ spendable: formatAmount(spendable, 8), unspendable: formatAmount(unspendable, 8) });

describe('task::enable_utxo and task::enable_qtum over Electrum (devnet litecoind)', () => {
  test('LTC and KMD with the client\'s bodies: task ids, the spec 3.2 steps, the reference\'s Ok shape with exact balances', async () => {
    const s = await stack();
    try {
      const ltc = await init(s, 'enable_utxo', ltcParams());
      assert.equal(ltc.status, 200, JSON.stringify(ltc.body));
      assert.equal(ltc.body.mmrpc, '2.0');
      assert.equal(typeof ltc.body.result.task_id, 'number');
      const kmd = await init(s, 'enable_utxo', kmdParams());
      assert.equal(kmd.status, 200, JSON.stringify(kmd.body));
      assert.equal(kmd.body.result.task_id, ltc.body.result.task_id + 1);

      for (const [task, ticker, pubtype] of [[ltc, 'LTC', 48], [kmd, 'KMD', 60]] as const) {
        const { seen, result } = await until(s, 'enable_utxo', task.body.result.task_id, false);
        assert.equal(result.status, 'Ok', JSON.stringify(result));
        assert.ok(standaloneActivationResult.check(result.details), JSON.stringify(standaloneActivationResult.firstProblem(result.details)));
        assert.deepEqual(result.details, {
          ticker,
          current_block: await node.rpc<number>('getblockcount'),
          wallet_balance: { wallet_type: 'Iguana', address: addressFor(pubtype), balance: { [ticker]: balance(FUNDED + PENDING, coinbase) } },
        });
        assert.deepEqual(Object.keys(result.details), ['ticker', 'current_block', 'wallet_balance']);
        assert.equal(seen.at(-1), 'Ok');
        for (const step of seen.slice(0, -1)) assert.ok(['InProgress/ActivatingCoin', 'InProgress/RequestingWalletBalance', 'InProgress/Finishing'].includes(step), step);
      }
      const enabled = (await s.v2('get_enabled_coins')).body.result.coins.map((c: { ticker: string }) => c.ticker).sort();
      assert.deepEqual(enabled, ['KMD', 'LTC']);
      // the settings the body decided are kept: confirmations 2, tx_history, one server
      const ltcStatus = (await s.v2('coin_status', { ticker: 'LTC' })).body.result;
      assert.equal(ltcStatus.required_confirmations, 2);
      assert.equal(ltcStatus.tx_history, true);
      assert.deepEqual(ltcStatus.electrum_connections, { min_connected: 1, max_connected: 1 });
      assert.deepEqual((await s.legacy('my_balance', { coin: 'LTC' })).body, {
        coin: 'LTC',
        balance: formatAmount(FUNDED + PENDING, 8),
        unspendable_balance: formatAmount(coinbase, 8),
        address: addressFor(48),
      });
      // a second init of an active coin: the reference's CoinIsAlreadyActivated, at once
      const again = await init(s, 'enable_utxo', ltcParams());
      assert.equal(again.status, 400);
      assert.equal(again.body.error_type, 'CoinIsAlreadyActivated');
      assert.equal(again.body.error, 'Coin LTC is activated already');
      assert.deepEqual(again.body.error_data, { ticker: 'LTC' });
    } finally {
      await s.stop();
    }
  });

  test('QTUM through task::enable_qtum with the client\'s body; its status forgets by default, as the client relies on', async () => {
    const s = await stack();
    try {
      const { status, body } = await init(s, 'enable_qtum', qtumParams());
      assert.equal(status, 200, JSON.stringify(body));
      const id = body.result.task_id;
      // the client polls QTUM with the default forget_if_finished (true)
      const { result } = await until(s, 'enable_qtum', id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.deepEqual(result.details.wallet_balance, { wallet_type: 'Iguana', address: addressFor(58), balance: { QTUM: balance(FUNDED + PENDING, coinbase) } });
      const gone = await s.v2('task::enable_qtum::status', { task_id: id });
      assert.equal(gone.body.error_type, 'NoSuchTask');
      // one kind's task is not another kind's: enable_utxo status of a qtum task
      const other = await init(s, 'enable_utxo', { ...ltcParams() });
      const otherId = other.body.result.task_id;
      assert.equal((await s.v2('task::enable_qtum::status', { task_id: otherId })).body.error_type, 'NoSuchTask');
      assert.equal((await s.v2('task::enable_eth::status', { task_id: otherId })).body.error_type, 'NoSuchTask');
      assert.equal((await until(s, 'enable_utxo', otherId, false)).result.status, 'Ok');
      // QTUM through enable_utxo, LTC through enable_qtum: the reference's UnexpectedCoinProtocol
      assert.equal((await s.legacy('disable_coin', { coin: 'QTUM' })).status, 200);
      const wrong = await init(s, 'enable_utxo', { ...qtumParams() });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error_type, 'UnexpectedCoinProtocol');
      assert.deepEqual(wrong.body.error_data, { ticker: 'QTUM', protocol: realCoins.find((c) => c.coin === 'QTUM')!.protocol });
    } finally {
      await s.stop();
    }
  });

  test('cancel while the servers are read; one coin, one activation across task::enable_utxo and legacy electrum, both ways', async () => {
    const silent = await startElectrumServer({ litecoind: node, transports: ['TCP'], mode: 'silent' });
    const s = await stack();
    try {
      const hanging = ltcParams();
      hanging.activation_params.mode.rpc_data.servers = [{ url: silent.tcp!, protocol: 'TCP', disable_cert_verification: false }];
      const { body } = await init(s, 'enable_utxo', hanging);
      const id = body.result.task_id;
      await waitFor(() => silent.connections() === 1, 'the silent server to be asked');
      // while the task runs, legacy electrum of the same coin is "already initialized", and so is a second task
      assert.deepEqual((await s.legacy('electrum', { coin: 'LTC', servers: [{ url: server.tcp!, protocol: 'TCP' }] })).body, { error: 'Coin LTC already initialized' });
      assert.equal((await init(s, 'enable_utxo', ltcParams())).body.error_type, 'CoinIsAlreadyActivated');

      assert.deepEqual((await s.v2('task::enable_utxo::cancel', { task_id: id })).body.result, 'success');
      assert.equal((await s.v2('task::enable_utxo::status', { task_id: id })).body.error_type, 'NoSuchTask');
      const again = await s.v2('task::enable_utxo::cancel', { task_id: id });
      assert.equal(again.status, 404);
      assert.equal(again.body.error_type, 'NoSuchTask');
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);

      // the coin is free again: legacy electrum activates it, then the task is the one refused
      const legacy = await s.legacy('electrum', { coin: 'LTC', servers: [{ url: server.tcp!, protocol: 'TCP' }] });
      assert.equal(legacy.status, 200, JSON.stringify(legacy.body));
      const refused = await init(s, 'enable_utxo', ltcParams());
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error, 'Coin LTC is activated already');
      // a finished task cannot be cancelled
      const kmd = (await init(s, 'enable_utxo', kmdParams())).body.result.task_id;
      await until(s, 'enable_utxo', kmd, false);
      const finished = await s.v2('task::enable_utxo::cancel', { task_id: kmd });
      assert.equal(finished.body.error_type, 'TaskFinished');
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('bad input is refused at init by name, creating no task and activating nothing', async () => {
    const s = await stack();
    try {
      const cases: [string, (p: ReturnType<typeof ltcParams>) => unknown, RegExp][] = [
        ['a pubtype other than the coins file\'s', (p) => ({ ...p, activation_params: { ...p.activation_params, pubtype: 111 } }), /^params\.activation_params\.pubtype: 111 differs from LTC's 48/],
        ['a dust_amount other than the coins file\'s dust', (p) => ({ ...p, activation_params: { ...p.activation_params, dust_amount: 1 } }), /^params\.activation_params\.dust_amount: 1 differs from LTC's 5460/],
        ['txversion for a coin without one (default 1)', (p) => ({ ...p, activation_params: { ...p.activation_params, txversion: 4 } }), /^params\.activation_params\.txversion: 4 differs from LTC's 1/],
        ['a top-level max_connected other than rpc_data\'s', (p) => ({ ...p, activation_params: { ...p.activation_params, max_connected: 2 } }), /^params\.activation_params\.max_connected \(2\) differs from mode\.rpc_data\.max_connected \(1\)/],
        ['min_connected above max_connected', (p) => ({ ...p, activation_params: { ...p.activation_params, mode: { rpc: 'Electrum', rpc_data: { servers: servers(), min_connected: 2, max_connected: 1 } } } }), /^min_connected \(2\) must be <= max_connected \(1\)$/],
        ['a server that is not host:port', (p) => ({ ...p, activation_params: { ...p.activation_params, mode: { rpc: 'Electrum', rpc_data: { servers: [{ url: 'nope', protocol: 'TCP' }] } } } }), /^servers\[0\]\.url "nope": expected host:port$/],
        ['utxo_merge_params', (p) => ({ ...p, activation_params: { ...p.activation_params, utxo_merge_params: { merge_at: 10 } } }), /^utxo_merge_params is not supported/],
        ['an HD scan with an Iguana key', (p) => ({ ...p, activation_params: { ...p.activation_params, scan_policy: 'scan' } }), /scan_policy "scan": an Iguana key \(enable_hd false\) has one address per coin \(LTC\), with no address scan, so it would have no effect/],
        ['a priv_key_policy this build does not know', (p) => ({ ...p, activation_params: { ...p.activation_params, priv_key_policy: 'Ledger' } }), /^params\.activation_params\.priv_key_policy/],
      ];
      for (const [what, mutate, message] of cases) {
        const { status, body } = await init(s, 'enable_utxo', mutate(ltcParams()));
        assert.ok(status === 400 || status === 500, `${what}: ${status}`);
        assert.match(body.error_data ?? body.error, message, `${what}: ${JSON.stringify(body)}`);
        assert.ok(['InvalidRequest', 'UnexpectedDerivationMethod'].includes(body.error_type), `${what}: ${body.error_type}`);
      }
      const unknown = await init(s, 'enable_utxo', { ...ltcParams(), ticker: 'NOPE' });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error_type, 'CoinConfigIsNotFound');
      assert.equal(unknown.body.error, 'Coin NOPE config is not found');
      let created = 0;
      for await (const e of s.service.log.read()) if (e.type === 'TaskCreated') created++;
      assert.equal(created, 0, 'no task was created');
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
      // and the good body then gets task id 0
      assert.equal((await init(s, 'enable_utxo', ltcParams())).body.result.task_id, 0);
    } finally {
      await s.stop();
    }
  });

  test('every server refused: the task ends Error with the transport error in details; nothing is enabled', async () => {
    const s = await stack();
    try {
      const dead = (await refusedUrl()).replace('http://', '');
      const p = ltcParams();
      p.activation_params.mode.rpc_data.servers = [{ url: dead, protocol: 'TCP', disable_cert_verification: false }];
      const id = (await init(s, 'enable_utxo', p)).body.result.task_id;
      const { result } = await until(s, 'enable_utxo', id, false);
      assert.equal(result.status, 'Error');
      assert.equal(result.details.error_type, 'Transport');
      assert.match(result.details.error, new RegExp(`^All electrum servers for LTC are unavailable: ${dead} \\(TCP\\)`));
      assert.deepEqual(Object.keys(result.details).sort(), ['error', 'error_data', 'error_path', 'error_trace', 'error_type']);
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
    } finally {
      await s.stop();
    }
  });
});

describe('task::enable_utxo with a native daemon (mode.rpc Native, devnet litecoind)', () => {
  test('the client body with mode Native reads the daemon\'s listunspent; rpc_data and max_connected are refused there by name', async () => {
    const entry = { coin: 'LTCN', name: 'litecoin', pubtype: 111, decimals: 8, network: 'regtest', protocol: { type: 'UTXO' }, confpath: node.confPath };
    const s = await startStack({ extraCoins: [entry] });
    try {
      const address = p2pkhAddress(hash160);
      await node.rpc('importaddress', [address, '', true]);
      const params = { ticker: 'LTCN', activation_params: { required_confirmations: 2, requires_notarization: false, priv_key_policy: 'ContextPrivKey', mode: { rpc: 'Native' }, tx_history: true, pubtype: 111 } };
      const refused = await init(s, 'enable_utxo', { ...params, activation_params: { ...params.activation_params, max_connected: 1 } });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error, /^params\.activation_params\.max_connected: a native daemon/);
      const withData = await init(s, 'enable_utxo', { ...params, activation_params: { ...params.activation_params, mode: { rpc: 'Native', rpc_data: { servers: [] } } } });
      assert.equal(withData.body.error_type, 'InvalidRequest');
      assert.match(withData.body.error_data, /rpc_data/);

      const { status, body } = await init(s, 'enable_utxo', params);
      assert.equal(status, 200, JSON.stringify(body));
      const { result } = await until(s, 'enable_utxo', body.result.task_id, false);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      // listunspent holds the confirmed, the pending and (mature or not) the coinbase outputs of the address
      const unspent = await node.rpc<{ amount: number }[]>('listunspent', [0, 9_999_999, [address]]);
      const expected = unspent.reduce((sum, u) => sum + BigInt(Math.round(u.amount * 1e8)), 0n);
      assert.deepEqual(result.details, {
        ticker: 'LTCN',
        current_block: await node.rpc<number>('getblockcount'),
        wallet_balance: { wallet_type: 'Iguana', address, balance: { LTCN: balance(expected, 0n) } },
      });
      assert.equal((await s.v2('coin_status', { ticker: 'LTCN' })).body.result.electrum_connections, undefined);
    } finally {
      await s.stop();
    }
  });
});

describe('task::enable_utxo with a hardware key (fake device)', () => {
  /** The device's LTC address at `m/44'/2'/0'/<chain>/<index>`, from its seed by ethers' private derivation (not the service's code). */
  const deviceAddress = (index: number, chain = 0) => {
    const key = HDNodeWallet.fromPhrase(FAKE_DEVICE_MNEMONIC, undefined, `m/44'/2'/0'/${chain}/${index}`);
    return payments.p2pkh({ pubkey: Buffer.from(key.publicKey.slice(2), 'hex'), network: { pubKeyHash: 48 } as never }).address!;
  };
  const scriptHash = (index: number) => Buffer.from(btcCrypto.hash160(Buffer.from(HDNodeWallet.fromPhrase(FAKE_DEVICE_MNEMONIC, undefined, `m/44'/2'/0'/0/${index}`).publicKey.slice(2), 'hex')));
  const hardwareParams = (fields: Record<string, unknown>) => {
    const params = ltcParams();
    return { ...params, activation_params: { ...params.activation_params, priv_key_policy: 'Hardware', ...fields } };
  };

  /** Runs one hardware task to its end: connects the device and enters its PIN when asked. */
  async function runHardwareTask(s: Stack, fake: FakeHardwareWallet, pin: string, fields: Record<string, unknown>): Promise<any> {
    const { body } = await init(s, 'enable_utxo', hardwareParams(fields));
    assert.equal(typeof body.result?.task_id, 'number', JSON.stringify(body));
    const id = body.result.task_id;
    const status = async () => (await s.v2('task::enable_utxo::status', { task_id: id, forget_if_finished: false })).body.result;
    await waitForAsync(async () => ['WaitingForHardwareToConnect', 'EnterHardwarePin'].includes((await status()).details), 'the device step');
    fake.connect();
    await waitForAsync(async () => (await status()).status === 'UserActionRequired', 'the PIN request');
    assert.deepEqual(await status(), { status: 'UserActionRequired', details: 'EnterHardwarePin' });
    const answer = await s.v2('task::enable_utxo::user_action', { task_id: id, user_action: { action_type: 'HardwarePin', pin } });
    assert.equal(answer.body.result, 'success');
    return (await until(s, 'enable_utxo', id, false)).result;
  }

  test('the device gives its account node once; the account is scanned with the gap limit like a mnemonic\'s (scan, then scan_if_new_wallet by the recorded count)', async () => {
    const fake = new FakeHardwareWallet({ pin: '1357' });
    await node.fund(p2pkhAddress(scriptHash(0)), 12_345_678n, 1);
    await node.fund(p2pkhAddress(scriptHash(3)), 1_000_000n, 1);
    const s = await stack({ hardware: async () => fake });
    try {
      const result = await runHardwareTask(s, fake, '1357', { scan_policy: 'scan', gap_limit: 20, min_addresses_number: 1 });
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      // One device call, for the account node, named by the coins file's trezor_coin; no address key.
      const deviceCalls = fake.calls.filter((c) => c.kind !== 'waitForDevice');
      assert.deepEqual(deviceCalls.map((c) => [c.kind, c.path, c.protocol, c.coinName]), [['accountPublicNode', "m/44'/2'/0'", 'bitcoin', 'Litecoin']]);
      const account = result.details.wallet_balance.accounts[0];
      assert.equal(result.details.wallet_balance.wallet_type, 'HD');
      assert.equal(account.derivation_path, "m/44'/2'/0'");
      assert.deepEqual(account.total_balance, { LTC: balance(13_345_678n, 0n) });
      // Used addresses 0 and 3 found by the scan: 0 … 3 listed, the gap after them read and not listed.
      assert.deepEqual(
        account.addresses.map((a: any) => [a.address, a.derivation_path, a.chain, a.balance.LTC.spendable]),
        [0, 1, 2, 3].map((i) => [deviceAddress(i), `m/44'/2'/0'/0/${i}`, 'External', formatAmount(i === 0 ? 12_345_678n : i === 3 ? 1_000_000n : 0n, 8)]),
      );
      assert.equal((await s.legacy('my_balance', { coin: 'LTC' })).body.address, deviceAddress(0));

      // A later activation of the same device wallet (scan_if_new_wallet) reads the recorded addresses, not beyond.
      await node.fund(p2pkhAddress(scriptHash(5)), 2_000_000n, 1);
      assert.equal((await s.legacy('disable_coin', { coin: 'LTC' })).status, 200);
      const again = await runHardwareTask(s, fake, '1357', { scan_policy: 'scan_if_new_wallet' });
      assert.equal(again.status, 'Ok', JSON.stringify(again));
      assert.deepEqual(again.details.wallet_balance.accounts[0].addresses.map((a: any) => a.address), [0, 1, 2, 3].map((i) => deviceAddress(i)));
      // …and `scan` finds the new one at 5.
      assert.equal((await s.legacy('disable_coin', { coin: 'LTC' })).status, 200);
      const scanned = await runHardwareTask(s, fake, '1357', { scan_policy: 'scan' });
      assert.deepEqual(scanned.details.wallet_balance.accounts[0].addresses.map((a: any) => a.address), [0, 1, 2, 3, 4, 5].map((i) => deviceAddress(i)));
    } finally {
      await s.stop();
    }
  });

  test('QTUM through task::enable_qtum with a hardware key: the same account scan, the node of m/44\'/2301\'/0\' asked by trezor_coin Qtum', async () => {
    const fake = new FakeHardwareWallet({ connected: true });
    const s = await stack({ hardware: async () => fake });
    try {
      const params = qtumParams();
      const { body } = await init(s, 'enable_qtum', { ...params, activation_params: { ...params.activation_params, priv_key_policy: 'Trezor', scan_policy: 'scan', gap_limit: 3 } });
      const { result } = await until(s, 'enable_qtum', body.result.task_id, false);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.deepEqual(fake.calls.filter((c) => c.kind === 'accountPublicNode').map((c) => [c.path, c.coinName]), [["m/44'/2301'/0'", 'Qtum']]);
      const key = HDNodeWallet.fromPhrase(FAKE_DEVICE_MNEMONIC, undefined, "m/44'/2301'/0'/0/0");
      const address = payments.p2pkh({ pubkey: Buffer.from(key.publicKey.slice(2), 'hex'), network: { pubKeyHash: 58 } as never }).address!;
      const account = result.details.wallet_balance.accounts[0];
      assert.equal(account.derivation_path, "m/44'/2301'/0'");
      assert.deepEqual(account.addresses.map((a: any) => a.address), [address], 'a new wallet: address 0 listed, the gap of 3 read');
    } finally {
      await s.stop();
    }
  });

  test('path_to_address and min_addresses_number have their meaning: the Internal chain, listed from 0 to the enabled address; a bad gap_limit is refused at init', async () => {
    const fake = new FakeHardwareWallet({ pin: '2468' });
    const s = await stack({ hardware: async () => fake });
    try {
      const result = await runHardwareTask(s, fake, '2468', { scan_policy: 'do_not_scan', min_addresses_number: 2, path_to_address: { account_id: 0, chain: 'Internal', address_id: 2 } });
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      const addresses = result.details.wallet_balance.accounts[0].addresses;
      assert.deepEqual(addresses.map((a: any) => [a.address, a.derivation_path, a.chain]), [0, 1, 2].map((i) => [deviceAddress(i, 1), `m/44'/2'/0'/1/${i}`, 'Internal']));
      assert.equal((await s.legacy('my_balance', { coin: 'LTC' })).body.address, deviceAddress(2, 1));
      assert.equal((await s.legacy('disable_coin', { coin: 'LTC' })).status, 200);
      const refused = await init(s, 'enable_utxo', hardwareParams({ scan_policy: 'scan', gap_limit: 0 }));
      assert.equal(refused.body.error_type, 'InvalidRequest', JSON.stringify(refused.body));
      assert.match(refused.body.error, /gap_limit/);
    } finally {
      await s.stop();
    }
  });
});

/** Resolves once the async `predicate` holds; fails after 5 s. */
async function waitForAsync(predicate: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Resolves once `predicate` holds; fails after 5 s. */
async function waitFor(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
