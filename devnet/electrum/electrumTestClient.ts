/**
 * A bare Electrum client for tests, written against the wire format rather than any client
 * library: newline-delimited JSON-RPC 2.0 over TCP or TLS, one message per text frame over WSS.
 */
import { connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';
import WebSocket from 'ws';
import type { ElectrumTransport } from './transports.ts';

/** The server answered with a JSON-RPC error. */
export class ElectrumCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ElectrumCallError';
  }
}

export interface ElectrumTestClient {
  /** One request; rejects with {@link ElectrumCallError}, or after `timeoutMs` (default 10 s) without an answer. */
  call<T = unknown>(method: string, params?: unknown[], timeoutMs?: number): Promise<T>;
  /** Sends one array (elements without `id` are notifications); resolves with the array answered. */
  batch(requests: { method: string; params?: unknown[]; notification?: boolean }[]): Promise<{ id: number; result?: unknown; error?: { code: number; message: string } }[]>;
  /** Sends a message as is. */
  sendRaw(text: string): void;
  /** The params of the next server notification with `method` (buffered if it came earlier). */
  notification(method: string, timeoutMs?: number): Promise<unknown[]>;
  /** Resolves when the connection is closed (by either side). */
  readonly closed: Promise<void>;
  close(): void;
}

type Message = { id?: number | null; method?: string; params?: unknown[]; result?: unknown; error?: { code: number; message: string } };

/** Connects to `host:port`; `ca` is trusted for SSL/WSS (default: Node's CA store, which knows no test CA). */
export async function connectElectrum(transport: ElectrumTransport, address: string, tls: { ca?: string } = {}): Promise<ElectrumTestClient> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  const pending = new Map<number, (message: Message) => void>();
  let pendingBatch: ((messages: Message[]) => void) | undefined;
  const notifications: Message[] = [];
  const waiters = new Set<() => void>();
  const receive = (text: string) => {
    const parsed = JSON.parse(text) as Message | Message[];
    if (Array.isArray(parsed)) return pendingBatch?.(parsed);
    if (parsed.id !== undefined && parsed.id !== null && pending.has(parsed.id)) return pending.get(parsed.id)!(parsed);
    notifications.push(parsed);
    waiters.forEach((wake) => wake());
  };

  let send: (text: string) => void;
  let close: () => void;
  let closed: Promise<void>;
  if (transport === 'WSS') {
    const ws = new WebSocket(`wss://${address}`, { ca: tls.ca });
    await new Promise<void>((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.on('message', (data) => receive(data.toString()));
    [send, close] = [(text) => ws.send(text), () => ws.close()];
    closed = new Promise((resolve) => ws.once('close', () => resolve()));
  } else {
    const socket = transport === 'TCP' ? connectTcp(port, host) : connectTls({ host, port, ca: tls.ca });
    await new Promise<void>((resolve, reject) => socket.once(transport === 'TCP' ? 'connect' : 'secureConnect', resolve).once('error', reject));
    let buffered = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        receive(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
    });
    socket.on('error', () => {});
    [send, close] = [(text) => socket.write(`${text}\n`), () => socket.destroy()];
    closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  let nextId = 0;
  return {
    call<T>(method: string, params: unknown[] = [], timeoutMs = 10_000): Promise<T> {
      const id = ++nextId;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => (pending.delete(id), reject(new Error(`${method}: no answer within ${timeoutMs} ms`))), timeoutMs);
        pending.set(id, (message) => {
          clearTimeout(timer);
          pending.delete(id);
          if (message.error) reject(new ElectrumCallError(message.error.code, message.error.message));
          else resolve(message.result as T);
        });
        send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    },
    batch(requests) {
      const body = requests.map(({ method, params = [], notification }) => (notification ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id: ++nextId, method, params }));
      return new Promise((resolve) => {
        pendingBatch = (messages) => resolve(messages as never);
        send(JSON.stringify(body));
      });
    },
    sendRaw: (text) => send(text),
    notification(method, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const take = () => {
          const index = notifications.findIndex((n) => n.method === method);
          if (index < 0) return false;
          const [found] = notifications.splice(index, 1);
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(found!.params ?? []);
          return true;
        };
        const wake = () => void take();
        const timer = setTimeout(() => (waiters.delete(wake), reject(new Error(`no ${method} notification within ${timeoutMs} ms`))), timeoutMs);
        if (!take()) waiters.add(wake);
      });
    },
    closed,
    close: () => close(),
  };
}
