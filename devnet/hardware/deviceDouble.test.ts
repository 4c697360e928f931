import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { HDNodeWallet } from 'ethers';
import { decodeDeviceMessage, encodeDeviceMessage, type DeviceMessage } from './codec.ts';
import { startDeviceDouble, TEST_MNEMONIC } from './deviceDouble.ts';
import { createDeviceKeys, parseBip32Path } from './deviceKeys.ts';
import { createFirmware } from './firmware.ts';
import { decodeBase58Check } from '../../infra/keys/base58check.ts';
import { DOUBLE_PIN_MATRIX, pinToPositions, positionsToPin } from './pinMatrix.ts';
import { encodeReports, MAX_MESSAGE_SIZE, PING, PONG, REPORT_SIZE, ReportReader } from './wire.ts';

const ETH_PATH = "m/44'/60'/0'/0/0";

describe('wire framing', () => {
  it('splits a long message into zero-padded 64-byte reports and reassembles it', () => {
    const payload = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256));
    payload[55] = 0x23; // the second report's payload starts with '##': still a continuation
    payload[56] = 0x23;
    const reports = encodeReports({ messageType: 0x1234, payload });
    assert.equal(reports.length, 1 + Math.ceil((300 - 55) / 63));
    for (const report of reports) assert.equal(report.length, REPORT_SIZE);
    assert.deepEqual([...reports[0]!.subarray(0, 9)], [0x3f, 0x23, 0x23, 0x12, 0x34, 0, 0, 0x01, 0x2c]);
    for (const report of reports.slice(1)) assert.equal(report[0], 0x3f);
    assert.ok(reports.at(-1)!.subarray(1 + ((300 - 55) % 63)).every((b) => b === 0), 'last report zero padded');

    const reader = new ReportReader();
    const results = reports.map((r) => reader.push(r));
    assert.ok(results.slice(0, -1).every((r) => r === undefined));
    assert.equal(reader.partial, false);
    assert.deepEqual(results.at(-1), { messageType: 0x1234, payload });
  });

  it('fits a short message in one report and ignores noise', () => {
    const reader = new ReportReader();
    assert.equal(reader.push(Buffer.from('garbage')), undefined);
    const [only, ...rest] = encodeReports({ messageType: 0, payload: Buffer.alloc(0) });
    assert.equal(rest.length, 0);
    assert.deepEqual(reader.push(only!), { messageType: 0, payload: Buffer.alloc(0) });
    const huge = Buffer.alloc(REPORT_SIZE);
    Buffer.from([0x3f, 0x23, 0x23, 0, 1]).copy(huge);
    huge.writeUInt32BE(MAX_MESSAGE_SIZE + 1, 5);
    assert.equal(reader.push(huge), undefined);
    assert.equal(reader.partial, false);
  });

  it('encodes messages with @trezor/protobuf and back (multi-report Features)', () => {
    const features = { vendor: 'trezor.io', major_version: 1, minor_version: 13, patch_version: 1, label: 'x'.repeat(100), capabilities: ['Capability_Ethereum'] };
    const reports = encodeReports(encodeDeviceMessage('Features', features));
    assert.ok(reports.length > 2);
    const reader = new ReportReader();
    const decoded = decodeDeviceMessage(reports.map((r) => reader.push(r)).at(-1)!);
    assert.equal(decoded.name, 'Features');
    assert.equal(decoded.fields.label, 'x'.repeat(100));
    assert.deepEqual(decoded.fields.capabilities, ['Capability_Ethereum']);
    assert.equal(decodeDeviceMessage({ messageType: 65000, payload: Buffer.alloc(0) }).name, 'Unknown_65000');
  });
});

describe('PIN matrix', () => {
  it('maps keypad positions through the documented grid', () => {
    assert.equal(pinToPositions('1234'), '9573');
    assert.equal(positionsToPin('9573'), '1234');
    for (const [position, digit] of Object.entries(DOUBLE_PIN_MATRIX)) assert.equal(positionsToPin(position), digit);
    assert.equal(positionsToPin(pinToPositions('987654321')), '987654321');
    assert.equal(positionsToPin(''), undefined);
    assert.equal(positionsToPin('120'), undefined);
    assert.throws(() => pinToPositions('10'), RangeError);
  });
});

