import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import { EVENT_TYPES, eventPasses, parseEventFilter } from './eventFilter.ts';
import { TaskDirectory } from './taskDirectory.ts';

let seq = 0;
const stored = (stream: string, event: DomainEvent): StoredEvent =>
  ({ ...event, metadata: { eventId: `e${++seq}`, seq, stream, streamSeq: 1, sessionId: 's', time: '2026-01-01T00:00:00.000Z' } }) as StoredEvent;

const filter = (query: string) => {
  const parsed = parseEventFilter(new URLSearchParams(query), new Set(['userpass']));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe('/events filters', () => {
  const tasks = new TaskDirectory();
  const created = stored('task.4', { type: 'TaskCreated', data: { taskId: 4, ticker: 'ETH', tokens: ['USDT-ERC20'], keyPolicy: 'ContextPrivKey', getBalances: true } });
  tasks.apply(created);
  const progressed = stored('task.4', { type: 'TaskProgressed', data: { taskId: 4, status: 'InProgress', details: 'Finishing' } });
  const tokenOff = stored('coin.ETH', { type: 'TokenDisabled', data: { ticker: 'USDT-ERC20', platform: 'ETH' } });
  const tokenConfs = stored('coin.ETH', { type: 'RequiredConfirmationsSet', data: { ticker: 'USDT-ERC20', platform: 'ETH', confirmations: 5 } });
  const trx = stored('coin.TRX', { type: 'ActivationRequested', data: { ticker: 'TRX', family: 'tron', via: 'x', tokens: [], getBalances: true, attempt: 1 } });
  const passivated = stored('coin.ETH', { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: ['USDT-ERC20'] } });
  const session = stored('node', { type: 'SessionStarted', data: { sessionId: 's', version: '1', derivationMethod: 'Iguana' } });

  it('coin= passes the coin\'s own events, its tokens\' events on its stream, its settings, and tasks activating it', () => {
    const eth = filter('coin=ETH');
    assert.deepEqual([created, progressed, tokenOff, tokenConfs, trx, passivated, session].map((e) => eventPasses(eth, e, tasks)), [true, true, true, true, false, true, false]);
    const usdt = filter('coin=USDT-ERC20');
    assert.deepEqual([created, progressed, tokenOff, tokenConfs, trx, passivated, session].map((e) => eventPasses(usdt, e, tasks)), [true, true, true, true, false, true, false]);
    assert.deepEqual([created, trx].map((e) => eventPasses(filter('coin=TRX&coin=BTC'), e, tasks)), [false, true]);
  });

  it('task= and type= combine with coin= (all keys must match; values of one key are alternatives)', () => {
    assert.deepEqual([created, progressed, tokenOff].map((e) => eventPasses(filter('task=4&task=9'), e, tasks)), [true, true, false]);
    assert.deepEqual([created, progressed].map((e) => eventPasses(filter('task=4&type=TaskProgressed'), e, tasks)), [false, true]);
    assert.equal(eventPasses(filter('coin=TRX&type=TaskProgressed'), progressed, tasks), false);
  });

  it('refuses unknown keys and malformed values; knows every event type of the schema', () => {
    assert.ok(EVENT_TYPES.has('CoinActivated') && EVENT_TYPES.has('TaskForgotten') && EVENT_TYPES.has('GasPriceStale'));
    for (const [query, pattern] of [
      ['type=coinactivated', /not an event type/],
      ['task=-1', /not a task id/],
      ['task=01', /not a task id/],
      ['coin=', /not a ticker/],
      ['since=3', /unknown query parameter "since"/],
    ] as const) {
      const parsed = parseEventFilter(new URLSearchParams(query), new Set());
      assert.ok(!parsed.ok && pattern.test(parsed.error), query);
    }
  });
});
