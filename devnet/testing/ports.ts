/**
 * Loopback ports for peers a test starts as child processes (nats-server, litecoind), and for
 * ports where nothing must listen.
 *
 * "Bind to 0, read the port, close it" is racy: until the child binds, the port is free, and the
 * kernel hands ports of its ephemeral range to every outgoing connection and every `listen(0)` of
 * every test process running beside us. A CI run lost a cluster test that way (nats-server:
 * "bind: address already in use"), and a port a test keeps for a restart after SIGKILL is exposed
 * the same way while the server is down. So ports come from below the ephemeral range, which the
 * kernel never hands out by itself, and each is reserved for the life of this process with a lock
 * file the other test processes respect.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One folder per user: another user's folder would not be writable. */
const LOCK_DIR = join(tmpdir(), `coin-activation-test-ports-${process.getuid?.() ?? 0}`);
/** Lowest port handed out: above the registered services most machines run. @default 20000 */
const LOWEST = 20_000;
const held = new Set<number>();

/**
 * A TCP port on `host` that nothing listens on, outside the kernel's ephemeral range and reserved
 * for this process until it exits: no other test process gets it, so a child may bind it later,
 * be killed and bind it again. `range` ([first, end)) is for this module's own tests.
 */
export async function reservePort(host = '127.0.0.1', range: readonly [number, number] = reservableRange()): Promise<number> {
  const [start, end] = range;
  const span = end - start;
  const first = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = start + ((first + i) % span);
    if (held.has(port) || !claim(port)) continue;
    if (await bindable(port, host)) {
      held.add(port);
      return port;
    }
    release(port);
  }
  throw new Error(`no free loopback port in ${start}-${end - 1}`);
}

/** [first, end) of the ports below the kernel's ephemeral range. */
export function reservableRange(): [number, number] {
  let ephemeralLow = 32_768;
  try {
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    // not Linux: the IANA dynamic range starts at 49152, and below 32768 is below both
  }
  const end = Math.min(ephemeralLow, 32_768);
  if (!(end - LOWEST >= 1_000)) throw new Error(`the ephemeral port range starts at ${ephemeralLow}: too few ports below it for tests`);
  return [LOWEST, end];
}

/** Creates the port's lock file; takes over one whose owner is gone. */
function claim(port: number): boolean {
  mkdirSync(LOCK_DIR, { recursive: true });
  const path = join(LOCK_DIR, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (ownerAlive(path)) return false;
      rmSync(path, { force: true });
    }
  }
  return false;
}

function ownerAlive(path: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path, 'utf8'));
  } catch {
    return true; // being written or removed right now: leave it to its owner
  }
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function release(port: number): void {
  held.delete(port);
  rmSync(join(LOCK_DIR, String(port)), { force: true });
}

function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

process.once('exit', () => {
  for (const port of held) rmSync(join(LOCK_DIR, String(port)), { force: true });
});
