/**
 * Runs a bitcoind-style daemon as a child process: start, wait for its RPC, stop without leaving
 * an orphan behind (see installCleanup).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DaemonRpcError, type RpcCall } from '../../infra/utxo/daemonRpc.ts';

export interface DaemonProcess {
  readonly pid: number;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Polls `getblockchaininfo` until it answers; throws with the log tail if the daemon dies or `timeoutMs` passes. */
  waitForRpc(rpc: RpcCall, timeoutMs: number): Promise<void>;
  /** RPC `stop` (SIGTERM if RPC is down), then SIGKILL after `graceMs`; resolves once the process is gone. Idempotent. */
  stop(rpc: RpcCall, graceMs: number): Promise<void>;
}

const running = new Set<ChildProcess>();
let cleanupInstalled = false;

/**
 * Daemons must not outlive this process. On exit (normal, `process.exit`, uncaught error) each
 * gets SIGTERM, its clean shutdown. A terminating signal only counts when nobody else listens for
 * it: an app with its own handler (main.ts) stops its daemons itself, then exits through 'exit'.
 */
function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  const terminateAll = () => running.forEach((child) => child.kill('SIGTERM'));
  process.on('exit', terminateAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return;
      terminateAll();
      process.off(signal, onSignal);
      process.kill(process.pid, signal); // the default action, now that no listener is left
    };
    process.on(signal, onSignal);
  }
}

const POLL_MS = 100;
/** bitcoind's "Loading block index…" / "Verifying blocks…" answer while it starts up. */
const RPC_IN_WARMUP = -28;

/**
 * Spawns `binary args…`. `logPath` is the daemon's own log (e.g. `<datadir>/regtest/debug.log`),
 * quoted in errors together with what the daemon wrote to stderr.
 */
export function spawnDaemon(binary: string, args: readonly string[], logPath: string): DaemonProcess {
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
    child.once('error', (error) => {
      running.delete(child);
      stderr += `${error.message}\n`;
      resolve({ code: null, signal: null });
    });
  });
  if (child.pid === undefined) throw new Error(`could not start ${binary}`);
  running.add(child);
  installCleanup();
  let dead = false;
  void exited.then(() => (dead = true));

  const describe = async (what: string) => {
    const log = await readFile(logPath, 'utf8').catch(() => '');
    const tail = log.trimEnd().split('\n').slice(-25).join('\n');
    return new Error(`${binary} ${what}\n--- stderr ---\n${stderr.trim()}\n--- ${logPath} (tail) ---\n${tail}`);
  };

  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid,
    exited,
    async waitForRpc(rpc, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (dead) throw await describe(`exited (${JSON.stringify(await exited)}) before its RPC answered`);
        try {
          await rpc('getblockchaininfo');
          return;
        } catch (error) {
          // Not listening yet (no code) or warming up: keep polling. Anything else is real.
          const code = error instanceof DaemonRpcError ? error.code : undefined;
          if (code !== undefined && code !== RPC_IN_WARMUP) throw error;
        }
        if (Date.now() > deadline) throw await describe(`did not answer RPC within ${timeoutMs} ms`);
        await sleep(POLL_MS);
      }
    },
    stop(rpc, graceMs) {
      return (stopping ??= (async () => {
        if (dead) return;
        // SIGTERM is bitcoind's other clean shutdown, for when its RPC is not up (yet).
        const asked = await rpc('stop').then(() => true, () => false);
        if (!asked) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      })());
    },
  };
}
