/**
 * The real `@trezor/connect` 9.7.3 (UDP transport) against the device double on loopback.
 * Tests run one after another; each starts its own double and closes its adapter afterwards, so
 * connect (a process-wide singleton) is initialised and disposed again for every test.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { afterEach, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { HDNodeWallet } from 'ethers';
import { isActivationError } from '../../spec/errors.ts';
import { pinToPositions, startDeviceDouble, TEST_MNEMONIC, type DeviceDouble } from '../../devnet/hardware/deviceDouble.ts';
import type { HardwareWallet } from '../../actors/ports/hardwareWallet.ts';
import { createTrezorConnectWallet } from './trezorConnectWallet.ts';
import type { Log } from '../../kernel/log.ts';

const PATH = "m/44'/60'/0'/0/0";
const PIN = '1234';
const expected = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, PATH);
const lines: string[] = [];
const log: Log = {
  info: (message, fields) => void lines.push(JSON.stringify({ message, ...fields })),
  warn: (message, fields) => void lines.push(JSON.stringify({ message, ...fields })),
  error: (message, fields) => void lines.push(JSON.stringify({ message, ...fields })),
};
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(pin: string | undefined = PIN): Promise<{ double: DeviceDouble; wallet: HardwareWallet }> {
  const double = await startDeviceDouble({ pin });
  const wallet = createTrezorConnectWallet({ udpPort: double.port, log });
  cleanups.push(() => double.stop(), () => wallet.close());
  return { double, wallet };
}

const within = (ms: number) => AbortSignal.timeout(ms);
const reject = (wallet: HardwareWallet, requestPin: () => Promise<string>, signal = within(20_000)) =>
  wallet.ethereumPublicKey({ path: PATH, signal, requestPin }).then(
    () => assert.fail('expected a failure'),
    (error: unknown) => error,
  );

describe('createTrezorConnectWallet with @trezor/connect against the device double', () => {
  it('finds the device (first use: lazy import + init) and reports it', async (t) => {
    const { double, wallet } = await setup();
    const started = performance.now();
    const device = await wallet.waitForDevice(within(20_000));
    t.diagnostic(`first waitForDevice (import + init + device handshake): ${Math.round(performance.now() - started)} ms`);
    assert.deepEqual(device, { deviceId: double.deviceId, model: 'Trezor Model One', label: 'coin-activation double' });
    assert.ok(double.stats().pings > 0);
    await wallet.close();
    const pings = double.stats().pings;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    assert.equal(double.stats().pings, pings, 'closed: the transport stopped probing');
  });

  it('runs the PIN flow and returns the key and address of the mnemonic', async (t) => {
    const { double, wallet } = await setup();
    let pinRequests = 0;
    const started = performance.now();
    const { publicKey, address } = await wallet.ethereumPublicKey({
      path: PATH,
      signal: within(20_000),
      requestPin: async () => (pinRequests++, pinToPositions(PIN)),
    });
    t.diagnostic(`ethereumPublicKey with PIN, connect started by the call: ${Math.round(performance.now() - started)} ms`);
    assert.equal(pinRequests, 1);
    assert.equal(`0x${publicKey.compressedHex}`, expected.publicKey);
    assert.equal(Buffer.from(publicKey.compressed).toString('hex'), publicKey.compressedHex);
    assert.equal(`0x${publicKey.uncompressedHex}`, expected.signingKey.publicKey);
    assert.equal(address, expected.address);
    assert.equal(address, '0x73d0385F4d8E00C5e6504C6030F47BF6212736A8');
    assert.equal(double.stats().wrongPins, 0);

    const again = performance.now();
    const second = await wallet.ethereumPublicKey({ path: "m/44'/60'/0'/0/1", signal: within(20_000), requestPin: () => assert.fail('unlocked') });
    t.diagnostic(`second call, device unlocked: ${Math.round(performance.now() - again)} ms`);
    assert.equal(second.address, HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, "m/44'/60'/0'/0/1").address);
  });

  it('reads an account\'s public node with getPublicKey (coin Litecoin, after the PIN): the key and chain code of the mnemonic\'s m/44\'/2\'/0\'', async (t) => {
    const { double, wallet } = await setup();
    const account = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, "m/44'/2'/0'");
    let pinRequests = 0;
    const started = performance.now();
    const node = await wallet.accountPublicNode({ path: "m/44'/2'/0'", protocol: 'bitcoin', coinName: 'Litecoin', signal: within(20_000), requestPin: async () => (pinRequests++, pinToPositions(PIN)) });
    t.diagnostic(`accountPublicNode with PIN: ${Math.round(performance.now() - started)} ms`);
    assert.equal(pinRequests, 1);
    assert.equal(`0x${node.publicKey.compressedHex}`, account.publicKey);
    assert.equal(`0x${node.publicKey.uncompressedHex}`, account.signingKey.publicKey);
    assert.equal(`0x${Buffer.from(node.chainCode).toString('hex')}`, account.chainCode);
    // connect checks the node against its child 0 before answering: two GetPublicKey, never shown.
    assert.equal(double.stats().byType.GetPublicKey, 2);
    const error = await wallet.accountPublicNode({ path: "m/44'/2'/0'", protocol: 'bitcoin', coinName: 'Bitcoin', signal: within(20_000), requestPin: () => assert.fail('unlocked') }).then(
      () => assert.fail('a Litecoin path named Bitcoin'),
      (e: unknown) => e,
    );
    assert.ok(isActivationError(error) && error.errorType === 'HwError', inspect(error));
    // Ethereum's account node through ethereumGetPublicKey (the device unlocked by now).
    const eth = await wallet.accountPublicNode({ path: "m/44'/60'/0'", protocol: 'ethereum', signal: within(20_000), requestPin: () => assert.fail('unlocked') });
    const ethAccount = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, "m/44'/60'/0'");
    assert.equal(`0x${eth.publicKey.compressedHex}`, ethAccount.publicKey);
    assert.equal(`0x${Buffer.from(eth.chainCode).toString('hex')}`, ethAccount.chainCode);
  });

  it('fails a wrong PIN with HwError WrongPin, without retrying', async () => {
    const { double, wallet } = await setup();
    let pinRequests = 0;
    const error = await reject(wallet, async () => (pinRequests++, pinToPositions('4321')));
    assert.ok(isActivationError(error));
    assert.equal(error.errorType, 'HwError');
    assert.deepEqual(error.data, { kind: 'WrongPin', code: 'Failure_PinInvalid' });
    assert.equal(pinRequests, 1);
    assert.equal(double.stats().wrongPins, 1);
    const malformed = await reject(wallet, async () => 'not positions');
    assert.deepEqual(isActivationError(malformed) && malformed.data, { kind: 'WrongPin', code: 'PinMalformed' });
    assert.equal(double.stats().wrongPins, 1, 'a malformed PIN never reaches the device');
  });

  it('keeps waitForDevice pending without a device until the abort, then rejects with its reason', async () => {
    const silent = createSocket('udp4'); // bound, but never answers PING: nothing plugged in
    silent.bind(0, '127.0.0.1');
    await once(silent, 'listening');
    cleanups.push(() => new Promise((resolve) => silent.close(() => resolve())));
    const wallet = createTrezorConnectWallet({ udpPort: silent.address().port, log });
    cleanups.push(() => wallet.close());
    const controller = new AbortController();
    const pending = wallet.waitForDevice(controller.signal);
    const state = await Promise.race([pending.then(() => 'resolved', () => 'rejected'), new Promise((r) => setTimeout(r, 2_000, 'pending'))]);
    assert.equal(state, 'pending');
    const reason = new Error('task timed out');
    controller.abort(reason);
    await assert.rejects(pending, (error) => error === reason);
  });

  it('keeps waitForDevice pending while the device is unplugged', async () => {
    const { double, wallet } = await setup();
    double.setConnected(false);
    const controller = new AbortController();
    const pending = wallet.waitForDevice(controller.signal);
    await new Promise((r) => setTimeout(r, 2_000));
    controller.abort('gone');
    await assert.rejects(pending, (error) => error === 'gone');
    assert.equal(double.stats().pings, 0);
    assert.ok(double.stats().dropped > 0);
  });

  it('cancels cleanly when aborted during the PIN wait; the next call works', async () => {
    const { double, wallet } = await setup();
    const controller = new AbortController();
    let asked: () => void = () => {};
    const pinAsked = new Promise<void>((resolve) => (asked = resolve));
    const call = wallet.ethereumPublicKey({ path: PATH, signal: controller.signal, requestPin: () => (asked(), new Promise<string>(() => {})) });
    await pinAsked;
    const reason = new Error('the task left the device step');
    controller.abort(reason);
    await assert.rejects(call, (error) => error === reason);
    const { address } = await wallet.ethereumPublicKey({ path: PATH, signal: within(20_000), requestPin: async () => pinToPositions(PIN) });
    assert.equal(address, expected.address);
    assert.ok((double.stats().byType.Cancel ?? 0) >= 2, 'the PIN wait was cancelled on the device');
  });

  it('never lets the PIN reach errors, logs or connect’s own log', async () => {
    const secret = '98765432';
    const positions = pinToPositions(secret);
    const written: string[] = [];
    const restore = [process.stdout, process.stderr].map((stream) => {
      const write = stream.write.bind(stream);
      stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => (written.push(String(chunk)), write(chunk, ...rest))) as typeof stream.write;
      return () => void (stream.write = write);
    });
    try {
      const { double, wallet } = await setup(secret);
      const wrong = await reject(wallet, async () => pinToPositions('12345678'));
      const ok = await wallet.ethereumPublicKey({ path: PATH, signal: within(20_000), requestPin: async () => positions });
      double.lock();
      const aborted = new AbortController();
      const cancelled = reject(wallet, async () => (aborted.abort(new Error('stop')), positions), aborted.signal);
      const connectLog = (createRequire(createRequire(import.meta.url).resolve('@trezor/connect'))('./utils/debug') as { getLog(): unknown[] }).getLog();
      const everything = [inspect([wrong, await cancelled, ok], { depth: 10 }), JSON.stringify(wrong), ...lines, ...written, inspect(connectLog, { depth: 10 })].join('\n');
      for (const needle of [secret, positions, '12345678', pinToPositions('12345678')]) assert.ok(!everything.includes(needle), `found ${needle.length}-digit secret`);
      assert.ok(connectLog.length > 0);
    } finally {
      for (const undo of restore) undo();
    }
  });

  it('fails with DeviceDisconnected when the device is unplugged during the PIN wait', async () => {
    const { double, wallet } = await setup();
    let asked: () => void = () => {};
    const pinAsked = new Promise<void>((resolve) => (asked = resolve));
    const call = wallet.ethereumPublicKey({ path: PATH, signal: within(20_000), requestPin: () => (asked(), new Promise<string>(() => {})) });
    await pinAsked;
    double.setConnected(false); // the transport notices at its next PING (4 s timeout)
    await assert.rejects(call, (error) => isActivationError(error) && (error.data as { kind: string }).kind === 'DeviceDisconnected');
  });

  it('close() fails calls still in flight instead of leaving them pending', async () => {
    const { wallet } = await setup();
    let asked: () => void = () => {};
    const pinAsked = new Promise<void>((resolve) => (asked = resolve));
    const call = wallet.ethereumPublicKey({ path: PATH, signal: within(20_000), requestPin: () => (asked(), new Promise<string>(() => {})) });
    await pinAsked;
    await wallet.close();
    await assert.rejects(call, (error) => isActivationError(error) && error.errorType === 'HwError');
    const { address } = await wallet.ethereumPublicKey({ path: PATH, signal: within(20_000), requestPin: async () => pinToPositions(PIN) });
    assert.equal(address, expected.address, 'the adapter starts connect again after close()');
  });

  it('refuses a second endpoint while the first is in use', async () => {
    const { wallet } = await setup();
    await wallet.waitForDevice(within(20_000));
    const other = createTrezorConnectWallet({ udpPort: 1, log });
    await assert.rejects(other.waitForDevice(within(5_000)), (error) => isActivationError(error) && (error.data as { kind: string }).kind === 'Failure');
    await other.close();
  });
});
