/**
 * A gateway proxy for tests: it lets through only JSON-RPC calls signed the way a gateway proxy
 * checks them, and forwards those to a devnet node. Over HTTP the signed payload is the
 * `X-Auth-Payload` header; over a WebSocket, a `proxy_sign` member of each call. A call is refused
 * when the payload is missing or malformed, expired or valid for more than 15 s, signed by a key
 * whose peer id is not its `address`, wrongly signed, or signed for another URI or body size.
 * Refusals are HTTP 401 (a batch, which a proxy cannot read, 400), or over a socket the bare text
 * the proxy sends. The verification is written here from the payload's definition, apart from the
 * service's signer, so that a test through it checks the signer.
 */
import { createPublicKey, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { encodeBase58 } from 'ethers';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeServer, httpUrl, listen, LOOPBACK_HOST, readBody } from '../listening.ts';

export interface GatewayProxyOptions {
  /** The node's `http://` URL; calls go to exactly this URL, or with `forwardPath` to it + their path. */
  target: string;
  /** Forward to `target` + the request's path (REST APIs such as TRON's). */
  forwardPath?: boolean;
  /** The proxy's clock, milliseconds since the epoch (default `Date.now`): expiry is checked on it. */
  now?: () => number;
}

export interface GatewayProxyStats {
  /** Calls let through. */
  accepted: number;
  /** Why each refused call was refused, in order. */
  refused: string[];
  /** Peer ids (`address`) of the accepted calls' signers, each once. */
  signers: string[];
}

export interface GatewayProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `ws://127.0.0.1:<port>` */
  wsUrl: string;
  stats(): GatewayProxyStats;
  webSockets(): { accepted: number; open: number };
  stop(): Promise<void>;
}

/** The longest a signature may still be valid for, in seconds (as gateway proxies check). */
const MAX_SIGNATURE_LIFETIME_S = 15;
const PREFIX = Buffer.from('Encoded Message for KDP\n');
const ED25519_PROTOBUF = Buffer.from([0x08, 0x01, 0x12, 0x20]);
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

/** Starts the proxy on a free loopback port. */
export async function startGatewayProxy(options: GatewayProxyOptions): Promise<GatewayProxy> {
  const now = options.now ?? Date.now;
  const stats: GatewayProxyStats = { accepted: 0, refused: [], signers: [] };
  let origin = '';
  /** Records the verdict on a call: `why` it was refused, or its signer when let through. */
  const record = (why: string | undefined, payload: unknown): string | undefined => {
    if (why !== undefined) stats.refused.push(why);
    else {
      stats.accepted += 1;
      const signer = (payload as { address: string }).address;
      if (!stats.signers.includes(signer)) stats.signers.push(signer);
    }
    return why;
  };
  const judge = (payload: unknown, uri: string, bodySize: number) => record(refusal(payload, uri, bodySize, Math.floor(now() / 1000)), payload);
  const forward = (path: string, body: string) =>
    fetch(options.forwardPath ? `${options.target.replace(/\/+$/, '')}${path}` : options.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  const server = createServer((req, res) => void serveHttp(req, res));
  async function serveHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, 1024 * 1024);
    const header = req.headers['x-auth-payload'];
    if (body.trimStart().startsWith('[')) {
      record('a batch', undefined);
      return reply(res, 400, 'a batch is not a JSON-RPC call');
    }
    const why =
      typeof header === 'string'
        ? judge(parse(header), new URL(req.url ?? '/', origin).href, Buffer.byteLength(body))
        : record('missing X-Auth-Payload', undefined);
    if (why !== undefined) return reply(res, 401, 'Unauthorized');
    const upstream = await forward(req.url ?? '/', body);
    reply(res, upstream.status, await upstream.text());
  }

  const sockets = new Set<WebSocket>();
  let acceptedSockets = 0;
  new WebSocketServer({ server }).on('connection', (ws, req) => {
    acceptedSockets += 1;
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', () => {});
    const uri = new URL(req.url ?? '/', origin.replace(/^http/, 'ws')).href;
    ws.on('message', (data) => void serveMessage(ws, uri, data.toString()));
  });
  async function serveMessage(ws: WebSocket, uri: string, text: string): Promise<void> {
    const message = parse(text) as ({ proxy_sign?: unknown } & Record<string, unknown>) | undefined;
    if (typeof message !== 'object' || message === null || Array.isArray(message) || message.proxy_sign === undefined) {
      record('missing proxy_sign', undefined);
      return ws.send('Invalid payload. missing field `proxy_sign`');
    }
    const { proxy_sign: proxySign, ...call } = message;
    const unsigned = JSON.stringify(call);
    if (judge(proxySign, uri, Buffer.byteLength(unsigned)) !== undefined) return ws.send('401 Unauthorized');
    const upstream = await forward(new URL(uri).pathname, unsigned);
    if (ws.readyState === ws.OPEN) ws.send(await upstream.text());
  }

  const port = await listen(server, LOOPBACK_HOST, 0);
  origin = httpUrl(LOOPBACK_HOST, port);
  let stopping: Promise<void> | undefined;
  return {
    url: origin,
    wsUrl: origin.replace(/^http/, 'ws'),
    stats: () => ({ accepted: stats.accepted, refused: [...stats.refused], signers: [...stats.signers] }),
    webSockets: () => ({ accepted: acceptedSockets, open: sockets.size }),
    stop: () =>
      (stopping ??= closeServer(server, () => {
        server.closeAllConnections();
        for (const ws of sockets) ws.terminate();
      })),
  };
}

/**
 * Why the signed payload does not authorize a call of `bodySize` bytes to `uri` at `nowS`, or
 * `undefined` when it does. The signed bytes: prefix, public key, URI, body size and expiry (both
 * 64-bit little-endian).
 */
export function refusal(payload: unknown, uri: string, bodySize: number, nowS: number): string | undefined {
  const p = payload as { signature_bytes?: unknown; address?: unknown; raw_message?: Record<string, unknown> } | undefined;
  const raw = p?.raw_message;
  if (!isBytes(p?.signature_bytes) || typeof p?.address !== 'string' || raw === undefined || typeof raw['uri'] !== 'string' || !Number.isSafeInteger(raw['body_size']) || !isBytes(raw['public_key_encoded']) || !Number.isSafeInteger(raw['expires_at'])) {
    return 'malformed payload';
  }
  const expiresAt = raw['expires_at'] as number;
  if (expiresAt - nowS <= 0) return 'expired';
  if (expiresAt - nowS > MAX_SIGNATURE_LIFETIME_S) return 'valid for too long';
  const publicKey = Buffer.from(raw['public_key_encoded'] as number[]);
  if (publicKey.length !== 36 || !publicKey.subarray(0, 4).equals(ED25519_PROTOBUF)) return 'not an ed25519 key';
  if (encodeBase58(Buffer.concat([Buffer.from([0x00, 0x24]), publicKey])) !== p.address) return 'address is not the key\'s peer id';
  const numbers = Buffer.alloc(16);
  numbers.writeBigUInt64LE(BigInt(raw['body_size'] as number), 0);
  numbers.writeBigInt64LE(BigInt(expiresAt), 8);
  const signed = Buffer.concat([PREFIX, publicKey, Buffer.from(raw['uri'] as string), numbers]);
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey.subarray(4)]), format: 'der', type: 'spki' });
  if (!verify(null, signed, key, Buffer.from(p.signature_bytes as number[]))) return 'bad signature';
  if (raw['uri'] !== uri || raw['body_size'] !== bodySize) return 'signed for another request';
  return undefined;
}

function isBytes(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'text/plain' }).end(body);
}
