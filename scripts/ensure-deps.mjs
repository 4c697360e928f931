// Installs what `npm start` / `npm test` need when it is missing: the locked npm dependencies
// (when absent or older than package-lock.json) and, for the tests, nats-server from Debian.
// Plain JS: it runs before tsx is installed.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const installed = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  console.error('installing dependencies (npm ci)...');
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}

if (process.argv.includes('--test-peers')) ensureNatsServer();

/** The integration tests start a real nats-server (Debian package `nats-server`). */
function ensureNatsServer() {
  const found = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].some(existsSync);
  if (found) return;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.error('installing nats-server (apt-get)...');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', 'nats-server'], { stdio: 'inherit', env });
    return;
  }
  console.error('the tests need nats-server: sudo apt-get install -y nats-server');
  process.exit(1);
}