describe('firmware', () => {
  const keys = createDeviceKeys(TEST_MNEMONIC);
  const msg = (name: string, fields: Record<string, unknown> = {}): DeviceMessage => ({ name, fields });
  const getKey = msg('EthereumGetPublicKey', { address_n: parseBip32Path(ETH_PATH), show_display: false });
  const names = (answers: DeviceMessage[]) => answers.map((a) => a.name);

  it('asks for the PIN, rejects a wrong one like a device, and answers after the right one', () => {
    const fw = createFirmware({ keys, pin: '1234', deviceId: 'D', label: 'L' });
    assert.equal(fw.handle(msg('Initialize'))[0]!.fields.unlocked, false);
    assert.deepEqual(fw.handle(getKey), [msg('PinMatrixRequest', { type: 'PinMatrixRequestType_Current' })]);
    assert.deepEqual(fw.handle(msg('PinMatrixAck', { pin: pinToPositions('4321') })), [msg('Failure', { code: 'Failure_PinInvalid', message: 'PIN invalid' })]);
    assert.equal(fw.unlocked, false);
    assert.deepEqual(names(fw.handle(getKey)), ['PinMatrixRequest']);
    const [answer] = fw.handle(msg('PinMatrixAck', { pin: '9573' }));
    assert.equal(answer!.name, 'EthereumPublicKey');
    const expected = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, ETH_PATH);
    assert.equal(`0x${(answer!.fields.node as { public_key: string }).public_key}`, expected.publicKey);
    assert.equal(answer!.fields.xpub, expected.neuter().extendedKey);
    assert.equal(fw.unlocked, true);
    assert.deepEqual(names(fw.handle(getKey)), ['EthereumPublicKey'], 'stays unlocked');
    fw.lock();
    assert.deepEqual(names(fw.handle(getKey)), ['PinMatrixRequest']);
    assert.deepEqual(fw.handle(msg('Cancel')), [msg('Failure', { code: 'Failure_PinCancelled', message: 'PIN cancelled' })]);
    assert.deepEqual(fw.stats(), { pinRequests: 3, wrongPins: 1 });
  });

  it('confirms show_display with a button, and refuses unknown or out-of-turn messages', () => {
    const fw = createFirmware({ keys, deviceId: 'D', label: 'L' });
    const show = msg('EthereumGetAddress', { address_n: parseBip32Path(ETH_PATH), show_display: true });
    assert.deepEqual(fw.handle(show), [msg('ButtonRequest', { code: 'ButtonRequest_Address' })]);
    assert.deepEqual(fw.handle(msg('ButtonAck')), [msg('EthereumAddress', { address: HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, ETH_PATH).address })]);
    assert.deepEqual(names(fw.handle(msg('SignMessage'))), ['Failure']);
    assert.equal(fw.handle(msg('SignMessage'))[0]!.fields.code, 'Failure_UnexpectedMessage');
    assert.equal(fw.handle(msg('PinMatrixAck', { pin: '1' }))[0]!.fields.code, 'Failure_UnexpectedMessage');
    assert.equal(fw.handle(msg('Cancel'))[0]!.fields.code, 'Failure_ActionCancelled');
    const testnet = fw.handle(msg('GetAddress', { address_n: parseBip32Path("m/44'/1'/0'/0/0"), coin_name: 'Testnet', script_type: 'SPENDADDRESS' }));
    assert.deepEqual(testnet, [msg('Address', { address: 'mvbu1Gdy8SUjTenqerxUaZyYjmveZvt33q' })]); // firmware test vector
  });

  it('answers GetPublicKey with the node and its extended key in the coin\'s version (Ltub for Litecoin), after the PIN; an unknown coin fails', () => {
    const fw = createFirmware({ keys, pin: '1234', deviceId: 'D', label: 'L' });
    const account = "m/44'/2'/0'";
    const get = msg('GetPublicKey', { address_n: parseBip32Path(account), coin_name: 'Litecoin', script_type: 'SPENDADDRESS', show_display: false });
    assert.deepEqual(names(fw.handle(get)), ['PinMatrixRequest']);
    const [answer] = fw.handle(msg('PinMatrixAck', { pin: pinToPositions('1234') }));
    assert.equal(answer!.name, 'PublicKey');
    const expected = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, account);
    const node = answer!.fields.node as { public_key: string; chain_code: string; depth: number; child_num: number };
    assert.equal(`0x${node.public_key}`, expected.publicKey);
    assert.equal(`0x${node.chain_code}`, expected.chainCode);
    assert.deepEqual([node.depth, node.child_num], [3, 0x80000000]);
    const xpub = answer!.fields.xpub as string;
    assert.match(xpub, /^Ltub/);
    const serialized = Buffer.from(decodeBase58Check(xpub)!);
    assert.equal(serialized.readUInt32BE(0), 0x019da462);
    // The same serialization as ethers' xpub but for the version.
    assert.deepEqual(serialized.subarray(4), Buffer.from(decodeBase58Check(expected.neuter().extendedKey)!).subarray(4));
    assert.equal(fw.handle({ ...get, fields: { ...get.fields, coin_name: 'Dogecoin' } })[0]!.fields.code, 'Failure_DataError');
    assert.equal(fw.handle({ ...get, fields: { ...get.fields, script_type: 'SPENDWITNESS' } })[0]!.fields.code, 'Failure_DataError');
  });

  it('with confirmOnDevice, asks to confirm each Ethereum key request and answers only on the press; Cancel ends the wait', () => {
    const fw = createFirmware({ keys, deviceId: 'D', label: 'L', confirmOnDevice: true });
    const probe = msg('GetAddress', { address_n: parseBip32Path("m/44'/1'/0'/0/0"), coin_name: 'Testnet', script_type: 'SPENDADDRESS' });
    assert.deepEqual(names(fw.handle(probe)), ['Address'], "connect's state probe is not a prompt");
    assert.deepEqual(fw.press(), [], 'a press with nothing to confirm does nothing');
    assert.deepEqual(fw.handle(getKey), [msg('ButtonRequest', { code: 'ButtonRequest_Other' })]);
    assert.deepEqual(fw.handle(msg('ButtonAck')), [], 'the device waits for the user');
    const [answer] = fw.press();
    assert.equal(answer!.name, 'EthereumPublicKey');
    assert.equal(`0x${(answer!.fields.node as { public_key: string }).public_key}`, HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, ETH_PATH).publicKey);
    assert.deepEqual(fw.press(), [], 'answered once');

    fw.handle(getKey);
    fw.handle(msg('ButtonAck'));
    assert.deepEqual(fw.handle(msg('Cancel')), [msg('Failure', { code: 'Failure_ActionCancelled', message: 'Action cancelled by user' })]);
    assert.deepEqual(fw.press(), [], 'a cancelled request is not answered later');
    assert.deepEqual(names(fw.handle(getKey)), ['ButtonRequest'], 'the device takes requests again');
  });
});

