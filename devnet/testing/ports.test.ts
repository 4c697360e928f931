import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { reservableRange, reservePort } from './ports.ts';

const lockFile = (port: number) => join(tmpdir(), `coin-activation-test-ports-${process.getuid?.() ?? 0}`, String(port));

describe('reservePort: loopback ports for child peers, safe against the other test processes', () => {
  it('gives ports below the kernel ephemeral range, each reserved by a lock file naming this process', async () => {
    const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const [a, b] = [await reservePort(), await reservePort()];
    assert.notEqual(a, b);
    for (const port of [a, b]) {
      assert.ok(port >= reservableRange()[0] && port < ephemeralLow, `${port} is below ${ephemeralLow}`);
      assert.equal(readFileSync(lockFile(port), 'utf8'), String(process.pid));
    }
  });

  it('skips a port another live process holds, and takes it over once that process died without cleaning up', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', `import('${join(import.meta.dirname, 'ports.ts')}').then(async (m) => { console.log(await m.reservePort()); setInterval(() => {}, 1000); })`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const port = Number(String(line).trim());
    assert.equal(readFileSync(lockFile(port), 'utf8'), String(child.pid));
    await assert.rejects(reservePort('127.0.0.1', [port, port + 1]), /no free loopback port/);

    child.kill('SIGKILL'); // no exit handler runs: the lock file stays behind
    await once(child, 'exit');
    assert.ok(existsSync(lockFile(port)));
    assert.equal(await reservePort('127.0.0.1', [port, port + 1]), port);
    assert.equal(readFileSync(lockFile(port), 'utf8'), String(process.pid));
  });

  it('skips a port something listens on, and leaves no lock file for it', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      await assert.rejects(reservePort('127.0.0.1', [port, port + 1]), /no free loopback port/);
      assert.equal(existsSync(lockFile(port)), false);
    } finally {
      server.close();
    }
  });
});
