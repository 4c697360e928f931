import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SECRET_PASSWORD = 'weakpw-DISTINCTIVE';
const SECRET_PASSPHRASE = 'correct horse DISTINCTIVE staple';

/** Runs `tsx main.ts` with the given MM2.json text; resolves with exit code and output. */
async function start(conf: string, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'main-'));
  await writeFile(join(dir, 'MM2.json'), conf);
  await writeFile(join(dir, 'coins'), JSON.stringify([{ coin: 'ETH', protocol: { type: 'ETH', protocol_data: { chain_id: 1 } } }]));
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(import.meta.dirname, 'main.ts')], {
    cwd: dir,
    env: { ...process.env, MM_CONF_PATH: join(dir, 'MM2.json'), MM_COINS_PATH: join(dir, 'coins'), ...extraEnv },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

const cases: [string, Record<string, unknown>, RegExp][] = [
  ['weak password', { rpc_password: SECRET_PASSWORD, passphrase: SECRET_PASSPHRASE }, /rpc_password/],
  ['bad port', { rpc_password: 'Str0ng-Pass!x', passphrase: SECRET_PASSPHRASE, rpcport: 70000 }, /rpcport/],
  ['HD with a passphrase that is not a mnemonic', { rpc_password: 'Str0ng-Pass!x', passphrase: SECRET_PASSPHRASE, enable_hd: true }, /passphrase: not a valid BIP39 English mnemonic/],
];

for (const [name, conf, key] of cases) {
  test(`bad config (${name}) stops start-up with one line naming the key and no secret`, async () => {
    const { code, stdout, stderr } = await start(JSON.stringify(conf));
    assert.equal(code, 2);
    const lines = stderr.trim().split('\n');
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0]!, key);
    for (const secret of [SECRET_PASSWORD, SECRET_PASSPHRASE, 'DISTINCTIVE']) {
      assert.equal(`${stdout}${stderr}`.includes(secret), false, `leaks ${secret}`);
    }
  });
}

test('a config file that is not JSON names the file and position without echoing it', async () => {
  const { code, stderr } = await start(`{"rpc_password": "${SECRET_PASSWORD}", oops}`);
  assert.equal(code, 2);
  assert.match(stderr, /MM2\.json/);
  assert.equal(stderr.includes('DISTINCTIVE'), false);
});

test('a mistyped WIF passphrase stops start-up instead of opening another wallet, without echoing it', async () => {
  // The standard compressed WIF of the Bitcoin wiki with its last character changed: the checksum breaks.
  const mistyped = 'KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98618';
  const { code, stdout, stderr } = await start(JSON.stringify({ rpc_password: 'Str0ng-Pass!x', passphrase: mistyped }));
  assert.equal(code, 2);
  assert.match(stderr.trim(), /^.*passphrase: it has the layout of a WIF key, but its checksum matches none/);
  assert.equal(`${stdout}${stderr}`.includes(mistyped.slice(0, 20)), false);
});
