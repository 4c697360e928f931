import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { HDNodeWallet } from 'ethers';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { startEvmDevnet, startDeviceDouble, pinToPositions, TEST_MNEMONIC, type DeviceDouble, type EvmDevnet } from '../../devnet/index.ts';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { realCoinEntries } from '../../devnet/data/index.ts';
import { createTrezorConnectWallet } from '../../infra/hardware/trezorConnectWallet.ts';
import type { HardwareWallet } from '../../actors/ports/hardwareWallet.ts';
import { startStack, type Stack } from '../../devnet/testing/stack.ts';

/**
 * A Trezor wallet's UTXO coin as the reference's client activates it (`"priv_key_policy": "Trezor"`,
 * `"scan_policy": "scan"`), through the real @trezor/connect over UDP on 127.0.0.1 against the
 * device double, and the devnet Electrum server over a regtest litecoind: the device gives the
 * account's node once, the service derives and scans its addresses.
 */

const PIN = '31415926';
/** The double's seed, by ethers' private derivation: the LTC key at `m/44'/2'/0'/0/<index>`. */
const keyAt = (index: number) => Buffer.from(HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, `m/44'/2'/0'/0/${index}`).publicKey.slice(2), 'hex');
const ltcAddress = (index: number) => payments.p2pkh({ pubkey: keyAt(index), network: { pubKeyHash: 48 } as never }).address!;

let evm: EvmDevnet;
let node: Litecoind;
let server: ElectrumServer;
let device: DeviceDouble;
let wallet: HardwareWallet;
let stack: Stack;

before(async () => {
  [evm, node] = await Promise.all([startEvmDevnet(), startLitecoind()]);
  await node.fund(p2pkhAddress(Buffer.from(btcCrypto.hash160(keyAt(0)))), 40_000_000n, 1);
  await node.fund(p2pkhAddress(Buffer.from(btcCrypto.hash160(keyAt(2)))), 2_500_000n, 1);
  server = await startElectrumServer({ litecoind: node, evm, transports: ['TCP'] });
  device = await startDeviceDouble({ pin: PIN });
  wallet = createTrezorConnectWallet({ udpPort: device.port });
  stack = await startStack({
    extraCoins: await realCoinEntries(['LTC']),
    hardware: async () => wallet,
    config: { wire_names: 'reference' },
    taskTimeouts: { connectMs: 60_000, pinMs: 60_000, confirmMs: 60_000 },
  });
});
after(async () => {
  await stack?.stop();
  await wallet?.close();
  await device?.stop();
  await server?.stop();
  await Promise.all([node?.stop(), evm?.stop()]);
});

async function statusOf(taskId: number): Promise<any> {
  return (await stack.v2('task::enable_utxo::status', { task_id: taskId, forget_if_finished: false })).body.result;
}

async function until(taskId: number, done: (s: any) => boolean): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const s = await statusOf(taskId);
    if (done(s)) return s;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`task ${taskId} never reached the expected status`);
}

test('"Trezor" and "scan" through task::enable_utxo: TrezorPin, one account node from the device, the gap-limit scan over Electrum', async () => {
  const init = await stack.v2('task::enable_utxo::init', {
    ticker: 'LTC',
    activation_params: {
      required_confirmations: 2,
      requires_notarization: false,
      priv_key_policy: 'Trezor',
      min_addresses_number: 1,
      scan_policy: 'scan',
      gap_limit: 20,
      mode: { rpc: 'Electrum', rpc_data: { servers: [{ url: server.tcp!, protocol: 'TCP', disable_cert_verification: false }], max_connected: 1 } },
      tx_history: true,
      pubtype: 48,
      p2shtype: 50,
      wiftype: 176,
      max_connected: 1,
    },
  });
  assert.equal(init.status, 200, JSON.stringify(init.body));
  const taskId = init.body.result.task_id;
  assert.deepEqual(await until(taskId, (s) => s.status !== 'InProgress'), { status: 'UserActionRequired', details: 'EnterTrezorPin' });
  const action = await stack.v2('task::enable_utxo::user_action', { task_id: taskId, user_action: { action_type: 'TrezorPin', pin: pinToPositions(PIN) } });
  assert.equal(action.body.result, 'success', JSON.stringify(action.body));
  const done = await until(taskId, (s) => s.status === 'Ok' || s.status === 'Error');
  assert.equal(done.status, 'Ok', JSON.stringify(done));

  const account = done.details.wallet_balance.accounts[0];
  assert.equal(done.details.wallet_balance.wallet_type, 'HD');
  assert.equal(account.derivation_path, "m/44'/2'/0'");
  assert.deepEqual(
    account.addresses.map((a: any) => [a.address, a.derivation_path, a.balance.LTC.spendable]),
    [[ltcAddress(0), "m/44'/2'/0'/0/0", '0.4'], [ltcAddress(1), "m/44'/2'/0'/0/1", '0'], [ltcAddress(2), "m/44'/2'/0'/0/2", '0.025']],
  );
  assert.deepEqual(account.total_balance, { LTC: { spendable: '0.425', unspendable: '0' } });
  // The device was asked for the account's node only (connect checks it against its child 0), never per address.
  const asked = device.stats().byType;
  assert.equal(asked.GetPublicKey, 2, JSON.stringify(asked));
  assert.equal(asked.EthereumGetPublicKey, undefined);
  assert.equal((await stack.legacy('my_balance', { coin: 'LTC' })).body.address, ltcAddress(0));
});
