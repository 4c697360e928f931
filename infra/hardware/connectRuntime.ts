/**
 * The process's one `@trezor/connect` instance (the library is a singleton). Loaded with a dynamic
 * `import()` on first use, initialised with the pinned UDP transport and the network guard, shared
 * by reference count, and disposed when the last user releases it, so tests can start and stop it
 * repeatedly. It is bound to one `host:port` at a time.
 */
import type { DeviceEvent, UiEvent } from '@trezor/connect';
import { systemClock, type Clock } from '../../kernel/clock.ts';
import type { DeviceInfo } from '../../actors/ports/hardwareWallet.ts';
import { createDeviceLock, type DeviceLock } from './deviceLock.ts';
import { hwError, libraryLoadFailure } from './hwErrors.ts';
import { installFetchBackstop, patchConnectDownloads, safeOrigin } from './networkGuard.ts';
import { pinnedUdpTransport } from './pinnedUdpTransport.ts';
import type { Log } from '../../kernel/log.ts';

/** The `TrezorConnect` API object. */
export type TrezorConnectApi = (typeof import('@trezor/connect'))['default'];

/** Where the device is, and the adapter's clock and log. */
export interface RuntimeOptions {
  readonly host: string;
  readonly port: number;
  readonly clock?: Clock;
  readonly log?: Log;
}

/** A started connect instance. */
export interface ConnectRuntime {
  readonly api: TrezorConnectApi;
  /** Devices that are connected and answered their features. */
  devices(): DeviceInfo[];
  /** Calls `listener` for every device that connects (or changes) from now on. */
  onDevice(listener: (device: DeviceInfo) => void): () => void;
  /** Calls `listener` with the type of every UI event (`ui-request_pin`, `ui-invalid_pin`, ...). */
  onUi(listener: (type: string) => void): () => void;
  /** Exclusive use of the device (connect runs one call at a time); dies with this instance. */
  readonly lock: DeviceLock;
  /** Aborts when this instance is disposed: connect then never answers calls still in flight. */
  readonly closed: AbortSignal;
}

const MANIFEST = { appName: 'coin-activation', appUrl: 'http://127.0.0.1/', email: 'noreply@localhost' };
const STOP_WAIT_MS = 2_000;

interface Slot {
  readonly key: string;
  refs: number;
  readonly ready: Promise<ConnectRuntime & { dispose(): Promise<void> }>;
}
let slot: Slot | undefined;
let disposing: Promise<void> = Promise.resolve();

/** Starts connect (or joins the running instance for the same endpoint). */
export async function acquireConnect(options: RuntimeOptions): Promise<ConnectRuntime> {
  const key = `${options.host}:${options.port}`;
  if (slot !== undefined && slot.key !== key) throw hwError('Failure', { detail: `@trezor/connect is already bound to ${slot.key}` });
  if (slot === undefined) {
    const created: Slot = { key, refs: 0, ready: disposing.then(() => start(options)) };
    created.ready.catch(() => {
      if (slot === created) slot = undefined;
    });
    slot = created;
  }
  const current = slot;
  current.refs += 1;
  try {
    return await current.ready;
  } catch (error) {
    current.refs -= 1;
    throw error;
  }
}

/** Drops one reference; the last one disposes connect and waits for its socket to close. */
export async function releaseConnect(): Promise<void> {
  const current = slot;
  if (current === undefined || --current.refs > 0) return;
  slot = undefined;
  const done = current.ready.then((runtime) => runtime.dispose(), () => undefined);
  disposing = done.catch(() => undefined);
  await done;
}

