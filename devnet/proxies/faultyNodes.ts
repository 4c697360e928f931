/**
 * Misbehaving "nodes" for failure-path tests: one that refuses connections, one that never answers,
 * and a WebSocket node that accepts the socket and then never answers a message.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeServer, httpUrl, listen, LOOPBACK_HOST } from '../listening.ts';
import { reservePort } from '../testing/ports.ts';

/**
 * An `http://127.0.0.1:<port>` URL where nothing listens: a port reserved for this process and
 * never bound (see reservePort), so connecting fails fast with ECONNREFUSED for as long as the
 * process runs; no other test process, and no outgoing connection, can take it meanwhile.
 */
export async function refusedUrl(host: string = LOOPBACK_HOST): Promise<string> {
  return httpUrl(host, await reservePort(host));
}

export interface SilentNode {
  url: string;
  /** Connections accepted since start (including ones already closed). */
  connections(): number;
  /**
   * Every connection accepted so far, in order: whether it is still open and how many bytes it
   * received (a client that aborted its request has closed the socket that carried it).
   */
  sockets(): { open: boolean; bytes: number }[];
  /** Destroys open sockets and closes the listener. Idempotent. */
  stop(): Promise<void>;
}

/**
 * A TCP server that accepts connections, reads and discards whatever arrives, and never writes a
 * byte: requests to it hang until the client's own timeout fires.
 */
export async function startSilentNode(options: { host?: string; port?: number } = {}): Promise<SilentNode> {
  const host = options.host ?? LOOPBACK_HOST;
  const openSockets = new Set<Socket>();
  const seen: { open: boolean; bytes: number }[] = [];
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    const record = { open: true, bytes: 0 };
    seen.push(record);
    openSockets.add(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => (record.bytes += chunk.length));
    socket.on('close', () => {
      record.open = false;
      openSockets.delete(socket);
    });
    socket.resume();
  });
  const port = await listen(server, host, options.port ?? 0);
  let stopping: Promise<void> | undefined;
  return {
    url: httpUrl(host, port),
    connections: () => accepted,
    sockets: () => seen.map((r) => ({ ...r })),
    stop: () =>
      (stopping ??= closeServer(server, () => {
        for (const socket of openSockets) socket.destroy();
      })),
  };
}

export interface SilentWsNode {
  /** `ws://127.0.0.1:<port>`. */
  url: string;
  /** WebSocket connections accepted since start, those open now, and messages received. */
  webSockets(): { accepted: number; open: number; messages: number };
  /** Terminates open sockets and closes the listener. Idempotent. */
  stop(): Promise<void>;
}

/** A WebSocket server that completes every handshake, reads every message and answers none. */
export async function startSilentWsNode(options: { host?: string } = {}): Promise<SilentWsNode> {
  const host = options.host ?? LOOPBACK_HOST;
  const server = createHttpServer((_req, res) => res.writeHead(426).end());
  const sockets = new Set<WebSocket>();
  let accepted = 0;
  let messages = 0;
  new WebSocketServer({ server }).on('connection', (ws) => {
    accepted += 1;
    sockets.add(ws);
    ws.on('message', () => (messages += 1));
    ws.on('error', () => {});
    ws.on('close', () => sockets.delete(ws));
  });
  const port = await listen(server, host, 0);
  let stopping: Promise<void> | undefined;
  return {
    url: httpUrl(host, port).replace(/^http/, 'ws'),
    webSockets: () => ({ accepted, open: sockets.size, messages }),
    stop: () =>
      (stopping ??= closeServer(server, () => {
        server.closeAllConnections();
        for (const ws of sockets) ws.terminate();
      })),
  };
}
