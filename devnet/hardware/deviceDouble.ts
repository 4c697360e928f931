/**
 * A Trezor One double on the emulator's UDP protocol, so the real `@trezor/connect` (UDP transport)
 * runs against it in tests: `PINGPING` → `PONGPONG`, 64-byte reports carrying protobuf messages
 * (see `wire.ts`, `codec.ts`), device behaviour in `firmware.ts`, PIN matrix in `pinMatrix.ts`.
 * Binds to loopback only by default; it never sends anything to anyone but the datagram's sender.
 */
import { createHash } from 'node:crypto';
import { createSocket, type RemoteInfo } from 'node:dgram';
import { decodeDeviceMessage, encodeDeviceMessage, type DeviceMessage } from './codec.ts';
import { createDeviceKeys, TEST_MNEMONIC } from './deviceKeys.ts';
import { createFirmware } from './firmware.ts';
import { encodeReports, PING, PONG, ReportReader } from './wire.ts';

export { TEST_MNEMONIC } from './deviceKeys.ts';
export { DOUBLE_PIN_MATRIX, pinToPositions, positionsToPin } from './pinMatrix.ts';

/** Options of {@link startDeviceDouble}. */
export interface DeviceDoubleOptions {
  /** BIP39 mnemonic of the device's seed. Default {@link TEST_MNEMONIC}. */
  readonly mnemonic?: string;
  /** PIN (digits 1–9, e.g. `'1234'`); `undefined` = no PIN protection (always unlocked). */
  readonly pin?: string;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: a free port. (The real emulator uses 21324.) */
  readonly port?: number;
  /** Default `'coin-activation double'`. */
  readonly label?: string;
  /** Every Ethereum key request waits for the user to confirm on the device: {@link DeviceDouble.press}. Default false. */
  readonly confirmOnDevice?: boolean;
}

/** Traffic counters. Never contain message contents. */
export interface DeviceDoubleStats {
  /** `PINGPING` probes answered. */
  readonly pings: number;
  /** Complete messages received (all types). */
  readonly requests: number;
  /** Received messages by name, e.g. `{ Initialize: 1, EthereumGetPublicKey: 2 }`. */
  readonly byType: Readonly<Record<string, number>>;
  /** Distinct `address:port` senders seen. */
  readonly clients: number;
  /** Datagrams dropped while disconnected. */
  readonly dropped: number;
  readonly pinRequests: number;
  readonly wrongPins: number;
}

/** A running double. */
export interface DeviceDouble {
  readonly host: string;
  readonly port: number;
  /** `device_id` the double reports in `Features`. */
  readonly deviceId: string;
  stats(): DeviceDoubleStats;
  /** `false` simulates unplugging: every datagram (PING included) is ignored until `true` again. */
  setConnected(connected: boolean): void;
  /** Locks the device again (needs the PIN for the next key request). */
  lock(): void;
  /** The user presses the confirm button (with `confirmOnDevice`): the waiting request is answered. */
  press(): void;
  /** Closes the socket. Idempotent. */
  stop(): Promise<void>;
}

/** Starts the double and resolves once its socket is bound. */
export async function startDeviceDouble(options: DeviceDoubleOptions = {}): Promise<DeviceDouble> {
  const mnemonic = options.mnemonic ?? TEST_MNEMONIC;
  const host = options.host ?? '127.0.0.1';
  if (options.pin !== undefined && !/^[1-9]+$/.test(options.pin)) throw new RangeError('pin must be digits 1-9');
  const deviceId = createHash('sha256').update(mnemonic).digest('hex').slice(0, 24).toUpperCase();
  const firmware = createFirmware({
    keys: createDeviceKeys(mnemonic),
    pin: options.pin,
    deviceId,
    label: options.label ?? 'coin-activation double',
    confirmOnDevice: options.confirmOnDevice ?? false,
  });
  const readers = new Map<string, ReportReader>();
  const senders = new Set<string>();
  const counters = { pings: 0, requests: 0, dropped: 0, byType: new Map<string, number>() };
  let connected = true;
  let closed: Promise<void> | undefined;
  /** Who sent the last complete message: a press answers that client's request. */
  let lastSender: RemoteInfo | undefined;

  const socket = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
  const reply = (data: Buffer, to: RemoteInfo) => socket.send(data, to.port, to.address);
  const answer = (answers: readonly DeviceMessage[], to: RemoteInfo) => {
    for (const { name, fields } of answers) {
      for (const report of encodeReports(encodeDeviceMessage(name, fields))) reply(report, to);
    }
  };

  socket.on('message', (datagram, from) => {
    if (!connected) {
      counters.dropped += 1;
      return;
    }
    if (datagram.equals(PING)) {
      counters.pings += 1;
      return reply(PONG, from);
    }
    const sender = `${from.address}:${from.port}`;
    senders.add(sender);
    let reader = readers.get(sender);
    if (reader === undefined) readers.set(sender, (reader = new ReportReader()));
    const wire = reader.push(datagram);
    if (wire === undefined) return;
    const incoming = decodeDeviceMessage(wire);
    counters.requests += 1;
    counters.byType.set(incoming.name, (counters.byType.get(incoming.name) ?? 0) + 1);
    lastSender = from;
    answer(firmware.handle(incoming), from);
  });

  const port = await new Promise<number>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(options.port ?? 0, host, () => {
      socket.off('error', reject);
      resolve(socket.address().port);
    });
  });
  // A datagram to a vanished client must not crash the process.
  socket.on('error', () => {});

  return {
    host,
    port,
    deviceId,
    stats: () => ({
      pings: counters.pings,
      requests: counters.requests,
      byType: Object.fromEntries(counters.byType),
      clients: senders.size,
      dropped: counters.dropped,
      ...firmware.stats(),
    }),
    setConnected(value) {
      connected = value;
      if (!value) readers.clear(); // half-received messages die with the cable
    },
    lock: () => firmware.lock(),
    press() {
      if (connected && lastSender !== undefined) answer(firmware.press(), lastSender);
    },
    stop() {
      closed ??= new Promise((resolve) => socket.close(() => resolve()));
      return closed;
    },
  };
}
