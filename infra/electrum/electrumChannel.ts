/**
 * The three Electrum transports of spec 2.2 (`TCP`, `SSL`, `WSS`) as one message channel: one
 * JSON-RPC text per message. TCP and TLS frame messages with newlines; WebSocket uses one text
 * frame per message. TLS verifies the server's certificate by default (Node's roots plus any CA
 * given), so a server whose certificate does not verify is refused.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates } from 'node:tls';
import WebSocket from 'ws';

export const ElectrumProtocol = { Tcp: 'TCP', Ssl: 'SSL', Wss: 'WSS' } as const;
export type ElectrumProtocol = (typeof ElectrumProtocol)[keyof typeof ElectrumProtocol];

/** A server as the `electrum` request gives it: `host:port` and its transport. */
export interface ElectrumServer {
  readonly url: string;
  readonly protocol: ElectrumProtocol;
  /** TLS without certificate verification (an explicit, per-server opt-out). */
  readonly disableCertVerification?: boolean;
}

/** TLS settings for `SSL` and `WSS`: extra trusted CAs (PEM) on top of Node's roots. */
export interface ElectrumTls {
  readonly ca?: readonly string[];
}

/** An open channel. `onClose` fires once, with the reason, whoever closed it. */
export interface ElectrumChannel {
  send(text: string): void;
  close(reason?: Error): void;
}

type TlsSettings = ElectrumTls & { readonly verify: boolean };

export interface ChannelHandlers {
  onMessage(text: string): void;
  onClose(reason: Error): void;
}

/** Most bytes of one message before the server is considered broken (a full block's tx list fits). */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** Splits `host:port` (IPv6 in brackets); `undefined` when malformed. */
export function parseHostPort(url: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:/\s[\]]+)):(\d{1,5})$/.exec(url);
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host: (match[1] ?? match[2])!, port };
}

/**
 * Opens a channel to `server`; resolves once it can carry messages (TCP connected, TLS handshake
 * verified, WebSocket open). `signal` aborts the attempt and, later, closes the channel.
 */
export function openChannel(server: ElectrumServer, handlers: ChannelHandlers, tls: ElectrumTls, signal: AbortSignal): Promise<ElectrumChannel> {
  const address = parseHostPort(server.url);
  if (address === undefined) return Promise.reject(new Error(`${server.url} is not host:port`));
  const verify = { ...tls, verify: server.disableCertVerification !== true };
  return server.protocol === ElectrumProtocol.Wss ? openWebSocket(address, handlers, verify, signal) : openSocket(server.protocol, address, handlers, verify, signal);
}

/** What a transport gives the shared open/close bookkeeping. */
interface Transport {
  /** Sends one message. */
  send(text: string): void;
  /** Tears the transport down at once. */
  destroy(): void;
}

/**
 * The lifecycle every transport shares: the promise settles once (open, or the first failure),
 * `signal` aborts, and after opening a close reaches `handlers.onClose` exactly once.
 */
function channelLifecycle(
  handlers: ChannelHandlers,
  signal: AbortSignal,
  resolve: (channel: ElectrumChannel) => void,
  reject: (reason: Error) => void,
): { attach(transport: Transport): void; opened(): void; close(reason: Error): void } {
  let transport: Transport | undefined;
  let open = false;
  const close = once((reason: Error) => {
    signal.removeEventListener('abort', onAbort);
    transport?.destroy();
    if (open) handlers.onClose(reason);
    else reject(reason);
  });
  const onAbort = () => close(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    attach: (t) => void (transport = t),
    opened: () => {
      open = true;
      resolve({ send: (text) => transport!.send(text), close: (reason) => close(reason ?? new Error('closed by the client')) });
    },
    close,
  };
}

function openSocket(
  protocol: ElectrumProtocol,
  { host, port }: { host: string; port: number },
  handlers: ChannelHandlers,
  tls: TlsSettings,
  signal: AbortSignal,
): Promise<ElectrumChannel> {
  return new Promise((resolve, reject) => {
    const life = channelLifecycle(handlers, signal, resolve, reject);
    if (signal.aborted) return;
    const secure = protocol === ElectrumProtocol.Ssl;
    const socket: Socket = secure
      ? tlsConnect({ host, port, servername: isIp(host) ? undefined : host, ...caOption(tls), rejectUnauthorized: tls.verify })
      : netConnect({ host, port });
    life.attach({ send: (text) => void socket.write(`${text}\n`), destroy: () => socket.destroy() });
    let buffered = '';
    socket.setNoDelay(true);
    socket.setEncoding('utf8');
    socket.once(secure ? 'secureConnect' : 'connect', life.opened);
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_MESSAGE_BYTES) return life.close(new Error('message too large'));
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== '') handlers.onMessage(line);
      }
    });
    socket.on('error', life.close);
    socket.on('close', () => life.close(new Error('connection closed by the server')));
  });
}

function openWebSocket({ host, port }: { host: string; port: number }, handlers: ChannelHandlers, tls: TlsSettings, signal: AbortSignal): Promise<ElectrumChannel> {
  return new Promise((resolve, reject) => {
    const life = channelLifecycle(handlers, signal, resolve, reject);
    if (signal.aborted) return;
    const hostPart = host.includes(':') ? `[${host}]` : host;
    const ws = new WebSocket(`wss://${hostPart}:${port}`, { ...caOption(tls), rejectUnauthorized: tls.verify, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
    life.attach({ send: (text) => ws.send(text), destroy: () => ws.terminate() });
    ws.on('open', life.opened);
    ws.on('message', (data, isBinary) => {
      if (!isBinary) handlers.onMessage(data.toString());
    });
    ws.on('error', life.close);
    ws.on('close', () => life.close(new Error('connection closed by the server')));
  });
}

function caOption(tls: ElectrumTls): { ca?: string[] } {
  // `ca` replaces Node's roots, so add them back: the extra CAs are trusted on top.
  return tls.ca && tls.ca.length > 0 ? { ca: [...rootCertificates, ...tls.ca] } : {};
}

function isIp(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

function once<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  let done = false;
  return (...args) => {
    if (done) return;
    done = true;
    fn(...args);
  };
}
