import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from './configError.ts';
import { parseNodeSettings } from './nodeConfig.ts';

/** `event_streaming_configuration` (docs/streaming.md): defaults, accepted values, clear refusals. */
const base = { rpc_password: 'Str0ng-enough-pw!' };
const parse = (extra: Record<string, unknown>) => parseNodeSettings({ ...base, ...extra }, 'MM2.json', '/tmp');

function refused(extra: Record<string, unknown>, key: string, pattern: RegExp): void {
  assert.throws(
    () => parse(extra),
    (e: unknown) => e instanceof ConfigError && e.key === key && pattern.test(e.message) && !/[\r\n]/.test(e.message),
  );
}

describe('event_streaming_configuration', () => {
  it('is optional: without it streaming is on with the reference default origin "*", 15 s heartbeats and a 1 MiB bound', () => {
    assert.deepEqual(parse({}).eventStreaming, { corsOrigin: '*', heartbeatMs: 15_000, maxBufferedBytes: 1_048_576 });
    assert.deepEqual(parse({ event_streaming_configuration: {} }).eventStreaming, { corsOrigin: '*', heartbeatMs: 15_000, maxBufferedBytes: 1_048_576 });
  });

  it('takes the reference shape (access_control_allow_origin) and our heartbeat and bound', () => {
    const settings = parse({
      event_streaming_configuration: { access_control_allow_origin: 'http://localhost:3000', heartbeat_interval_s: 0.5, max_buffered_bytes: 4096 },
    });
    assert.deepEqual(settings.eventStreaming, { corsOrigin: 'http://localhost:3000', heartbeatMs: 500, maxBufferedBytes: 4096 });
  });

  it('refuses an origin with a path, a bad scheme, or a header-breaking value', () => {
    for (const origin of ['http://localhost:3000/', 'http://a.example/path', 'ftp://a.example', 'localhost', 'http://a\r\nX: y']) {
      refused({ event_streaming_configuration: { access_control_allow_origin: origin } }, 'event_streaming_configuration.access_control_allow_origin', /must be "\*" or an origin/);
    }
  });

  it('refuses malformed values and unknown keys (worker_path is the WebAssembly build\'s) naming the key', () => {
    const expected = /^MM2\.json: event_streaming_configuration(\.\w+)?: /;
    refused({ event_streaming_configuration: 'on' }, 'event_streaming_configuration', expected);
    refused({ event_streaming_configuration: { worker_path: 'w.js' } }, 'event_streaming_configuration.worker_path', /worker_path: Unexpected property/);
    refused({ event_streaming_configuration: { heartbeat_interval_s: 0 } }, 'event_streaming_configuration.heartbeat_interval_s', expected);
    refused({ event_streaming_configuration: { max_buffered_bytes: 10 } }, 'event_streaming_configuration.max_buffered_bytes', expected);
    refused({ event_streaming_configuration: { access_control_allow_origin: '' } }, 'event_streaming_configuration.access_control_allow_origin', expected);
  });
});
