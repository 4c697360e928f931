import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WIRE_NAME_TABLE, WireNames, acceptedNames, describeName, neutralName, wireName } from './wireNames.ts';
import { renderTaskStatus } from './render/taskStatus.ts';
import { TaskKind } from './taskKind.ts';

describe('wire names: one table, both ways', () => {
  test('every reference name reads as its neutral name; neutral and unknown names pass unchanged', () => {
    for (const row of WIRE_NAME_TABLE) assert.equal(neutralName(row.kind, row.reference), row.neutral, row.reference);
    assert.equal(neutralName('privKeyPolicy', 'Hardware'), 'Hardware');
    assert.equal(neutralName('privKeyPolicy', 'ContextPrivKey'), 'ContextPrivKey');
    assert.equal(neutralName('taskDetails', 'Finishing'), 'Finishing');
    // A name is read within its kind only: Metamask is a policy and an rpc_mode, TrezorPin is neither.
    assert.equal(neutralName('privKeyPolicy', 'TrezorPin'), 'TrezorPin');
  });

  test('output: neutral unless reference; the reference name written is the current one, never an input-only older one', () => {
    assert.equal(wireName('taskDetails', 'WaitingForHardwareToConnect', WireNames.Neutral), 'WaitingForHardwareToConnect');
    assert.equal(wireName('taskDetails', 'WaitingForHardwareToConnect', WireNames.Reference), 'WaitingForTrezorToConnect');
    assert.equal(wireName('taskDetails', 'EnterHardwarePin', WireNames.Reference), 'EnterTrezorPin');
    assert.equal(wireName('taskDetails', 'FollowHwDeviceInstructions', WireNames.Reference), 'FollowHwDeviceInstructions', 'the same in both');
    assert.equal(wireName('proxyFlag', 'gateway_proxy', WireNames.Reference), 'komodo_proxy');
    for (const row of WIRE_NAME_TABLE) {
      if ('inputOnly' in row) continue;
      assert.equal(neutralName(row.kind, wireName(row.kind, row.neutral, WireNames.Reference)), row.neutral, 'a round trip gives the neutral name back');
    }
  });

  test('accepted names for a schema: each neutral name, then its reference names', () => {
    assert.deepEqual(acceptedNames('privKeyPolicy', ['ContextPrivKey', 'Hardware', 'RemoteWallet', 'BrowserWallet']), [
      'ContextPrivKey',
      'Hardware',
      'Trezor',
      'RemoteWallet',
      'WalletConnect',
      'BrowserWallet',
      'Metamask',
    ]);
    assert.deepEqual(acceptedNames('proxyFlag', ['gateway_proxy']), ['gateway_proxy', 'komodo_proxy', 'gui_auth']);
    assert.deepEqual(acceptedNames('nftProvider', ['NftIndexer']), ['NftIndexer', 'Moralis']);
  });

  test('messages name what was sent, with the neutral name beside a reference one', () => {
    assert.equal(describeName('privKeyPolicy', 'Metamask'), 'Metamask (BrowserWallet)');
    assert.equal(describeName('privKeyPolicy', 'BrowserWallet'), 'BrowserWallet');
  });

  test('a task status renders its details in the chosen names; errors and Ok are the same in both', () => {
    const task = (view: Parameters<typeof renderTaskStatus>[0]['view']) => ({ taskId: 1, kind: TaskKind.EnableEth, getBalances: true, view });
    const waiting = task({ state: 'InProgress', details: 'WaitingForHardwareToConnect' });
    assert.deepEqual(renderTaskStatus(waiting), { status: 'InProgress', details: 'WaitingForHardwareToConnect' });
    assert.deepEqual(renderTaskStatus(waiting, WireNames.Reference), { status: 'InProgress', details: 'WaitingForTrezorToConnect' });
    const pin = task({ state: 'UserActionRequired', details: 'EnterHardwarePin' });
    assert.deepEqual(renderTaskStatus(pin, WireNames.Reference), { status: 'UserActionRequired', details: 'EnterTrezorPin' });
    const failed = task({ state: 'Error', error: { errorType: 'HwError', message: 'Wrong PIN', data: { kind: 'WrongPin' } } });
    assert.deepEqual(renderTaskStatus(failed, WireNames.Reference), renderTaskStatus(failed));
  });
});
