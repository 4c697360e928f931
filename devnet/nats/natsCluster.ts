import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservePort } from '../testing/ports.ts';
import { natsServerBinary, untilListening } from './natsServer.ts';

/** One server of a {@link NatsCluster}. */
export interface ClusterServer {
  /** `server_name` (`n1`, `n2`, …): what stream and consumer infos name as leader and replicas. */
  readonly name: string;
  readonly url: string;
  readonly port: number;
  /** True while its process runs. */
  running(): boolean;
  /** SIGKILL: no clean shutdown, no leadership handed over; its store is kept. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and store. */
  restart(): Promise<void>;
}

/** A JetStream cluster of real `nats-server` processes on 127.0.0.1, for tests. */
export interface NatsCluster {
  readonly servers: readonly ClusterServer[];
  /** Every client URL (what `nats.servers` lists). */
  readonly urls: readonly string[];
  server(name: string): ClusterServer;
  /** Kills every server and removes the temporary folder. */
  stop(): Promise<void>;
}

/**
 * Starts `size` (default 3) `nats-server -js` processes on random loopback ports, routed to each
 * other as one cluster, each with its own store under one temporary folder (removed by `stop`,
 * and on process exit). Resolves once every server listens; JetStream may need a few seconds more
 * to elect its meta leader (creating a stream retries until it can).
 */
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await reservePort(), route: await reservePort() })));
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`);
  const servers = await Promise.all(
    ports.map(async (p, i) => {
      const name = `n${i + 1}`;
      const store = join(dir, name);
      await mkdir(store);
      const config = join(dir, `${name}.conf`);
      await writeFile(config, serverConfig(name, p.client, p.route, store, routes.filter((_, j) => j !== i)));
      return clusterServer(name, p.client, config);
    }),
  );
  const cleanup = () => {
    for (const s of servers) s.killNow();
  };
  process.once('exit', cleanup);
  const started = await Promise.allSettled(servers.map((s) => s.restart()));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed !== undefined) {
    // the servers that did start would keep the test process alive: a failed start leaves nothing
    process.removeListener('exit', cleanup);
    await Promise.all(servers.map((s) => s.kill()));
    await rm(dir, { recursive: true, force: true });
    throw failed.reason;
  }
  return {
    servers,
    urls: servers.map((s) => s.url),
    server(name) {
      const found = servers.find((s) => s.name === name);
      if (found === undefined) throw new Error(`no server ${name} in the cluster`);
      return found;
    },
    async stop() {
      process.removeListener('exit', cleanup);
      await Promise.all(servers.map((s) => s.kill()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function serverConfig(name: string, port: number, routePort: number, store: string, routes: string[]): string {
  return [
    `server_name: ${name}`,
    `listen: 127.0.0.1:${port}`,
    `jetstream { store_dir: ${JSON.stringify(store)} }`,
    `cluster {`,
    `  name: activation-test`,
    `  listen: 127.0.0.1:${routePort}`,
    `  routes: [${routes.map((r) => JSON.stringify(r)).join(', ')}]`,
    `}`,
    '',
  ].join('\n');
}

function clusterServer(name: string, port: number, config: string): ClusterServer & { killNow(): void } {
  let child: ChildProcess | undefined;
  let output = '';
  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  return {
    name,
    url: `nats://127.0.0.1:${port}`,
    port,
    running: alive,
    async restart() {
      if (alive()) return;
      output = '';
      const c = spawn(natsServerBinary(), ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      c.stdout?.on('data', (d) => (output = (output + String(d)).slice(-4000)));
      c.stderr?.on('data', (d) => (output = (output + String(d)).slice(-4000)));
      await untilListening(port, c, () => output);
    },
    async kill() {
      const c = child;
      if (c === undefined || !alive()) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      });
    },
    killNow() {
      if (alive()) child?.kill('SIGKILL');
    },
  };
}