describe('startDeviceDouble (UDP)', () => {
  const exchange = async (socket: Socket, port: number, datagrams: Buffer[], expect: number, timeoutMs = 1000): Promise<Buffer[]> => {
    const received: Buffer[] = [];
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      socket.on('message', (data) => {
        received.push(data);
        if (received.length === expect) clearTimeout(timer), resolve();
      });
    });
    for (const datagram of datagrams) socket.send(datagram, port, '127.0.0.1');
    await done;
    socket.removeAllListeners('message');
    return received;
  };

  it('answers PING, Initialize, and goes silent when unplugged', async () => {
    const double = await startDeviceDouble({ pin: '1234' });
    const client = createSocket('udp4');
    client.bind(0, '127.0.0.1');
    await once(client, 'listening');
    try {
      assert.equal(double.host, '127.0.0.1');
      assert.deepEqual(await exchange(client, double.port, [PING], 1), [PONG]);
      const reports = await exchange(client, double.port, encodeReports(encodeDeviceMessage('Initialize', {})), 4);
      const reader = new ReportReader();
      const features = decodeDeviceMessage(reports.map((r) => reader.push(r)).find((m) => m !== undefined)!);
      assert.equal(features.name, 'Features');
      assert.equal(features.fields.device_id, double.deviceId);
      assert.equal(features.fields.pin_protection, true);
      assert.equal(features.fields.model, '1');

      double.setConnected(false);
      assert.deepEqual(await exchange(client, double.port, [PING], 1, 300), []);
      double.setConnected(true);
      assert.deepEqual(await exchange(client, double.port, [PING], 1), [PONG]);
      const stats = double.stats();
      assert.equal(stats.pings, 2);
      assert.equal(stats.dropped, 1);
      assert.deepEqual(stats.byType, { Initialize: 1 });
      assert.equal(stats.clients, 1);
    } finally {
      client.close();
      await double.stop();
      await double.stop();
    }
  });
});
