import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { REAL_COINS_FILE } from '../../devnet/data/index.ts';
import { parseCoinProtocol } from '../../spec/coins.ts';
import { ConfigError, formatStartupError } from './configError.ts';
import { loadNodeConfig, type LoadNodeConfigOptions } from './loadConfig.ts';

const REAL_COINS = REAL_COINS_FILE;
const SECRET = 'Zq9!uniqueRpcSecret';
const PASSPHRASE = 'uniquePassphraseSecret words';
const UTXO = { coin: 'KMD', protocol: { type: 'UTXO' } };

let root: string;
let n = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'load-config-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh directory holding MM2.json (object or raw text) and optionally a `coins` file. */
async function setup(conf: unknown, coins?: unknown): Promise<LoadNodeConfigOptions & { cwd: string }> {
  const cwd = join(root, `case-${n++}`);
  await mkdir(cwd);
  await writeFile(join(cwd, 'MM2.json'), typeof conf === 'string' ? conf : JSON.stringify(conf));
  if (coins !== undefined) await writeFile(join(cwd, 'coins'), typeof coins === 'string' ? coins : JSON.stringify(coins));
  return { cwd, env: {} };
}

/** Loads and expects a ConfigError; checks it is one line, names `key`, and leaks no secret. */
async function failure(options: LoadNodeConfigOptions, key: string, pattern: RegExp): Promise<ConfigError> {
  const error = await loadNodeConfig(options).then(
    () => assert.fail('expected a ConfigError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ConfigError, String(error));
  assert.equal(error.key, key);
  assert.match(error.message, pattern);
  const line = formatStartupError(error);
  for (const text of [error.message, line, inspect(error), JSON.stringify(error)]) {
    assert.ok(!text.includes(SECRET) && !text.includes(PASSPHRASE) && !text.includes('uniquePassphrase'), text);
  }
  assert.ok(!/[\r\n]/.test(line), line);
  return error;
}

const good = { rpc_password: SECRET, passphrase: PASSPHRASE };

describe('loadNodeConfig: the real coins file', () => {
  it('loads all 730 entries and finds ETH with its chain id', async () => {
    const options = await setup(good);
    const config = await loadNodeConfig({ ...options, env: { MM_COINS_PATH: REAL_COINS } });
    assert.equal(config.coins.size, 730);
    assert.equal(config.coins.entryCount, 730);
    assert.deepEqual(config.coins.duplicates, []);
    assert.deepEqual(config.coinsSource, { kind: 'file', path: REAL_COINS });
    const eth = config.coins.find('ETH');
    assert.equal(eth?.chain_id, 1);
    assert.deepEqual(eth && parseCoinProtocol(eth), { ok: true, protocol: { type: 'ETH', chainId: 1 } });
    assert.equal(config.coins.find('eth'), undefined);
    assert.ok(Object.isFrozen(eth) && Object.isFrozen(eth?.protocol));
  });
});

describe('loadNodeConfig: defaults and paths', () => {
  it('applies defaults and reads ./MM2.json and ./coins from cwd', async () => {
    const options = await setup({ rpc_password: SECRET }, [UTXO]);
    const config = await loadNodeConfig(options);
    assert.equal(config.rpcPassword.reveal(), SECRET);
    assert.equal(config.passphrase, undefined);
    assert.equal(config.enableHd, false);
    assert.equal(config.rpcip, '127.0.0.1');
    assert.equal(config.rpcport, 7783);
    assert.equal(config.dbdir, join(options.cwd, 'DB'));
    assert.equal(config.allowWeakPassword, false);
    assert.equal(config.gui, undefined);
    assert.equal(config.confPath, join(options.cwd, 'MM2.json'));
    assert.deepEqual(config.coinsSource, { kind: 'file', path: join(options.cwd, 'coins') });
    assert.equal(config.coins.find('KMD')?.coin, 'KMD');
  });

  it('honours MM_CONF_PATH / MM_COINS_PATH (relative to cwd) and keeps unknown keys as extras', async () => {
    const options = await setup({});
    await mkdir(join(options.cwd, 'etc'));
    const conf = { ...good, rpcport: 8000, rpcip: '0.0.0.0', dbdir: 'data', gui: 'test', future_feature: { url: 'x' } };
    await writeFile(join(options.cwd, 'etc', 'node.json'), JSON.stringify(conf));
    await writeFile(join(options.cwd, 'etc', 'coins.json'), JSON.stringify([UTXO, { ...UTXO, mm2: 1 }]));
    const config = await loadNodeConfig({ cwd: options.cwd, env: { MM_CONF_PATH: 'etc/node.json', MM_COINS_PATH: 'etc/coins.json' } });
    assert.equal(config.rpcport, 8000);
    assert.equal(config.rpcip, '0.0.0.0');
    assert.equal(config.dbdir, join(options.cwd, 'data'));
    assert.deepEqual(config.extras, { future_feature: { url: 'x' } });
    assert.deepEqual(config.coins.duplicates, ['KMD']);
    assert.equal(config.coins.find('KMD')?.mm2, undefined, 'first entry wins');
    assert.equal(config.passphrase?.reveal(), PASSPHRASE);
  });

  it('inline coins in MM2.json take precedence over the coins file', async () => {
    const options = await setup({ ...good, coins: [{ coin: 'ONLY', protocol: { type: 'UTXO' } }] }, [UTXO]);
    const config = await loadNodeConfig({ ...options, env: { MM_COINS_PATH: REAL_COINS } });
    assert.equal(config.coins.size, 1);
    assert.ok(config.coins.find('ONLY'));
    assert.equal(config.coins.find('ETH'), undefined);
    assert.deepEqual(config.coinsSource, { kind: 'inline' });
    // no coins file needed at all then
    const bare = await setup({ ...good, coins: [] });
    assert.equal((await loadNodeConfig(bare)).coins.size, 0);
  });

  it('hardware_wallet: each hardware wait is 300 s unless set, in seconds, up to what a timer can wait', async () => {
    const defaults = await loadNodeConfig(await setup(good, []));
    assert.deepEqual(defaults.hardwareWallet, { udpHost: '127.0.0.1', udpPort: 21324, connectTimeoutMs: 300_000, pinTimeoutMs: 300_000, confirmTimeoutMs: 300_000 });
    const set = await loadNodeConfig(await setup({ ...good, hardware_wallet: { connect_timeout_s: 30, pin_timeout_s: 2_147_483, confirm_timeout_s: 1.5 } }, []));
    assert.deepEqual(set.hardwareWallet, { udpHost: '127.0.0.1', udpPort: 21324, connectTimeoutMs: 30_000, pinTimeoutMs: 2_147_483_000, confirmTimeoutMs: 1_500 });
    for (const key of ['connect_timeout_s', 'pin_timeout_s', 'confirm_timeout_s']) {
      const at = `hardware_wallet.${key}`;
      await failure(await setup({ ...good, hardware_wallet: { [key]: 0 } }, []), at, /greater than 0/);
      await failure(await setup({ ...good, hardware_wallet: { [key]: '300' } }, []), at, /Expected number/);
      // 2^31 ms or more would make a timer fire at once: refused, not shortened.
      await failure(await setup({ ...good, hardware_wallet: { [key]: 2_147_484 } }, []), at, /less or equal to 2147483/);
    }
  });

  it('gas_station_refresh_s: 60 s unless set, in seconds, more than 0, up to what a timer can wait', async () => {
    assert.equal((await loadNodeConfig(await setup(good, []))).gasStationRefreshMs, 60_000);
    assert.equal((await loadNodeConfig(await setup({ ...good, gas_station_refresh_s: 0.5 }, []))).gasStationRefreshMs, 500);
    assert.equal((await loadNodeConfig(await setup({ ...good, gas_station_refresh_s: 2_147_483 }, []))).gasStationRefreshMs, 2_147_483_000);
    const expected = /^MM2\.json: gas_station_refresh_s: must be a number of seconds, more than 0 and at most 2147483$/;
    for (const bad of [0, -1, '60', 2_147_484]) {
      await failure(await setup({ ...good, gas_station_refresh_s: bad }, []), 'gas_station_refresh_s', expected);
    }
  });

  it('weak password is accepted with allow_weak_password', async () => {
    const options = await setup({ rpc_password: 'weak', allow_weak_password: true }, []);
    assert.equal((await loadNodeConfig(options)).allowWeakPassword, true);
  });

  it('never prints secrets through JSON.stringify or util.inspect', async () => {
    const config = await loadNodeConfig(await setup(good, []));
    for (const text of [JSON.stringify(config), inspect(config, { depth: 10 }), String(config.rpcPassword)]) {
      assert.ok(!text.includes(SECRET) && !text.includes(PASSPHRASE), text);
    }
    assert.ok(config.rpcPassword.matches(SECRET) && !config.rpcPassword.matches('nope'));
  });
});

describe('loadNodeConfig: bad configs give one line naming the key, never the secret', () => {
  it('rpc_password missing, empty, not a string, weak', async () => {
    await failure(await setup({ passphrase: PASSPHRASE }, []), 'rpc_password', /^MM2\.json: rpc_password: is missing/);
    await failure(await setup({ ...good, rpc_password: '' }, []), 'rpc_password', /rpc_password: must be a non-empty string/);
    await failure(await setup({ ...good, rpc_password: 12345678 }, []), 'rpc_password', /rpc_password: must be/);
    const weak = 'uniquepassphrasesecret';
    const e = await failure(await setup({ ...good, rpc_password: weak }, []), 'rpc_password', /must contain a digit/);
    assert.ok(!e.message.includes(weak));
    assert.match(e.message, /allow_weak_password/);
  });

  it('other keys: rpcport, rpcip, enable_hd, passphrase, dbdir', async () => {
    await failure(await setup({ ...good, rpcport: 70000 }, []), 'rpcport', /^MM2\.json: rpcport: must be an integer from 1 to 65535$/);
    await failure(await setup({ ...good, rpcport: '7783' }, []), 'rpcport', /rpcport: must be an integer/);
    await failure(await setup({ ...good, rpcip: 'localhost' }, []), 'rpcip', /rpcip: must be an IPv4 or IPv6 address/);
    await failure(await setup({ ...good, enable_hd: 'yes' }, []), 'enable_hd', /enable_hd: must be true or false/);
    await failure(await setup({ ...good, passphrase: '' }, []), 'passphrase', /passphrase: must be a non-empty string/);
    await failure(await setup({ ...good, dbdir: 5 }, []), 'dbdir', /dbdir: must be a directory path/);
  });

  it('non-JSON MM2.json gives the position without quoting the text', async () => {
    const text = `{\n  "rpc_password": "${SECRET}",\n  "passphrase": ${PASSPHRASE}\n}`;
    const e = await failure(await setup(text, []), 'MM_CONF_PATH', /^MM2\.json: not valid JSON: unexpected character at line 3, column 17 \(position \d+\)$/);
    assert.ok(!e.message.includes('unique'));
    await failure(await setup(`{"rpc_password": "${SECRET}",}`, []), 'MM_CONF_PATH', /expected a double-quoted property name at line 1/);
    await failure(await setup(`{"rpc_password": "${SECRET}"`, []), 'MM_CONF_PATH', /unexpected end of input/);
    await failure(await setup('[1]', []), '(root)', /^MM2\.json: must be a JSON object$/);
  });

  it('missing files name the env variable and the path', async () => {
    const options = await setup(good);
    await failure({ ...options, env: { MM_CONF_PATH: 'nope.json' } }, 'MM_CONF_PATH', /^nope\.json: file not found at .*nope\.json; set MM_CONF_PATH/);
    await failure(options, 'MM_COINS_PATH', /^coins: file not found at .*; set MM_COINS_PATH or add a "coins" array/);
  });

  it('coins file that is not a JSON array, or not JSON', async () => {
    await failure(await setup(good, { coin: 'KMD' }), 'MM_COINS_PATH', /^coins: must be a JSON array/);
    await failure(await setup(good, '[{"coin": "KMD"'), 'MM_COINS_PATH', /^coins: not valid JSON: .*line 1/);
  });

  it('a malformed coins entry names its index and ticker', async () => {
    const bad = [UTXO, { coin: 'BAD', decimals: '18', protocol: { type: 'ERC20' } }];
    const e = await failure(await setup(good, bad), 'coins[1].decimals', /^coins: entry \[1\] "BAD": decimals: Expected integer$/);
    assert.ok(e instanceof ConfigError);
    await failure(await setup(good, [UTXO, 'x']), 'coins[1]', /^coins: entry \[1\]: must be an object/);
    await failure(await setup(good, [{ protocol: { type: 'UTXO' } }]), 'coins[0].coin', /entry \[0\] \(no "coin"\): coin:/);
    await failure(
      await setup({ ...good, coins: [UTXO, UTXO, { coin: 'Q', protocol: 'UTXO' }] }),
      'coins[2].protocol',
      /^MM2\.json: coins: entry \[2\] "Q": protocol: /,
    );
  });
});

describe('formatStartupError', () => {
  it('gives one line for any failure', () => {
    assert.equal(formatStartupError(new ConfigError('rpcport', 'MM2.json: rpcport: bad')), 'config error: MM2.json: rpcport: bad');
    assert.equal(formatStartupError(new TypeError('boom\n    at somewhere')), 'startup failed: TypeError: boom');
    assert.equal(formatStartupError('plain\nstring'), 'startup failed: plain string');
    assert.equal(new ConfigError('k', 'a\nb').message, 'a b');
  });
});
