/**
 * Keeps `@trezor/connect` off the network: the adapter only ever talks UDP to the configured
 * device endpoint. Connect (9.7.3) would otherwise reach `data.trezor.io` on its own:
 * - on every `init`, the signed firmware-release list (`fetchRemoteJws`, global `fetch`);
 * - for a device whose firmware is not in its bundled release data: release JSON, revision check;
 *   for translations, firmware binaries and the opt-in hash check (all via `utils/assets`'s
 *   `httpRequest`, which uses `cross-fetch`/`node-fetch`, not the global `fetch`).
 *  * - for Ethereum signing (and `ethereumGetAddress`) on a chain other than mainnet, or with call
 *   data: the network and token definitions (`getEthereumDefinitions`, through `cross-fetch`).
 * No setting turns these off, so {@link patchConnectDownloads} replaces the three choke points in
 * connect's own module objects (which connect reads at call time): the release list comes from the
 * bundled copy, `httpRequest` fails locally, like an offline machine, for any non-loopback URL, and
 * the Ethereum definitions are none (the device then signs showing the chain id, as for any
 * network it has no definition of; the service checks chain, amounts and recipient itself).
 * It fails closed if those internals move. {@link installFetchBackstop} additionally refuses any
 * global `fetch` made from `@trezor/*` code while connect is initialised.
 */
import { createRequire } from 'node:module';

/** The error a refused request fails with; named like node-fetch's so connect treats it as offline. */
export class OfflineError extends Error {
  override name = 'FetchError';
  constructor(url: string) {
    super(`network access is disabled for @trezor/connect (refused ${safeOrigin(url)})`);
  }
}

/** `http(s)://` URLs whose host is 127.0.0.0/8, `::1` or `localhost`. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  host = host.replace(/^\[(.*)\]$/, '$1');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** `scheme://host:port` of `url`, for messages (never its path or query). */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'a malformed URL';
  }
}

const PATCHED = Symbol.for('coin-activation.trezorNetworkGuard');
type Fn = (...args: never[]) => unknown;
type PatchedModule = Record<string, unknown> & { [PATCHED]?: true };
let reportRefused: (url: string) => void = () => {};

/**
 * Replaces connect's remote release-list fetch with its bundled list and makes its `httpRequest`
 * refuse non-loopback http(s) URLs. Patches once per process (later calls only replace
 * `onRefused`); throws if connect's internals are not as expected.
 */
export function patchConnectDownloads(onRefused: (url: string) => void): void {
  reportRefused = onRefused;
  const requireFromConnect = createRequire(createRequire(import.meta.url).resolve('@trezor/connect'));
  const releaseConfig = requireFromConnect('./utils/firmwareReleaseConfigUtils') as PatchedModule;
  const assets = requireFromConnect('./utils/assets') as PatchedModule;
  const definitions = requireFromConnect('./api/ethereum/ethereumDefinitions') as PatchedModule;
  if (releaseConfig[PATCHED] && assets[PATCHED] && definitions[PATCHED]) return;
  const localConfig = releaseConfig.getOnlyLocalFirmwareReleaseConfig;
  const httpRequest = assets.httpRequest;
  if (
    typeof releaseConfig.getFirmwareReleaseConfig !== 'function' ||
    typeof localConfig !== 'function' ||
    typeof httpRequest !== 'function' ||
    typeof definitions.getEthereumDefinitions !== 'function'
  ) {
    throw new Error('@trezor/connect internals changed: cannot keep it off the network; review infra/hardware/networkGuard.ts');
  }
  releaseConfig.getFirmwareReleaseConfig = async () => (localConfig as Fn)();
  assets.httpRequest = (url: unknown, ...rest: unknown[]) => {
    if (typeof url === 'string' && /^https?:/i.test(url) && !isLoopbackUrl(url)) {
      reportRefused(url);
      return Promise.reject(new OfflineError(url));
    }
    return (httpRequest as (...args: unknown[]) => unknown)(url, ...rest);
  };
  // Connect would fetch https://data.trezor.io/firmware/eth-definitions/…: none, without asking.
  definitions.getEthereumDefinitions = async ({ chainId, slip44 }: { chainId?: number; slip44?: number }) => {
    reportRefused(`https://data.trezor.io/firmware/eth-definitions/${chainId === undefined ? `slip44/${slip44}` : `chain-id/${chainId}`}`);
    return {};
  };
  releaseConfig[PATCHED] = true;
  assets[PATCHED] = true;
  definitions[PATCHED] = true;
}

/** True when the current call stack runs through an `@trezor/*` package. */
function calledFromTrezor(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder);
  Error.stackTraceLimit = limit;
  return /[\\/]node_modules[\\/]@trezor[\\/]/.test(holder.stack ?? '');
}

/**
 * Wraps the global `fetch` so that a non-loopback request made from `@trezor/*` code (or to a
 * `trezor.io` host) fails locally. Returns the uninstaller; if someone wrapped `fetch` after us,
 * the uninstaller leaves their wrapper in place and only turns ours into a pass-through.
 */
export function installFetchBackstop(onRefused: (url: string) => void): () => void {
  const original = globalThis.fetch;
  let active = true;
  const guarded: typeof fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const refuse = active && !isLoopbackUrl(url) && (/^https?:\/\/([^/]*\.)?trezor\.io([:/]|$)/i.test(url) || calledFromTrezor());
    if (refuse) {
      onRefused(url);
      return Promise.reject(new OfflineError(url));
    }
    return original(input, init);
  };
  globalThis.fetch = guarded;
  return () => {
    active = false;
    if (globalThis.fetch === guarded) globalThis.fetch = original;
  };
}
