import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it, mock } from 'node:test';
import { installFetchBackstop, isLoopbackUrl, OfflineError, patchConnectDownloads } from './networkGuard.ts';

const requireFromConnect = createRequire(createRequire(import.meta.url).resolve('@trezor/connect'));
const releaseConfig = requireFromConnect('./utils/firmwareReleaseConfigUtils') as {
  getFirmwareReleaseConfig(): Promise<{ isRemote: boolean }>;
};
const assets = requireFromConnect('./utils/assets') as { httpRequest(url: string, type?: string): Promise<unknown> };
/** Connect's Ethereum definitions loader: the module object its signing methods read at call time. */
const definitions = requireFromConnect('./api/ethereum/ethereumDefinitions') as { getEthereumDefinitions(p: { chainId?: number; slip44?: number; contractAddress?: string }): Promise<object> };
/** Connect's own, unpatched release-list loader (it fetches https://data.trezor.io/...). */
const unpatchedReleaseConfig = releaseConfig.getFirmwareReleaseConfig;

/** Replaces the global fetch with a recorder that never touches the network. */
function withStubFetch<T>(run: (calls: string[]) => Promise<T>): Promise<T> {
  const real = globalThis.fetch;
  const calls: string[] = [];
  globalThis.fetch = (async (input: string | URL | Request) => {
    calls.push(String(input instanceof Request ? input.url : input));
    return new Response('{}', { status: 404 });
  }) as typeof fetch;
  return run(calls).finally(() => {
    globalThis.fetch = real;
  });
}

describe('network guard for @trezor/connect', () => {
  it('recognises loopback URLs only', () => {
    for (const url of ['http://127.0.0.1:21325/', 'http://localhost:3000/x', 'http://[::1]:80/', 'https://127.1.2.3/']) assert.ok(isLoopbackUrl(url), url);
    for (const url of ['https://data.trezor.io/firmware', 'http://128.0.0.1/', 'http://localhost.evil.com/', 'not a url', 'file:///etc/passwd'])
      assert.ok(!isLoopbackUrl(url), url);
  });

  it('fetch backstop: refuses what connect fetches (stack through @trezor), passes the rest through', async () => {
    await withStubFetch(async (calls) => {
      const refused: string[] = [];
      const uninstall = installFetchBackstop((url) => refused.push(url));
      try {
        mock.timers.enable({ apis: ['setTimeout'] }); // its 5 s request timeout would outlive the test
        try {
          assert.equal((await unpatchedReleaseConfig()).isRemote, false, 'fell back to the bundled list');
        } finally {
          mock.timers.reset();
        }
        assert.deepEqual(refused, ['https://data.trezor.io/firmware/config/releases.v1.json']);
        await assert.rejects(fetch('https://data.trezor.io/anything'), (e) => e instanceof OfflineError && e.name === 'FetchError');
        await fetch('https://example.org/not-from-trezor');
        await fetch('http://127.0.0.1:1/loopback');
        assert.deepEqual(calls, ['https://example.org/not-from-trezor', 'http://127.0.0.1:1/loopback']);
      } finally {
        uninstall();
      }
      await fetch('https://data.trezor.io/after-uninstall');
      assert.equal(calls.at(-1), 'https://data.trezor.io/after-uninstall');
    });
  });

  it('patch: release list from the bundle, firmware downloads refused locally (no fetch at all)', async () => {
    const refused: string[] = [];
    patchConnectDownloads(() => assert.fail('the latest listener gets the report'));
    patchConnectDownloads((url) => refused.push(url));
    await withStubFetch(async (calls) => {
      assert.equal((await releaseConfig.getFirmwareReleaseConfig()).isRemote, false);
      await assert.rejects(assets.httpRequest('https://data.trezor.io/firmware/t1b1/universal/t1b1-9.9.9-universal.json', 'json'), OfflineError);
      assert.deepEqual(refused, ['https://data.trezor.io/firmware/t1b1/universal/t1b1-9.9.9-universal.json']);
      assert.ok(await assets.httpRequest('./data/coins.json'), 'bundled assets still load');
      // Signing on a chain connect has no bundled definition of (the devnet's 1337): none, not fetched.
      assert.deepEqual(await definitions.getEthereumDefinitions({ chainId: 1337, slip44: 60, contractAddress: '0xabc' }), {});
      assert.equal(refused.at(-1), 'https://data.trezor.io/firmware/eth-definitions/chain-id/1337');
      assert.deepEqual(calls, []);
    });
  });
});
