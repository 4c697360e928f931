import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTaskStatus } from '../../spec/render/taskStatus.ts';
import { TaskStatusProjection } from './taskStatus.ts';
import { nextTaskStatus, type TaskStatusValue } from './taskStatusValue.ts';
import { EventScript } from '../../devnet/testkits/eventScript.ts';
import { activation, busyNode } from '../../devnet/testkits/statusScenario.ts';

/** Both reducers over the same events: the KV value says what the RPC would answer, at every step. */
test('the KV task value equals renderTaskStatus of the in-memory projection after every event', () => {
  const s = busyNode('n1');
  const projection = new TaskStatusProjection();
  const values = new Map<number, TaskStatusValue>();
  let checked = 0;
  for (const event of s.events) {
    projection.apply(event);
    if (!event.metadata.stream.startsWith('task.')) continue;
    const taskId = Number(event.metadata.stream.slice(5));
    const next = nextTaskStatus(values.get(taskId), event, 'n1');
    if (next !== undefined) values.set(taskId, next);
    else assert.equal(event.type, 'HardwarePinEntered', 'every other task event changes the status');
    const record = projection.get(taskId)!;
    const value = values.get(taskId)!;
    const { status, details } = value;
    if (record.view.state === 'Cancelled' || record.view.state === 'Forgotten') {
      assert.deepEqual({ status, details }, { status: record.view.state, details: undefined });
    } else {
      assert.deepEqual(JSON.parse(JSON.stringify({ status, details })), JSON.parse(JSON.stringify(renderTaskStatus(record))));
    }
    if (next !== undefined) assert.equal(value.lastSeq, event.metadata.seq);
    checked++;
  }
  assert.equal(checked, 14);
  assert.deepEqual([...values.values()].map((v) => v.status), ['Forgotten', 'Error', 'Cancelled', 'Error', 'UserActionRequired']);
});

test('Ok details are the rendered activation (Iguana and HD shapes, with and without balances)', () => {
  for (const [hd, getBalances] of [[false, true], [false, false], [true, true], [true, false]] as const) {
    const s = new EventScript('n1');
    const created = s.task(7, { type: 'TaskCreated', data: { taskId: 7, ticker: 'ETH', tokens: ['USDT-ERC20'], keyPolicy: 'ContextPrivKey', getBalances } });
    const ok = s.task(7, { type: 'TaskSucceeded', data: { taskId: 7, activation: activation('ETH', ['USDT-ERC20'], { hd }) } });
    const value = nextTaskStatus(nextTaskStatus(undefined, created, 'n1'), ok, 'n1');
    const projection = new TaskStatusProjection();
    projection.apply(created);
    projection.apply(ok);
    assert.deepEqual({ status: value?.status, details: value?.details }, renderTaskStatus(projection.get(7)!));
    assert.equal(value?.getBalances, getBalances);
  }
});

test('a task event before its TaskCreated is ignored', () => {
  const s = new EventScript('n1');
  assert.equal(nextTaskStatus(undefined, s.task(1, { type: 'TaskProgressed', data: { taskId: 1, status: 'InProgress', details: 'x' } }), 'n1'), undefined);
});

test('Ok details carry the NFTs the activation recorded (nfts_infos keyed <token_address>,<token_id>), in the KV value as in the RPC', () => {
  const s = new EventScript('n1');
  const nft = { tokenAddress: '0x5fbdb2315678afecb367f032d93f642f64180aa3', tokenId: '1606938044258990275541962092341162602522202993782792835301381', chain: 'ETH' as const, contractType: 'ERC721' as const, amount: '1' };
  const created = s.task(8, { type: 'TaskCreated', data: { taskId: 8, ticker: 'ETH', tokens: [], keyPolicy: 'ContextPrivKey', getBalances: true } });
  const ok = s.task(8, { type: 'TaskSucceeded', data: { taskId: 8, activation: { ...activation('ETH', []), nfts: [nft] } } });
  const value = nextTaskStatus(nextTaskStatus(undefined, created, 'n1'), ok, 'n1');
  assert.deepEqual((value?.details as { nfts_infos: unknown }).nfts_infos, {
    '0x5fbdb2315678afecb367f032d93f642f64180aa3,1606938044258990275541962092341162602522202993782792835301381': {
      token_address: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      token_id: '1606938044258990275541962092341162602522202993782792835301381',
      chain: 'ETH',
      contract_type: 'ERC721',
      amount: '1',
    },
  });
});

test('a UTXO task (kind enable_utxo): the KV value says its kind, and its Ok details have the standalone shape the RPC answers', () => {
  const s = new EventScript('n1');
  const created = s.task(9, { type: 'TaskCreated', data: { taskId: 9, ticker: 'LTC', tokens: [], keyPolicy: 'ContextPrivKey', getBalances: true, kind: 'enable_utxo' } });
  const summary = { ...activation('LTC', []), family: 'utxo', address: 'LTC-ADDRESS', balance: { spendable: '1.5', unspendable: '0.25' } };
  const ok = s.task(9, { type: 'TaskSucceeded', data: { taskId: 9, activation: summary } });
  const value = nextTaskStatus(nextTaskStatus(undefined, created, 'n1'), ok, 'n1');
  const projection = new TaskStatusProjection();
  projection.apply(created);
  projection.apply(ok);
  assert.equal(value?.kind, 'enable_utxo');
  assert.equal(projection.get(9)?.kind, 'enable_utxo');
  assert.deepEqual(value?.details, {
    ticker: 'LTC',
    current_block: summary.currentBlock,
    wallet_balance: { wallet_type: 'Iguana', address: 'LTC-ADDRESS', balance: { LTC: { spendable: '1.5', unspendable: '0.25' } } },
  });
  assert.deepEqual({ status: value?.status, details: value?.details }, renderTaskStatus(projection.get(9)!));
});

test('a TaskCreated without a kind (written before kinds were kept) is an enable_eth task', () => {
  const s = new EventScript('n1');
  const created = s.task(3, { type: 'TaskCreated', data: { taskId: 3, ticker: 'ETH', tokens: [], keyPolicy: 'ContextPrivKey', getBalances: true } });
  assert.equal(nextTaskStatus(undefined, created, 'n1')?.kind, 'enable_eth');
});
