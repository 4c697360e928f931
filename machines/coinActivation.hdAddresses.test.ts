/** `ADD_HD_ADDRESSES` of the coinActivation machine (`get_new_address`, `scan_for_new_addresses`, issue 26). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor, fromPromise, waitFor } from 'xstate';
import { fakeCoin, fakePlan } from '../devnet/testing/fixtures.ts';
import { coinActivationMachine } from './coinActivation.machine.ts';
import type { ActivatedCoin, ActivationPlan, HdAddressRead } from './activation.types.ts';
import type { DomainEvent } from '../spec/events.ts';

const PATH = "m/44'/60'/0'";
const listed = (chain: 'External' | 'Internal', id: number) => ({ address: `0x${chain[0]}${id}`, derivationPath: `${PATH}/${chain === 'External' ? 0 : 1}/${id}`, chain, balances: {} });
const read = (chain: 'External' | 'Internal', id: number, wei = 0n, txCount = 0n): HdAddressRead => ({
  ...listed(chain, id),
  addressIndex: id,
  txCount,
  balances: { ETH: { spendable: wei, unspendable: 0n } },
});

/** An active HD ETH whose account 0 lists External 0 and 1. */
async function activeHdEth() {
  const coin: ActivatedCoin = fakeCoin('ETH', [], {
    derivationMethod: 'HDWallet',
    hd: { walletId: 'w1', accountId: 0, accountPath: PATH, chain: 'External', knownAddresses: 1, addresses: [listed('External', 0), listed('External', 1)] },
  });
  const machine = coinActivationMachine.provide({ actors: { activateCoin: fromPromise<ActivatedCoin, ActivationPlan>(async () => coin) } });
  const actor = createActor(machine, { input: { ticker: 'ETH' } });
  const events: DomainEvent[] = [];
  actor.on('*', (e) => events.push(e as DomainEvent));
  actor.start();
  actor.send({ type: 'ACTIVATE', plan: fakePlan('ETH', []) });
  await waitFor(actor, (s) => s.matches('active'));
  events.length = 0;
  return { actor, events, paths: () => actor.getSnapshot().context.coin!.hd!.addresses.map((a) => a.derivationPath) };
}

describe('coinActivation machine: ADD_HD_ADDRESSES', () => {
  test('Given an active HD coin, When the next address of a chain is created, Then it is listed and AddressCreated records it with decimal balances', async () => {
    const h = await activeHdEth();
    h.actor.send({ type: 'ADD_HD_ADDRESSES', accountIndex: 0, created: read('External', 2, 10n ** 18n) });
    assert.deepEqual(h.paths(), [`${PATH}/0/0`, `${PATH}/0/1`, `${PATH}/0/2`]);
    assert.deepEqual(h.events, [
      {
        type: 'AddressCreated',
        data: { ticker: 'ETH', walletId: 'w1', accountIndex: 0, address: '0xE2', derivationPath: `${PATH}/0/2`, chain: 'External', addressIndex: 2, balances: { ETH: { spendable: '1', unspendable: '0' } } },
      },
    ]);
  });

  test('When an address does not continue its chain (taken meanwhile, or another account), Then nothing changes and nothing is recorded', async () => {
    const h = await activeHdEth();
    for (const command of [
      { type: 'ADD_HD_ADDRESSES', accountIndex: 0, created: read('External', 1) },
      { type: 'ADD_HD_ADDRESSES', accountIndex: 0, created: read('Internal', 3) },
      { type: 'ADD_HD_ADDRESSES', accountIndex: 1, created: read('External', 2) },
    ] as const) {
      assert.equal(h.actor.getSnapshot().can(command), false, `${command.accountIndex} ${command.created.derivationPath}`);
      h.actor.send(command);
    }
    assert.deepEqual(h.paths(), [`${PATH}/0/0`, `${PATH}/0/1`]);
    assert.deepEqual(h.events, []);
  });

  test('When a scan found addresses on two chains, Then both are listed in order (External first) and one AddressesScanned per chain gives unused ones no balances', async () => {
    const h = await activeHdEth();
    h.actor.send({
      type: 'ADD_HD_ADDRESSES',
      accountIndex: 0,
      scanned: [
        { chain: 'External', knownAddresses: 4, found: [read('External', 2), read('External', 3, 0n, 1n)] },
        { chain: 'Internal', knownAddresses: 1, found: [read('Internal', 0, 5n)] },
      ],
    });
    assert.deepEqual(h.paths(), [`${PATH}/0/0`, `${PATH}/0/1`, `${PATH}/0/2`, `${PATH}/0/3`, `${PATH}/1/0`]);
    const scanned = h.events.map((e) => e.type === 'AddressesScanned' && [e.data.chain, e.data.knownAddresses, e.data.addresses.map((a) => [a.addressIndex, a.balances])]);
    assert.deepEqual(scanned, [
      ['External', 4, [[2, {}], [3, { ETH: { spendable: '0', unspendable: '0' } }]]],
      ['Internal', 1, [[0, { ETH: { spendable: '0.000000000000000005', unspendable: '0' } }]]],
    ]);
  });

  test('Given a disabled coin, When addresses arrive, Then they are refused', async () => {
    const h = await activeHdEth();
    h.actor.send({ type: 'DISABLE', force: true });
    assert.equal(h.actor.getSnapshot().can({ type: 'ADD_HD_ADDRESSES', accountIndex: 0, created: read('External', 2) }), false);
  });
});
