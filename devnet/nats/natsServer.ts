import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { reservePort } from '../testing/ports.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real `nats-server -js` on 127.0.0.1 for tests, with its own store directory. */
export interface NatsServer {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** Kills the server (SIGKILL: no clean shutdown), keeping its store. */
  kill(): Promise<void>;
  /** Starts it again on the same port and store. */
  restart(): Promise<void>;
  /** Kills it and removes the store. */
  stop(): Promise<void>;
}

/** Path of the Debian package's binary, or whatever `nats-server` is on PATH. */
export function natsServerBinary(): string {
  for (const candidate of ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) {
    if (existsSync(candidate)) return candidate;
  }
  return 'nats-server';
}


/** Resolves once a server accepts TCP connections (it prints nothing we must parse). */
export async function untilListening(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited (${child.exitCode}): ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nats-server did not listen on ${port} within 10 s: ${log()}`);
}

/** Starts `nats-server -js` on a random loopback port with a temporary JetStream store. */
export async function startNatsServer(): Promise<NatsServer> {
  const storeDir = await mkdtemp(join(tmpdir(), 'nats-js-'));
  const port = await reservePort();
  let child: ChildProcess | undefined;
  let output = '';
  const launch = async () => {
    output = '';
    child = spawn(natsServerBinary(), ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, '--http_port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d) => (output = (output + String(d)).slice(-4000)));
    child.stderr?.on('data', (d) => (output = (output + String(d)).slice(-4000)));
    await untilListening(port, child, () => output);
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  try {
    await launch();
  } catch (error) {
    await kill(); // one that never listened within the deadline must not outlive the test
    await rm(storeDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    kill,
    restart: launch,
    async stop() {
      await kill();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
