/** Start-up with `enable_hd` (docs/compatibility.md §6): the mnemonic's HD key, or one clear ConfigError line. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LOG_FILE } from '../../events/log/embeddedEventLog.ts';
import { isConfigError, loadNodeConfig } from '../config/index.ts';
import { startService } from '../../service.ts';
import { createHdKeyProvider } from './hd.ts';

const PASSWORD = 'Test-rpc-pw-91!';
const MNEMONIC = `${'abandon '.repeat(11)}about`;
const BAD_CHECKSUM = 'zoo '.repeat(12).trim();
const COINS = [{ coin: 'ETH', protocol: { type: 'ETH', protocol_data: { chain_id: 1 } }, derivation_path: "m/44'/60'" }];

/** A temp dir with MM2.json (`conf` over a valid base) and a coins file. */
async function setup(conf: Record<string, unknown>): Promise<{ dir: string; dbdir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hd-start-'));
  const dbdir = join(dir, 'db');
  await writeFile(join(dir, 'coins'), JSON.stringify(COINS));
  await writeFile(join(dir, 'MM2.json'), JSON.stringify({ rpc_password: PASSWORD, dbdir, ...conf }));
  return { dir, dbdir };
}

/** Starts the service from `dir`, returns the SessionStarted data and node id, and stops it. */
async function startAndStop(dir: string): Promise<{ derivationMethod: string; nodeId: string | undefined }> {
  const service = await startService({ config: await loadNodeConfig({ cwd: dir, env: {} }), port: 0 });
  try {
    const res = await fetch(service.url, { method: 'POST', body: JSON.stringify({ userpass: PASSWORD, method: 'get_enabled_coins' }) });
    assert.deepEqual(await res.json(), { result: [] });
    let derivationMethod = '';
    for await (const e of service.log.read()) if (e.type === 'SessionStarted') derivationMethod = (e.data as { derivationMethod: string }).derivationMethod;
    return { derivationMethod, nodeId: service.nodeId };
  } finally {
    await service.stop();
  }
}

describe('start-up with enable_hd', () => {
  it('true with a BIP39 mnemonic starts an HDWallet session; node_id comes from the wallet id', async () => {
    const { dir, dbdir } = await setup({ enable_hd: true, passphrase: `  ${MNEMONIC.replaceAll(' ', '\n')} ` });
    const { derivationMethod, nodeId } = await startAndStop(dir);
    assert.equal(derivationMethod, 'HDWallet');
    assert.equal(nodeId, createHdKeyProvider(MNEMONIC).walletId.slice(0, 20));
    const log = await readFile(join(dbdir, LOG_FILE), 'utf8');
    assert.ok(log.includes('"HDWallet"'));
    assert.ok(!log.includes('abandon'), 'the event log holds no mnemonic word');
  });

  it('false with the same text keeps the Iguana key (unchanged)', async () => {
    const { dir } = await setup({ enable_hd: false, passphrase: MNEMONIC });
    const { derivationMethod, nodeId } = await startAndStop(dir);
    assert.equal(derivationMethod, 'Iguana');
    assert.notEqual(nodeId, createHdKeyProvider(MNEMONIC).walletId.slice(0, 20));
  });

  it('true with a bad mnemonic stops with one ConfigError line on passphrase, quoting no word, touching nothing', async () => {
    for (const [passphrase, pattern] of [
      [BAD_CHECKSUM, /checksum of the 12 words does not match/],
      ['correct horse battery staple', /it has 4 words/],
      [MNEMONIC.replace('about', 'satoshix'), /word 12 of 12 is not in the BIP39 English word list/],
    ] as const) {
      const { dir, dbdir } = await setup({ enable_hd: true, passphrase });
      const config = await loadNodeConfig({ cwd: dir, env: {} });
      await assert.rejects(startService({ config, port: 0 }), (e: unknown) => {
        assert.ok(isConfigError(e), 'a ConfigError');
        assert.equal(e.key, 'passphrase');
        assert.match(e.message, /^MM2\.json: passphrase: not a valid BIP39 English mnemonic: .*\(enable_hd is true\)$/);
        assert.match(e.message, pattern);
        for (const word of passphrase.split(' ')) assert.ok(!e.message.includes(word), 'the message quotes a word');
        return true;
      });
      await assert.rejects(stat(dbdir), { code: 'ENOENT' }, 'no event log was created');
    }
  });

  it('main.ts prints one line and exits 2 for a bad mnemonic', async () => {
    const { dir } = await setup({ enable_hd: true, passphrase: BAD_CHECKSUM });
    const main = join(import.meta.dirname, '..', '..', 'main.ts');
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), main], {
      cwd: dir,
      env: { ...process.env, MM_CONF_PATH: join(dir, 'MM2.json'), MM_COINS_PATH: join(dir, 'coins') },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.equal(output.trim().split('\n').length, 1, 'one line');
    assert.match(output, /config error: MM2\.json: passphrase: .*checksum/);
    assert.ok(!output.includes('zoo'), 'a mnemonic word is printed');
  });
});
