/**
 * The client side of the stream bench: GUIs that follow their tasks on `/event-stream?id=<k>`, or
 * that poll `task::enable_eth::status` for each of their tasks every `periodMs`. Each records when
 * it first saw each change (by its `details`), in epoch ms comparable with the server process.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { statusBody } from './statusLoad.ts';

export const epochMs = (): number => performance.timeOrigin + performance.now();

export interface Watchers {
  /** `details` of each change → when a client first saw it. */
  readonly seen: Map<string, number>;
  stop(): void;
}

/** `clients` streams, client k on `/event-stream?id=k`; resolves once every one got its `ready` frame. */
export async function startStreamWatchers(url: string, password: string, clients: number): Promise<Watchers> {
  const seen = new Map<string, number>();
  const requests: http.ClientRequest[] = [];
  await Promise.all(
    Array.from({ length: clients }, (_, k) =>
      new Promise<void>((resolve, reject) => {
        const req = http.get(`${url}/event-stream?id=${k}`, { headers: { authorization: `Bearer ${password}` } }, (res) => {
          if (res.statusCode !== 200) return reject(new Error(`/event-stream answered ${res.statusCode}`));
          res.setEncoding('utf8');
          let text = '';
          res.on('data', (chunk: string) => {
            const now = epochMs();
            text += chunk;
            const end = text.lastIndexOf('\n\n');
            if (end < 0) return;
            for (const frame of text.slice(0, end).split('\n\n')) {
              if (frame.startsWith('event: ready')) resolve();
              const data = frame.split('\n').find((line) => line.startsWith('data: '));
              if (data === undefined || !data.includes('"TASK:')) continue;
              const details = JSON.parse(data.slice(6)).message.details as string;
              if (!seen.has(details)) seen.set(details, now);
            }
            text = text.slice(end + 2);
          });
        });
        req.on('error', reject);
        requests.push(req);
      }),
    ),
  );
  return { seen, stop: () => requests.forEach((r) => r.destroy()) };
}

/** `clients` pollers; client k owns the tasks at positions ≡ k (mod clients) and polls each every `periodMs`. */
export function startPollers(url: string, password: string, taskIds: readonly number[], clients: number, periodMs: number): Watchers & { readonly requests: () => number; readonly errors: () => number } {
  const seen = new Map<string, number>();
  const target = new URL(url);
  let requests = 0;
  let errors = 0;
  const agents = Array.from({ length: clients }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const poll = (agent: http.Agent, taskId: number) => {
    const body = statusBody(password, taskId);
    const req = http.request({ host: target.hostname, port: target.port, method: 'POST', path: '/', agent, headers: { 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const now = epochMs();
        requests += 1;
        if (res.statusCode !== 200) return void (errors += 1);
        const details = JSON.parse(text).result?.details;
        if (typeof details === 'string' && details.startsWith('Bench:') && !seen.has(details)) seen.set(details, now);
      });
    });
    req.on('error', () => (errors += 1));
    req.end(body);
  };
  // One timer paces every poll on elapsed time: poll i of the period goes out at i/N of it.
  const started = performance.now();
  let issued = 0;
  const total = taskIds.length;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / periodMs) * total);
    for (; issued < due; issued++) {
      const position = issued % total;
      poll(agents[position % clients]!, taskIds[position]!);
    }
  }, 5);
  return {
    seen,
    requests: () => requests,
    errors: () => errors,
    stop() {
      clearInterval(timer);
      for (const agent of agents) agent.destroy();
    },
  };
}
