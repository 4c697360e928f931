/**
 * `@trezor/transport`'s UDP (emulator) transport pointed at a chosen `host:port`. The stock
 * `UdpTransport` always probes `127.0.0.1:21324` (21325 for debug-link): its `UdpApi.enumerate`
 * hard-codes the path. This subclass keeps everything else (socket, framing, sessions) and only
 * enumerates the configured path, and binds its socket to 127.0.0.1 when the device is on loopback.
 * Built at runtime because `@trezor/transport` is loaded lazily.
 */
import type { AbstractApiTransport } from '@trezor/transport';
import type { UdpApi } from '@trezor/transport/lib/api/udp.js';

/** The two classes the transport is built from (both from the lazily imported modules). */
export interface UdpTransportModules {
  readonly UdpApi: typeof UdpApi;
  readonly AbstractApiTransport: typeof AbstractApiTransport;
}

/** What `UdpApi.enumerate` uses internally; private in the typings of @trezor/transport 1.x. */
interface UdpApiInternals {
  ping(path: string, signal?: AbortSignal): Promise<boolean>;
  handleDevicesChange(devices: readonly unknown[]): void;
}

/** A transport class `@trezor/connect` can instantiate (its `transports` setting accepts classes). */
export type TransportClass = new (params: ConstructorParameters<typeof AbstractApiTransport>[0]) => AbstractApiTransport;

/**
 * A `UdpTransport` class that talks to `host:port` only. `onStop` runs when connect stops the
 * transport (on dispose), after its socket is closed.
 */
export function pinnedUdpTransport(modules: UdpTransportModules, host: string, port: number, onStop: () => void): TransportClass {
  const path = `${host}:${port}`;
  const internals = modules.UdpApi.prototype as unknown as Partial<UdpApiInternals>;
  if (typeof internals.ping !== 'function' || typeof internals.handleDevicesChange !== 'function') {
    throw new Error('@trezor/transport UdpApi changed: cannot pin the UDP transport to a port');
  }

  class PinnedUdpApi extends modules.UdpApi {
    constructor(params: ConstructorParameters<typeof UdpApi>[0]) {
      super(params);
      // UdpApi lets its socket bind implicitly to 0.0.0.0; for a loopback device, listen on loopback only.
      if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) this.interface.bind(0, '127.0.0.1');
    }

    /** As `UdpApi.enumerate`, for the one configured path instead of the hard-coded emulator port. */
    override async enumerate(signal?: AbortSignal) {
      const self = this as unknown as UdpApiInternals;
      try {
        const alive = await self.ping(path, signal);
        const descriptor = { path, type: 5 /* DEVICE_TYPE.TypeEmulator */, product: 0, vendor: 0, id: path, apiType: this.type };
        const devices = alive ? [descriptor] : [];
        self.handleDevicesChange(devices);
        return this.success(devices) as Awaited<ReturnType<UdpApi['enumerate']>>;
      } catch {
        self.handleDevicesChange([]);
        return this.error({ error: 'Aborted by signal' as const });
      }
    }
  }

  class PinnedUdpTransport extends modules.AbstractApiTransport {
    readonly name = 'UdpTransport' as const;

    constructor(params: ConstructorParameters<typeof AbstractApiTransport>[0]) {
      super({ ...params, api: new PinnedUdpApi({ logger: params.logger }) });
    }

    override stop(): void {
      super.stop();
      onStop();
    }
  }

  return PinnedUdpTransport;
}