async function start({ host, port, clock = systemClock, log }: RuntimeOptions): Promise<ConnectRuntime & { dispose(): Promise<void> }> {
  const startedAt = clock.now();
  const refused = (url: string) => log?.warn('blocked a network request of @trezor/connect', { origin: safeOrigin(url) });
  const [connectModule, transportModule, udpModule] = await loadModules(refused, log);
  const api = unwrapDefault(connectModule.default);
  let stopped: () => void = () => {};
  const transportStopped = new Promise<void>((resolve) => (stopped = resolve));
  const Transport = pinnedUdpTransport({ UdpApi: udpModule.UdpApi, AbstractApiTransport: transportModule.AbstractApiTransport }, host, port, () => stopped());

  const devices = new Map<string, DeviceInfo>();
  const deviceListeners = new Set<(device: DeviceInfo) => void>();
  const uiListeners = new Set<(type: string) => void>();
  const onDeviceEvent = (event: DeviceEvent) => {
    if (event.type === 'device-disconnect') return void devices.delete(event.payload.path);
    if (event.type !== 'device-connect' && event.type !== 'device-changed') return;
    const device = event.payload;
    if (device.type !== 'acquired') return;
    const info: DeviceInfo = { deviceId: device.id ?? device.path, model: device.name, label: device.label };
    devices.set(device.path, info);
    for (const listener of [...deviceListeners]) listener(info);
  };
  const onUiEvent = (event: UiEvent) => {
    for (const listener of [...uiListeners]) listener(event.type);
  };
  api.on('DEVICE_EVENT', onDeviceEvent);
  api.on('UI_EVENT', onUiEvent);

  const uninstallBackstop = installFetchBackstop(refused);
  try {
    await api.init({
      manifest: MANIFEST,
      transports: [Transport],
      debug: false, // connect's debug log prints PinMatrixAck in clear
      popup: false,
      lazyLoad: false,
      transportReconnect: true,
      pendingTransportEvent: true,
      enableFirmwareHashCheck: false,
      trustedHost: true,
    });
  } catch (error) {
    uninstallBackstop();
    api.off('DEVICE_EVENT', onDeviceEvent);
    api.off('UI_EVENT', onUiEvent);
    // Another instance in this process (not ours) must survive; a half-initialised one of ours must not.
    if ((error as { code?: unknown } | null)?.code !== 'Init_AlreadyInitialized') api.dispose();
    throw hwError('Failure', { detail: `@trezor/connect did not start: ${(error as Error)?.message ?? String(error)}`, cause: error });
  }
  log?.info('hardware wallet transport started', { endpoint: `${host}:${port}`, ms: clock.now() - startedAt });
  const closing = new AbortController();

  return {
    api,
    devices: () => [...devices.values()],
    onDevice: (listener) => subscribe(deviceListeners, listener),
    onUi: (listener) => subscribe(uiListeners, listener),
    lock: createDeviceLock(),
    closed: closing.signal,
    async dispose() {
      closing.abort(hwError('Failure', { detail: 'the hardware wallet adapter was closed' }));
      api.dispose();
      uninstallBackstop();
      let timedOut = false;
      await Promise.race([transportStopped, new Promise<void>((resolve) => clock.setTimeout(() => resolve(void (timedOut = true)), STOP_WAIT_MS))]);
      if (timedOut) log?.warn('the UDP transport did not report its stop in time', { endpoint: `${host}:${port}` });
    },
  };
}

/** The lazily imported modules, with connect's downloads patched out (see `networkGuard.ts`). */
async function loadModules(refused: (url: string) => void, log: Log | undefined) {
  try {
    const modules = await Promise.all([import('@trezor/connect'), import('@trezor/transport'), import('@trezor/transport/lib/api/udp.js')]);
    patchConnectDownloads(refused);
    return modules;
  } catch (error) {
    log?.error('@trezor/connect could not be loaded', { error: (error as Error)?.message ?? String(error) });
    throw libraryLoadFailure(error);
  }
}

/** Plain node hands out `module.exports` as the default export; tsx unwraps `__esModule` first. */
function unwrapDefault(moduleDefault: unknown): TrezorConnectApi {
  const candidate = moduleDefault as { init?: unknown; default?: { init?: unknown } } | undefined;
  if (typeof candidate?.init === 'function') return candidate as unknown as TrezorConnectApi;
  if (typeof candidate?.default?.init === 'function') return candidate.default as unknown as TrezorConnectApi;
  throw new Error('@trezor/connect has no TrezorConnect default export');
}

function subscribe<T>(set: Set<T>, listener: T): () => void {
  set.add(listener);
  return () => void set.delete(listener);
}
