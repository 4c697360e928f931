import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { decodeRecord, decodeRecordBytes } from './recordCodec.ts';

/** A record line as the format defines it, checksummed here independently of the codec. */
const line = (json: string) => `${createHash('sha256').update(json, 'utf8').digest('hex').slice(0, 16)} ${json}`;

const json = JSON.stringify({
  type: 'CoinDisabled',
  data: { ticker: 'ÉTH-€', tokens: [] },
  metadata: { eventId: 'e1', seq: 1, stream: 'coin.ÉTH-€', streamSeq: 1, sessionId: 's1', nodeId: 'n1', time: '2026-11-24T00:00:00.000Z' },
});

test('a record decodes from its bytes to the same event as from its text, with its JSON exactly as stored', () => {
  const fromBytes = decodeRecordBytes(Buffer.from(line(json), 'utf8'));
  assert.ok(fromBytes !== undefined);
  assert.equal(Buffer.from(fromBytes.json).toString('utf8'), json);
  assert.deepEqual(fromBytes.event, JSON.parse(json));
  assert.deepEqual(decodeRecord(line(json)), fromBytes.event);
});

test('a damaged record is refused from its bytes as from its text: any changed byte, a missing separator, a short line', () => {
  const good = Buffer.from(line(json), 'utf8');
  for (let i = 0; i < good.length; i++) {
    const bad = Buffer.from(good);
    bad[i] = bad[i]! ^ 0x01;
    assert.equal(decodeRecordBytes(bad), undefined, `byte ${i} changed`);
    assert.equal(decodeRecord(bad.toString('utf8')), undefined, `byte ${i} changed (text)`);
  }
  const noSpace = Buffer.from(line(json).replace(' ', '_'), 'utf8');
  assert.equal(decodeRecordBytes(noSpace), undefined);
  assert.equal(decodeRecordBytes(good.subarray(0, 16)), undefined);
  assert.equal(decodeRecordBytes(Buffer.alloc(0)), undefined);
  const notAnEvent = line(JSON.stringify({ type: 'CoinDisabled' }));
  assert.equal(decodeRecordBytes(Buffer.from(notAnEvent)), undefined);
  assert.equal(decodeRecord(notAnEvent), undefined);
});
