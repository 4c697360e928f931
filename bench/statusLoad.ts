/**
 * The status-poll load generator. It runs in its own process (see statusLoadClient.ts), so the
 * clients never share an event loop, or a core, with the server they measure.
 *
 * One run: `clients` concurrent loops, each on its own keep-alive connection (one `node:http`
 * Agent, `maxSockets = clients`), POSTing a `task::enable_eth::status` body for a random live task
 * and waiting for the full answer before the next. Requests in the first `warmupMs` are not
 * counted; then every request that *starts* within `durationMs` is counted and timed, and the run
 * ends when those are answered.
 */
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/**
 * How the clients speak HTTP: `http` = `node:http` requests through one keep-alive Agent; `raw` =
 * one kept-alive TCP socket per client writing the same HTTP/1.1 request by hand and reading just
 * the status line, Content-Length and body (several times cheaper per request, so the load
 * generator cannot become the bottleneck before the server does).
 */
export type ClientTransport = 'http' | 'raw';

export interface LoadRun {
  /** `http://host:port` of the server under load. */
  readonly url: string;
  readonly password: string;
  /** Task ids to poll (chosen uniformly at random per request). */
  readonly taskIds: readonly number[];
  readonly clients: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Every counted answer must be HTTP 200 and contain this text (else it counts as an error). */
  readonly expect: string;
  readonly transport: ClientTransport;
}

export interface LoadResult {
  /** Counted (measured-window) requests answered as expected. */
  readonly requests: number;
  /** Counted requests answered otherwise (wrong status or body, socket error). */
  readonly errors: number;
  /** From the start of the measured window to the last counted answer. */
  readonly elapsedMs: number;
  /** Latency of each counted request, ms, ascending. */
  readonly latenciesMs: number[];
  /** Bytes of one answer body (the first counted one). */
  readonly responseBytes: number;
  /** Bytes of one request body. */
  readonly requestBytes: number;
  /** CPU the load generator used in the measured window, as a fraction of one core. */
  readonly clientCpu: number;
  /** Every request answered in the run, warm-up and drain included (for CPU per request). */
  readonly totalRequests: number;
  /** First unexpected answer, for diagnosis. */
  readonly firstError?: string;
}

/** The JSON-RPC body of one poll. */
export function statusBody(password: string, taskId: number): string {
  return JSON.stringify({
    mmrpc: '2.0',
    userpass: password,
    method: 'task::enable_eth::status',
    params: { task_id: taskId, forget_if_finished: false },
  });
}

type Answer = { status: number; text: string };
type Poster = { post(body: string): Promise<Answer>; close(): void };

function httpPoster(url: URL, agent: http.Agent): Poster {
  return {
    post: (body) =>
      new Promise((resolve, reject) => {
        const req = http.request(
          { host: url.hostname, port: url.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
    close: () => {},
  };
}

/** One keep-alive connection; one request at a time (no pipelining), like an Agent socket. */
function rawPoster(url: URL): Poster {
  const socket = net.connect(Number(url.port), url.hostname);
  socket.setNoDelay(true);
  const head = `POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\nContent-Length: `;
  let buffer: Buffer = Buffer.alloc(0);
  let pending: { resolve(a: Answer): void; reject(e: unknown): void } | undefined;
  const fail = (e: unknown) => {
    pending?.reject(e);
    pending = undefined;
  };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('connection closed')));
  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const headers = buffer.toString('latin1', 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(headers);
    if (!length) return fail(new Error(`no content-length: ${headers.slice(0, 200)}`));
    const total = end + 4 + Number(length[1]);
    if (buffer.length < total) return;
    const text = buffer.toString('utf8', end + 4, total);
    buffer = buffer.subarray(total);
    const p = pending;
    pending = undefined;
    p?.resolve({ status: Number(headers.slice(9, 12)), text });
  });
  return {
    post: (body) =>
      new Promise((resolve, reject) => {
        pending = { resolve, reject };
        socket.write(`${head}${Buffer.byteLength(body)}\r\n\r\n${body}`);
      }),
    close: () => socket.destroy(),
  };
}

export async function runLoad(run: LoadRun): Promise<LoadResult> {
  const url = new URL(run.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: run.clients });
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let responseBytes = -1;
  const start = performance.now();
  const windowStart = start + run.warmupMs;
  const windowEnd = windowStart + run.durationMs;
  let lastCounted = windowStart;
  let cpuAtWindow: NodeJS.CpuUsage | undefined;
  const ids = run.taskIds;
  const requestBytes = Buffer.byteLength(statusBody(run.password, ids[0]!));

  let totalRequests = 0;
  const client = async () => {
    const poster = run.transport === 'raw' ? rawPoster(url) : httpPoster(url, agent);
    try {
      await loop(poster);
    } finally {
      poster.close();
    }
  };
  const loop = async (poster: Poster) => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= windowEnd) return;
      const counted = t0 >= windowStart;
      if (counted && cpuAtWindow === undefined) cpuAtWindow = process.cpuUsage();
      const body = statusBody(run.password, ids[Math.floor(Math.random() * ids.length)]!);
      let ok = false;
      let problem = '';
      try {
        const answer = await poster.post(body);
        totalRequests += 1;
        ok = answer.status === 200 && answer.text.includes(run.expect);
        if (!ok) problem = `HTTP ${answer.status}: ${answer.text.slice(0, 300)}`;
        else if (counted && responseBytes < 0) responseBytes = Buffer.byteLength(answer.text);
      } catch (e) {
        problem = e instanceof Error ? e.message : String(e);
      }
      const t1 = performance.now();
      if (!counted) continue;
      lastCounted = Math.max(lastCounted, t1);
      if (ok) latencies.push(t1 - t0);
      else {
        errors += 1;
        firstError ??= problem;
      }
    }
  };
  await Promise.all(Array.from({ length: run.clients }, client));
  const cpu = process.cpuUsage(cpuAtWindow);
  const elapsedMs = lastCounted - windowStart;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    elapsedMs,
    latenciesMs: latencies,
    responseBytes,
    requestBytes,
    clientCpu: (cpu.user + cpu.system) / 1000 / elapsedMs,
    totalRequests,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

// As a child process started on this file (not when another child imports `statusBody`): run
// what the parent sends, answer with the result.
if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.on('message', (message: { type: 'run'; run: LoadRun } | { type: 'exit' }) => {
    if (message.type === 'exit') process.exit(0);
    runLoad(message.run).then(
      (result) => process.send!({ type: 'result', result }),
      (error: unknown) => process.send!({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
  process.send({ type: 'ready' });
}
