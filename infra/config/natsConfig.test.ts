import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { parseNodeSettings } from './nodeConfig.ts';
import { isConfigError } from './configError.ts';

const base = { rpc_password: 'Str0ng-Pass!x' };
const parse = (extra: Record<string, unknown>) => parseNodeSettings({ ...base, ...extra }, 'MM2.json', '/srv/node');

test('without nats the embedded log is used; node_id is optional', () => {
  const settings = parse({});
  assert.equal(settings.nats, undefined);
  assert.equal(settings.nodeId, undefined);
  assert.equal(parse({ node_id: 'desk-1' }).nodeId, 'desk-1');
});

test('nats: url or servers, credentials wrapped as secrets, defaults, relative files resolved', () => {
  const nats = parse({ nats: { url: 'nats://127.0.0.1:4222', user: 'engine', pass: 'NATS-PASS-DISTINCT', tls: { ca_file: 'ca.pem' } } }).nats!;
  assert.deepEqual(nats.servers, ['nats://127.0.0.1:4222']);
  assert.equal(nats.pass?.reveal(), 'NATS-PASS-DISTINCT');
  assert.equal(inspect(nats).includes('NATS-PASS-DISTINCT'), false);
  assert.equal(JSON.stringify(nats).includes('NATS-PASS-DISTINCT'), false);
  assert.deepEqual(nats.tls, { caFile: '/srv/node/ca.pem' });
  assert.equal(nats.projector, 'embedded');
  assert.equal(nats.streamReplicas, 1);
  assert.deepEqual(parse({ nats: { servers: ['nats://a:1', 'tls://b:2'] } }).nats!.servers, ['nats://a:1', 'tls://b:2']);
});

const bad: [string, Record<string, unknown>, string][] = [
  ['no server', { nats: {} }, 'nats.url'],
  ['not a nats url', { nats: { url: 'http://x' } }, 'nats.servers[0]'],
  ['unknown key', { nats: { url: 'nats://x:1', password: 'NATS-PASS-DISTINCT' } }, 'nats'],
  ['cert without key', { nats: { url: 'nats://x:1', tls: { cert_file: 'c.pem' } } }, 'nats.tls'],
  ['bad projector', { nats: { url: 'nats://x:1', projector: 'both' } }, 'nats.projector'],
  ['node_id with a dot', { node_id: 'a.b' }, 'node_id'],
];
for (const [name, extra, key] of bad) {
  test(`bad nats config (${name}) names ${key} and never echoes a secret`, () => {
    assert.throws(
      () => parse(extra),
      (e: unknown) => isConfigError(e) && e.key.startsWith(key) && !e.message.includes('NATS-PASS-DISTINCT') && !e.message.includes('\n'),
    );
  });
}
