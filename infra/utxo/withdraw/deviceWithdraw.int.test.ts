/**
 * Proof for hardware UTXO signing: a withdrawal planned here, signed by the device double through
 * the real `@trezor/connect` (`SignTx` rounds, previous transactions checked by the device, PIN
 * entered, confirmed on the device), passes litecoind's `testmempoolaccept`, is mined, and the
 * recipient holds the amount. The coin is named `Testnet` to the device: Bitcoin testnet's P2PKH
 * version (0x6f) is Litecoin regtest's, and the legacy sighash is the same on both chains.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import { pinToPositions, startDeviceDouble, TEST_MNEMONIC, type DeviceDouble } from '../../../devnet/hardware/deviceDouble.ts';
import { createDeviceKeys, parseBip32Path } from '../../../devnet/hardware/deviceKeys.ts';
import { startLitecoind, type Litecoind } from '../../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../../devnet/electrum/electrumServer.ts';
import { systemClock } from '../../../kernel/clock.ts';
import type { HardwareWallet } from '../../../actors/ports/hardwareWallet.ts';
import type { DeviceSigner } from '../../../actors/ports/withdraw.ts';
import { ElectrumPool } from '../../electrum/electrumPool.ts';
import { createTrezorConnectWallet } from '../../hardware/trezorConnectWallet.ts';
import { amountField } from '../daemonAmounts.ts';
import { nodeRpc } from '../daemonRpc.ts';
import { usePool } from '../electrumBackend.ts';
import type { UtxoAddressRule } from '../utxoAddress.ts';
import { deviceSignedWithdrawal } from './deviceSignTx.ts';
import { electrumWithdrawChain } from './electrumWithdrawChain.ts';

const PATH = "m/44'/1'/0'/0/0";
const PIN = '2468';
const ENTRY = { coin: 'LTCR', pubtype: 111, p2shtype: 58, decimals: 8, txfee: 2000, dust: 5460, trezor_coin: 'Testnet', protocol: { type: 'UTXO' } };
const RULE = { format: 'standard', pubtype: 111, taddr: 0, checksum: 'DoubleSha256' } as UtxoAddressRule;

let node: Litecoind;
let server: ElectrumServer;
let pool: ElectrumPool;
let double: DeviceDouble;
let wallet: HardwareWallet;
const senderKey = Uint8Array.from(Buffer.from(createDeviceKeys(TEST_MNEMONIC).publicNode(parseBip32Path(PATH)).node.public_key, 'hex'));

before(async () => {
  node = await startLitecoind();
  server = await startElectrumServer({ litecoind: node });
  pool = new ElectrumPool({ servers: [{ url: server.tcp!, protocol: 'TCP' }], minConnected: 1, maxConnected: 1, clock: systemClock, pingIntervalMs: 0 });
  double = await startDeviceDouble({ pin: PIN });
  wallet = createTrezorConnectWallet({ udpPort: double.port });
});
after(async () => {
  await wallet?.close();
  await double?.stop();
  pool?.close();
  await server?.stop();
  await node?.stop();
});

describe('UTXO withdrawal signed on the device double', () => {
  test('Given a P2PKH account on the device, When it withdraws with PIN and confirmation, Then litecoind accepts and mines it and the recipient holds the amount', async () => {
    const sender = p2pkhAddress(payments.p2pkh({ pubkey: Buffer.from(senderKey) }).hash!);
    await node.fund(sender, 30_000_000n, 0);
    await node.fund(sender, 20_000_000n, 1);
    const recipient = p2pkhAddress(randomBytes(20));
    await node.rpc('importaddress', [recipient, '', false]);
    let pins = 0;
    let buttons = 0;
    const device: DeviceSigner = {
      path: PATH,
      ethereumSignTx: () => Promise.reject(new Error('not an EVM withdrawal')),
      utxoSignTx: (tx, signal) =>
        wallet.utxoSignTx!({ path: PATH, signal, tx, requestPin: async () => (pins++, pinToPositions(PIN)), onButtonRequest: () => void buttons++ }),
    };
    const chain = electrumWithdrawChain((signal, work, onServer) => usePool(pool, 'LTCR', signal, work, onServer));
    const coin = { entry: ENTRY as never, addressRule: RULE, decimals: 8, matureConfirmations: 100, chain };
    const done = await deviceSignedWithdrawal(coin, { to: recipient, amount: 35_000_000n }, senderKey, device, Math.floor(Date.now() / 1000), AbortSignal.timeout(60_000));
    assert.equal(pins, 1);
    assert.ok(buttons >= 1, 'the user confirmed on the device');
    assert.equal(done.plan.inputs.length, 2);
    const [verdict] = await node.rpc<{ allowed: boolean; txid: string; 'reject-reason'?: string }[]>('testmempoolaccept', [[done.txHex]]);
    assert.equal(verdict!.allowed, true, verdict!['reject-reason']);
    assert.equal(verdict!.txid, done.txHash);
    assert.equal((await chain.broadcast(done.txHex, AbortSignal.timeout(20_000))).txHash, done.txHash);
    await node.mine(1);
    const unspent = await nodeRpc(node, { exactAmounts: true })<{ amount: unknown }[]>('listunspent', [1, 9_999_999, [recipient], true]);
    assert.equal(unspent.reduce((sum, u) => sum + amountField(u.amount), 0n), 35_000_000n);
  });
});
