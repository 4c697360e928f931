/**
 * A production install: this checkout's files with `npm ci --omit=dev` (from npm's local cache,
 * `--offline`: no network), started by `npm start` as an operator would. It serves activations with
 * an MM2.json; without one it says in one line what dev mode needs, and `npm start` installs nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { devnetCoins, startTestDevnet, SWAP_CONTRACT, TEST_PASSPHRASE, TEST_PASSWORD } from './devnet/testing/stack.ts';
import { reservePort } from './devnet/testing/ports.ts';
import { startTronNode, type EvmDevnet, type TronNode } from './devnet/index.ts';

const root = import.meta.dirname;
/** Never copied (paths from the checkout's root): installs, local state and results. */
const LEFT_OUT = new Set(['node_modules', '.git', '.devnet', 'data', '.scratch', 'MM2.json', 'coins', 'bench/results']);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let dir: string;
let devnet: EvmDevnet;
let tron: TronNode;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'prod-install-'));
  await cp(root, dir, { recursive: true, filter: (src) => !LEFT_OUT.has(relative(root, src)) });
  const env = { ...process.env, npm_config_update_notifier: 'false' };
  await promisify(execFile)(npm, ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], { cwd: dir, env, maxBuffer: 1 << 24 }).catch(
    (error: { stderr?: string }) => {
      throw new Error(`npm ci --omit=dev --offline failed (npm's cache must hold the locked packages: run npm ci first): ${error.stderr ?? error}`);
    },
  );
  devnet = await startTestDevnet({ tokens: [{ symbol: 'PRD', decimals: 6, amount: 1_500_000n }] });
  tron = await startTronNode({ evm: devnet });
});

after(async () => {
  await tron?.stop();
  await devnet?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface NpmStart {
  readonly child: ChildProcess;
  output(): string;
  /** Settles when npm and everything it started have exited (their output pipes are closed). */
  readonly exited: Promise<number | null>;
  /** SIGTERM to the whole process group, as a supervisor stops a service: npm exits on SIGTERM without waiting for its child. */
  stop(): Promise<number | null>;
}

/** `npm start` in the production install, in a process group of its own. */
function npmStart(env: Record<string, string>): NpmStart {
  const { MM_CONF_PATH: _c, MM_COINS_PATH: _k, npm_lifecycle_event: _e, ...inherited } = process.env;
  const child = spawn(npm, ['start', '--silent'], { cwd: dir, env: { ...inherited, ...env }, detached: true });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    output: () => output,
    exited,
    stop() {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      return exited;
    },
  };
}

describe('a production install (npm ci --omit=dev)', () => {
  test('has none of the dev wing packages', () => {
    for (const pkg of ['hardhat', 'solc']) assert.equal(existsSync(join(dir, 'node_modules', pkg)), false, pkg);
  });

  test('npm start without MM2.json says in one line what dev mode needs, and installs nothing', async () => {
    // A lock newer than node_modules made the old prestart reinstall everything.
    const lockMark = join(dir, 'node_modules', '.package-lock.json');
    await utimes(join(dir, 'package-lock.json'), new Date(), new Date(Date.now() + 60_000));
    const before = (await stat(lockMark)).mtimeMs;
    const run = npmStart({});
    const code = await run.exited;
    assert.notEqual(code, 0);
    const ours = run.output().split('\n').filter((l) => l.startsWith('coin-activation:'));
    const needs = ours.filter((l) => l.includes('dev mode needs the development packages'));
    assert.equal(needs.length, 1, run.output());
    assert.match(needs[0]!, /hardhat/);
    assert.match(needs[0]!, /MM2\.json/);
    assert.equal((await stat(lockMark)).mtimeMs, before, 'node_modules was reinstalled');
    assert.equal(existsSync(join(dir, 'node_modules', 'hardhat')), false);
  });

  test('npm start with an MM2.json serves EVM and TRON activations, balances, the enabled list and disable_coin', async () => {
    const port = await reservePort();
    const conf = join(dir, 'MM2.json');
    await writeFile(join(dir, 'coins'), JSON.stringify(devnetCoins(devnet)));
    await writeFile(conf, JSON.stringify({ rpc_password: TEST_PASSWORD, passphrase: TEST_PASSPHRASE, rpcport: port, dbdir: join(dir, 'db') }));
    const run = npmStart({ COIN_ACTIVATION_LOG: 'silent' });
    try {
      await new Promise<void>((resolve, reject) => {
        const check = () => (run.output().includes('listening on') ? resolve() : undefined);
        run.child.stdout?.on('data', check);
        run.exited.then((code) => reject(new Error(`exited ${code}: ${run.output()}`)));
      });
      const call = async (body: Record<string, unknown>) => {
        const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: JSON.stringify({ userpass: TEST_PASSWORD, ...body }) });
        return { status: res.status, body: (await res.json()) as any };
      };
      const eth = await call({
        mmrpc: '2.0',
        method: 'enable_eth_with_tokens',
        params: {
          ticker: 'ETH',
          nodes: [{ url: devnet.url }],
          swap_contract_address: SWAP_CONTRACT,
          fallback_swap_contract: SWAP_CONTRACT,
          erc20_tokens_requests: [{ ticker: 'PRD-ERC20' }],
        },
      });
      assert.equal(eth.status, 200, JSON.stringify(eth.body));
      const [ethAddress, ethInfo] = Object.entries(eth.body.result.eth_addresses_infos)[0] as [string, any];
      assert.deepEqual(ethInfo.balances, { spendable: '1.2345', unspendable: '0' });
      assert.deepEqual(eth.body.result.erc20_addresses_infos[ethAddress].balances, { 'PRD-ERC20': { spendable: '1.5', unspendable: '0' } });
      // TRON: tronweb is loaded on the first TRON request, so this proves it is installed.
      const trx = await call({ mmrpc: '2.0', method: 'enable_eth_with_tokens', params: { ticker: 'TRX', nodes: [{ url: tron.url }], erc20_tokens_requests: [{ ticker: 'PRD-TRC20' }] } });
      assert.equal(trx.status, 200, JSON.stringify(trx.body));
      const [trxAddress, trxInfo] = Object.entries(trx.body.result.eth_addresses_infos)[0] as [string, any];
      assert.deepEqual(trxInfo.balances, { spendable: '1234500000000', unspendable: '0' });
      assert.deepEqual((await call({ method: 'my_balance', coin: 'PRD-TRC20' })).body, { coin: 'PRD-TRC20', balance: '1.5', unspendable_balance: '0', address: trxAddress });
      const enabled = await call({ mmrpc: '2.0', method: 'get_enabled_coins' });
      assert.deepEqual(enabled.body.result.coins.map((c: { ticker: string }) => c.ticker).sort(), ['ETH', 'PRD-ERC20', 'PRD-TRC20', 'TRX']);
      assert.equal((await call({ method: 'disable_coin', coin: 'PRD-ERC20' })).status, 200);
      assert.deepEqual((await call({ method: 'my_balance', coin: 'PRD-ERC20' })).body, { error: 'No such coin: PRD-ERC20' });
      assert.deepEqual((await call({ method: 'my_balance', coin: 'ETH' })).body, { coin: 'ETH', balance: '1.2345', unspendable_balance: '0', address: ethAddress });
    } finally {
      await run.stop();
      await rm(conf, { force: true });
    }
  });
});
