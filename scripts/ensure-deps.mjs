// Installs what `npm start` / `npm test` need when it is missing: the locked npm dependencies
// (when absent or older than package-lock.json) and, for the tests, nats-server, litecoind and
// chromium from Debian (the real NATS server and the real native UTXO daemon the integration tests
// start, and the headless browser the dashboard's test drives).
// A production install (`npm ci --omit=dev`) is left as it is by `npm start`: it never installs there.
// Plain JS: it runs before tsx is installed.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { missingDevPackages } from './devPackages.mjs';

const root = join(import.meta.dirname, '..');
const forTests = process.argv.includes('--test-peers');
const installed = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
const absent = !existsSync(installed);
const stale = !absent && statSync(installed).mtimeMs < statSync(lock).mtimeMs;
const production = !absent && missingDevPackages(root).length > 0;

if (absent || (stale && !production) || (production && forTests)) {
  console.error('installing dependencies (npm ci)...');
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
} else if (stale) {
  console.error('coin-activation: node_modules is older than package-lock.json; run npm ci --omit=dev to update this production install');
}

/** Debian packages the integration tests run as real peers, by the binary each provides. */
const TEST_PEERS = [
  { pkg: 'nats-server', bins: ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'] },
  { pkg: 'litecoind', bins: ['/usr/bin/litecoind', '/usr/local/bin/litecoind'] },
  { pkg: 'chromium', bins: ['/usr/bin/chromium'] },
];

function ensureDebianPackages() {
  const missing = TEST_PEERS.filter(({ bins }) => !bins.some(existsSync)).map(({ pkg }) => pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.error(`installing ${missing.join(' ')} (apt-get)...`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env });
    return;
  }
  console.error(`the tests need ${missing.join(' and ')}: sudo apt-get install -y ${missing.join(' ')}`);
  process.exit(1);
}

if (forTests) ensureDebianPackages();
