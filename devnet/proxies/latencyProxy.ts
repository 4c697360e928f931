/**
 * An HTTP proxy in front of a JSON-RPC (or, with `forwardPath`, any HTTP) node that adds latency
 * and counts traffic.
 * With `latencyMs: 0` it is a plain counting proxy.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { sleep, systemClock } from '../../kernel/clock.ts';
import { closeServer, httpUrl, listen, LOOPBACK_HOST } from '../listening.ts';

export interface LatencyProxyOptions {
  /** The node's `http://` URL. Every request is forwarded to exactly this URL, whatever its path. */
  target: string;
  /** Forward to `target` + the request's own path and query instead (REST APIs such as TRON's). */
  forwardPath?: boolean;
  /** Delay added before forwarding each HTTP request, i.e. to each round trip. Default 50. */
  latencyMs?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
}

export interface LatencyProxyStats {
  httpRequests: number;
  /** JSON-RPC calls: a batch counts once per element. */
  rpcCalls: number;
  byMethod: Record<string, number>;
  /** `eth_call`s without `to` (deployless calls), also counted in `byMethod.eth_call`. */
  callsWithoutTo: number;
  /** Most HTTP requests in flight (received, not yet answered) at the same time. */
  maxInFlight: number;
}

export interface LatencyProxy {
  url: string;
  /** A snapshot; later traffic does not change it. */
  stats(): LatencyProxyStats;
  /** Zeroes the counters; `maxInFlight` restarts from the requests in flight right now. */
  reset(): void;
  /**
   * Holds every request (received and counted, not forwarded) until the returned function is
   * called: a test can prove an answer did not wait for the node without timing anything.
   */
  hold(): () => void;
  /** Closes the listener, client connections and upstream connections. Idempotent. */
  stop(): Promise<void>;
}

const HOP_BY_HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer']);

/** Starts the proxy on loopback and resolves once it listens. */
export async function startLatencyProxy(options: LatencyProxyOptions): Promise<LatencyProxy> {
  const target = new URL(options.target);
  if (target.protocol !== 'http:') throw new Error(`latency proxy target must be http://, got ${options.target}`);
  const latencyMs = options.latencyMs ?? 50;
  const host = options.host ?? LOOPBACK_HOST;
  const upstreamAgent = new Agent({ keepAlive: true });
  const counters = { httpRequests: 0, rpcCalls: 0, byMethod: new Map<string, number>(), callsWithoutTo: 0, maxInFlight: 0 };
  let inFlight = 0;
  let gate: Promise<void> | undefined;

  const countCalls = (body: Buffer) => {
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      return;
    }
    for (const call of Array.isArray(payload) ? payload : [payload]) {
      counters.rpcCalls += 1;
      const method = (call as { method?: unknown } | null)?.method;
      if (typeof method === 'string') counters.byMethod.set(method, (counters.byMethod.get(method) ?? 0) + 1);
      if (method === 'eth_call' && isCallWithoutTo((call as { params?: unknown }).params)) counters.callsWithoutTo += 1;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    counters.httpRequests += 1;
    inFlight += 1;
    counters.maxInFlight = Math.max(counters.maxInFlight, inFlight);
    const clientGone = new AbortController();
    res.on('close', () => {
      inFlight -= 1;
      if (!res.writableFinished) clientGone.abort();
    });
    const body = await readAll(req);
    countCalls(body);
    if (latencyMs > 0) {
      try {
        await sleep(systemClock, latencyMs, clientGone.signal);
      } catch {
        return;
      }
    }
    while (gate !== undefined && !clientGone.signal.aborted) await gate;
    if (clientGone.signal.aborted) return;
    const to = options.forwardPath ? new URL(`${target.pathname.replace(/\/$/, '')}${req.url ?? '/'}`, target) : target;
    forward(req, res, body, to, upstreamAgent, clientGone.signal);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const port = await listen(server, host, options.port ?? 0);
  let stopping: Promise<void> | undefined;
  return {
    url: httpUrl(host, port),
    stats: () => ({
      httpRequests: counters.httpRequests,
      rpcCalls: counters.rpcCalls,
      byMethod: Object.fromEntries(counters.byMethod),
      callsWithoutTo: counters.callsWithoutTo,
      maxInFlight: counters.maxInFlight,
    }),
    reset: () => {
      counters.httpRequests = 0;
      counters.rpcCalls = 0;
      counters.byMethod.clear();
      counters.callsWithoutTo = 0;
      counters.maxInFlight = inFlight;
    },
    hold: () => {
      let open!: () => void;
      const held = new Promise<void>((resolve) => (open = resolve));
      gate = held;
      return () => {
        if (gate === held) gate = undefined;
        open();
      };
    },
    stop: () =>
      (stopping ??= closeServer(server, () => {
        server.closeAllConnections();
        upstreamAgent.destroy();
      })),
  };
}

/** Sends the buffered request to `target` and streams the answer back; 502 if the node fails. */
function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, target: URL, agent: Agent, signal: AbortSignal): void {
  const upstream = httpRequest(
    target,
    { method: req.method, headers: { ...withoutHopByHop(req.headers), host: target.host, 'content-length': body.length }, agent, signal },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    },
  );
  upstream.on('error', (error) => {
    if (res.headersSent || res.destroyed) return void res.destroy();
    const text = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: `Bad gateway: ${error.message}` } });
    res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  });
  upstream.end(body);
}

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP_HEADERS.has(name.toLowerCase())));
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Whether an `eth_call`'s params carry a transaction without `to`. */
function isCallWithoutTo(params: unknown): boolean {
  const tx = Array.isArray(params) ? (params[0] as { to?: unknown } | null | undefined) : undefined;
  return typeof tx === 'object' && tx !== null && (tx.to === undefined || tx.to === null);
}
