/**
 * Electrum's transports on loopback: newline-delimited JSON over plain TCP ("TCP") and over TLS
 * ("SSL"), and WebSocket over TLS ("WSS": one JSON message per text frame, no newline).
 */
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { WebSocketServer } from 'ws';
import { closeServer, listen } from '../listening.ts';
import type { TlsKeyPair } from './devnetTls.ts';

export const ELECTRUM_TRANSPORTS = { TCP: 'TCP', SSL: 'SSL', WSS: 'WSS' } as const;
export type ElectrumTransport = (typeof ELECTRUM_TRANSPORTS)[keyof typeof ELECTRUM_TRANSPORTS];

/** One client connection, whatever carries it. */
export interface Connection {
  /** Sends one JSON message (a newline is added on TCP/SSL). Ignored once closed. */
  send(text: string): void;
  close(): void;
}

export interface ConnectionHandler {
  /** Called for each TCP connection before any TLS or WebSocket handshake; false drops it at once. */
  admit(): boolean;
  /** The connection is ready; returns what to do with each message it carries and with its end. */
  open(connection: Connection): { message(text: string): void; closed(): void };
}

export interface TransportListener {
  /** `host:port` */
  address: string;
  /** Closes the listener and destroys its connections. */
  stop(): Promise<void>;
}

/** Above this a message is not Electrum traffic: the connection is dropped. */
const MAX_MESSAGE_CHARS = 10 * 1024 * 1024;

/** Starts one transport on `host:port` (0 = a free port). SSL and WSS need `tls`. */
export async function listenTransport(kind: ElectrumTransport, handler: ConnectionHandler, options: { host: string; port: number; tls?: TlsKeyPair }): Promise<TransportListener> {
  const server = kind === ELECTRUM_TRANSPORTS.TCP ? createTcpServer((socket) => serveLines(socket, handler)) : tlsServer(kind, handler, options.tls);
  const sockets = new Set<Socket>();
  // First listener on the raw socket: refused connections die before TLS/WebSocket see them.
  server.prependListener('connection', (socket: Socket) => {
    socket.on('error', () => {});
    if (!handler.admit()) return void socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => {}); // a client that rejects our certificate: nothing to do
  const port = await listen(server, options.host, options.port);
  return {
    address: `${options.host}:${port}`,
    async stop() {
      await closeServer(server, () => sockets.forEach((socket) => socket.destroy()));
    },
  };
}

/** SSL: lines over TLS; WSS: WebSocket frames over HTTPS (plain HTTP requests get 426). */
function tlsServer(kind: 'SSL' | 'WSS', handler: ConnectionHandler, tls: TlsKeyPair | undefined): Server {
  if (!tls) throw new Error(`${kind} needs a TLS key and certificate`);
  if (kind === ELECTRUM_TRANSPORTS.SSL) return createTlsServer({ key: tls.key, cert: tls.cert }, (socket) => serveLines(socket, handler));
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (_req, res) => res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only\n'));
  new WebSocketServer({ server, maxPayload: MAX_MESSAGE_CHARS }).on('connection', (ws) => {
    const sink = handler.open({ send: (text) => ws.readyState === ws.OPEN && ws.send(text), close: () => ws.close() });
    ws.on('message', (data) => sink.message(data.toString()));
    ws.on('close', () => sink.closed());
    ws.on('error', () => {});
  });
  return server;
}

/** Newline-delimited JSON on a TCP or TLS socket. */
function serveLines(socket: Socket, handler: ConnectionHandler): void {
  if (socket.destroyed) return;
  socket.on('error', () => {});
  const sink = handler.open({
    send: (text) => {
      if (!socket.destroyed && socket.writable) socket.write(`${text}\n`);
    },
    close: () => socket.end(),
  });
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line.length > 0) sink.message(line);
    }
    if (buffered.length > MAX_MESSAGE_CHARS) socket.destroy();
  });
  socket.once('close', () => sink.closed());
}
