/**
 * The two servers the status bench loads: the real service holding N live tasks, and a bare
 * `node:http` JSON echo server answering a body of the same size.
 */
import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../kernel/clock.ts';
import { loadNodeConfig } from '../infra/config/index.ts';
import type { HardwareWallet } from '../actors/ports/hardwareWallet.ts';
import { startService, type RunningService } from '../service.ts';
import { DEVNET_CHAIN_ID, SWAP_CONTRACT, TEST_PASSPHRASE, TEST_PASSWORD } from '../devnet/testing/stack.ts';
import { statusBody } from './statusLoad.ts';

export const BENCH_PASSWORD = TEST_PASSWORD;

/** What a live task answers: the status every poll must see. */
export const LIVE_STATUS = { status: 'InProgress', details: 'WaitingForHardwareToConnect' } as const;

/** A device that is never plugged in: every wait lasts until the task gives up (abort). */
const absentDevice: HardwareWallet = {
  waitForDevice: (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
  ethereumPublicKey: () => Promise.reject(new Error('no device')),
  accountPublicNode: () => Promise.reject(new Error('no device')),
  close: async () => {},
};

export interface LiveTaskService {
  readonly url: string;
  readonly service: RunningService;
  readonly taskIds: readonly number[];
  /** Milliseconds to create the tasks (all `init`s answered) and see every one live. */
  readonly setupMs: number;
  stop(): Promise<void>;
}

async function call(url: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify({ mmrpc: '2.0', userpass: BENCH_PASSWORD, method, params }) });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${method} answered HTTP ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/**
 * The real service (system clock, its logs silenced by the bench) with `count` hardware tasks,
 * one per coin `LIVE0000`…, all waiting for a device that never connects (connect timeout 1 h).
 * Node URLs are never contacted: the tasks never get past the device. With `clientIds`, task i
 * gets `client_id` i mod `clientIds`.
 */
export async function startLiveTaskService(count: number, options: { clientIds?: number } = {}): Promise<LiveTaskService> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-task-status-'));
  const tickers = Array.from({ length: count }, (_, i) => `LIVE${String(i).padStart(4, '0')}`);
  const coins = tickers.map((coin) => ({ coin, decimals: 18, derivation_path: "m/44'/60'", protocol: { type: 'ETH', protocol_data: { chain_id: DEVNET_CHAIN_ID } } }));
  await writeFile(join(dir, 'coins'), JSON.stringify(coins));
  await writeFile(join(dir, 'MM2.json'), JSON.stringify({ rpc_password: BENCH_PASSWORD, passphrase: TEST_PASSPHRASE, dbdir: join(dir, 'db') }));
  const config = await loadNodeConfig({ cwd: dir, env: {} });
  const service = await startService({
    config,
    port: 0,
    clock: systemClock,
    hardware: async () => absentDevice,
    taskTimeouts: { connectMs: 3_600_000, pinMs: 3_600_000, confirmMs: 3_600_000 },
  });
  const stop = async () => {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const started = performance.now();
    const taskIds: number[] = [];
    for (let i = 0; i < count; i += 50) {
      const answers = await Promise.all(
        tickers.slice(i, i + 50).map((ticker) =>
          call(service.url, 'task::enable_eth::init', {
            ticker,
            nodes: [{ url: 'http://127.0.0.1:9' }],
            swap_contract_address: SWAP_CONTRACT,
            fallback_swap_contract: SWAP_CONTRACT,
            erc20_tokens_requests: [],
            priv_key_policy: 'Hardware',
            // The stream bench spreads the tasks over its clients' `/event-stream?id=`.
            ...(options.clientIds === undefined ? {} : { client_id: tickers.indexOf(ticker) % options.clientIds }),
          }),
        ),
      );
      taskIds.push(...answers.map((a) => a.result.task_id as number));
    }
    await assertAllLive(service.url, taskIds);
    return { url: service.url, service, taskIds, setupMs: performance.now() - started, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Throws unless every task reports the live status (waits up to 10 s for the last to get there). */
export async function assertAllLive(url: string, taskIds: readonly number[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  let pending = [...taskIds];
  while (pending.length > 0) {
    const answers = await Promise.all(pending.map((id) => call(url, 'task::enable_eth::status', { task_id: id, forget_if_finished: false })));
    const notLive = pending.filter((_, i) => JSON.stringify(answers[i].result) !== JSON.stringify(LIVE_STATUS));
    if (notLive.length > 0 && Date.now() > deadline) {
      const i = pending.indexOf(notLive[0]!);
      throw new Error(`${notLive.length} task(s) not live, e.g. ${notLive[0]}: ${JSON.stringify(answers[i].result)}`);
    }
    pending = notLive;
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 20));
  }
}

export interface BareServer {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * The baseline: plain `node:http`, reads the body, parses the JSON, answers a JSON object built
 * from it, the same bytes as the service's answer to a live task's status, with the content type
 * and length. No auth, no validation, no lookup.
 */
export async function startBareEchoServer(): Promise<BareServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let request: { mmrpc?: unknown; id?: unknown };
      try {
        request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const text = JSON.stringify({ mmrpc: request.mmrpc, result: LIVE_STATUS, id: request.id ?? null });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The service's answer to one live status poll, and the bare server's, as text (for the size check). */
export async function sampleAnswers(serviceUrl: string, bareUrl: string, taskId: number): Promise<{ service: string; bare: string }> {
  const body = statusBody(BENCH_PASSWORD, taskId);
  const [service, bare] = await Promise.all(
    [serviceUrl, bareUrl].map(async (url) => (await fetch(url, { method: 'POST', body })).text()),
  );
  return { service: service!, bare: bare! };
}
