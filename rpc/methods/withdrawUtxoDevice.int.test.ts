import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HDNodeWallet } from 'ethers';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { startEvmDevnet, startDeviceDouble, pinToPositions, TEST_MNEMONIC, type DeviceDouble, type EvmDevnet } from '../../devnet/index.ts';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { realCoinEntries } from '../../devnet/data/index.ts';
import { createTrezorConnectWallet } from '../../infra/hardware/trezorConnectWallet.ts';
import type { HardwareWallet } from '../../actors/ports/hardwareWallet.ts';
import { amountField } from '../../infra/utxo/daemonAmounts.ts';
import { nodeRpc } from '../../infra/utxo/daemonRpc.ts';
import { startStack, type Stack } from '../../devnet/testing/stack.ts';

/**
 * `task::withdraw` of a Trezor-activated LTC (the real coins entry, `trezor_coin: "Litecoin"`)
 * through the RPC: the device double signs it through the real @trezor/connect (`SignTx` rounds,
 * the previous transactions checked on the device, the user's confirmation), and litecoind regtest
 * accepts, mines, and pays the recipient.
 */

const PIN = '2718';
const keyAt = (index: number) => Buffer.from(HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, `m/44'/2'/0'/0/${index}`).publicKey.slice(2), 'hex');

let evm: EvmDevnet;
let node: Litecoind;
let server: ElectrumServer;
let device: DeviceDouble;
let wallet: HardwareWallet;
let stack: Stack;

before(async () => {
  [evm, node] = await Promise.all([startEvmDevnet(), startLitecoind()]);
  await node.fund(p2pkhAddress(Buffer.from(btcCrypto.hash160(keyAt(0)))), 40_000_000n, 1);
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

/** Polls a task of `kind` until it ends, entering the PIN whenever the device asks; the final status and the prompts seen. */
async function run(kind: string, taskId: number): Promise<{ final: any; seen: string[] }> {
  const seen: string[] = [];
  for (let i = 0; i < 2400; i++) {
    const status = (await stack.v2(`task::${kind}::status`, { task_id: taskId, forget_if_finished: false })).body.result;
    const label = `${status.status}:${JSON.stringify(status.details)}`;
    if (seen.at(-1) !== label) seen.push(label);
    if (status.status === 'Ok' || status.status === 'Error') return { final: status, seen };
    if (status.status === 'UserActionRequired' && status.details === 'EnterTrezorPin') {
      await stack.v2(`task::${kind}::user_action`, { task_id: taskId, user_action: { action_type: 'TrezorPin', pin: pinToPositions(PIN) } });
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`task ${taskId} never ended`);
}

test('task::withdraw of a Trezor LTC: signed on the device double, accepted by litecoind, mined, the recipient holds the amount', async () => {
  const init = await stack.v2('task::enable_utxo::init', {
    ticker: 'LTC',
    activation_params: {
      priv_key_policy: 'Trezor',
      min_addresses_number: 1,
      scan_policy: 'scan',
      gap_limit: 5,
      mode: { rpc: 'Electrum', rpc_data: { servers: [{ url: server.tcp!, protocol: 'TCP' }], max_connected: 1 } },
    },
  });
  assert.equal(init.status, 200, JSON.stringify(init.body));
  assert.equal((await run('enable_utxo', init.body.result.task_id)).final.status, 'Ok');

  const hash = randomBytes(20);
  const regtest = p2pkhAddress(hash);
  await node.rpc('importaddress', [regtest, '', false]);
  const to = payments.p2pkh({ hash, network: { pubKeyHash: 48 } as never }).address!; // LTC's own format (pubtype 48)
  const before = device.stats().byType.TxAck ?? 0;
  const withdraw = await stack.v2('task::withdraw::init', { coin: 'LTC', to, amount: '0.15' });
  assert.equal(withdraw.status, 200, JSON.stringify(withdraw.body));
  const { final, seen } = await run('withdraw', withdraw.body.result.task_id);
  assert.equal(final.status, 'Ok', JSON.stringify({ final, seen }));
  assert.ok((device.stats().byType.TxAck ?? 0) > before, 'the transaction went through the device');
  const details = final.details;
  assert.deepEqual(details.to, [to]);
  const [verdict] = await node.rpc<{ allowed: boolean; 'reject-reason'?: string }[]>('testmempoolaccept', [[details.tx_hex]]);
  assert.equal(verdict!.allowed, true, verdict!['reject-reason']);
  const sent = await stack.legacy('send_raw_transaction', { coin: 'LTC', tx_hex: details.tx_hex });
  assert.deepEqual(sent.body, { tx_hash: details.tx_hash });
  await node.mine(1);
  const unspent = await nodeRpc(node, { exactAmounts: true })<{ amount: unknown }[]>('listunspent', [1, 9_999_999, [regtest], true]);
  assert.equal(unspent.reduce((sum, u) => sum + amountField(u.amount), 0n), 15_000_000n);
});
