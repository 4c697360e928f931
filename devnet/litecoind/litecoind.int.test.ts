import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { amountField } from '../../infra/utxo/daemonAmounts.ts';
import { COINBASE_MATURITY, fundImmatureCoinbase } from './coinbaseFunding.ts';
import { p2pkhAddress } from './litecoinRegtest.ts';
import { startLitecoind, type Litecoind } from './litecoind.ts';
import { nodeRpc } from '../../infra/utxo/daemonRpc.ts';

/** TCP listening sockets owned by `pid` (Linux /proc), as `ip:port` with the IP in dotted or hex form. */
async function listeners(pid: number): Promise<string[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1]!);
  }
  const found: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (await readFile(table, 'utf8')).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state !== '0A' || inode === undefined || !inodes.has(inode) || local === undefined) continue; // 0A = LISTEN
      const [ipHex, portHex] = local.split(':') as [string, string];
      const ip = ipHex.length === 8 ? Buffer.from(ipHex, 'hex').reverse().join('.') : ipHex;
      found.push(`${ip}:${parseInt(portHex, 16)}`);
    }
  }
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ESRCH');
    return false;
  }
}

describe('startLitecoind', () => {
  let node: Litecoind;

  before(async () => {
    node = await startLitecoind();
  });
  after(() => node?.stop());

  test('runs regtest with a legacy wallet holding one mature coinbase', async () => {
    const info = await node.rpc<{ chain: string; blocks: number }>('getblockchaininfo');
    assert.equal(info.chain, 'regtest');
    assert.ok(info.blocks >= 101);
    const wallet = await node.rpc<{ descriptors: boolean; walletname: string }>('getwalletinfo');
    assert.equal(wallet.descriptors, false);
    assert.ok((await node.rpc<number>('getbalance')) >= 50);
    assert.match(node.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    const conf = await readFile(node.confPath, 'utf8');
    assert.match(conf, new RegExp(`^rpcuser=${node.rpcUser}$`, 'm'));
    assert.match(conf, new RegExp(`^rpcpassword=${node.rpcPassword}$`, 'm'));
    assert.match(conf, new RegExp(`^\\[regtest\\]\\nrpcport=${node.rpcPort}$`, 'm'));
  });

  test('mine returns the new block hashes', async () => {
    const before = await node.rpc<number>('getblockcount');
    const hashes = await node.mine(3);
    assert.equal(hashes.length, 3);
    assert.equal(await node.rpc('getblockhash', [before + 3]), hashes[2]);
  });

  test('fund pays the exact amount to a P2PKH address (listunspent, scantxoutset)', async () => {
    const address = p2pkhAddress(randomBytes(20));
    assert.match(address, /^[mn]/);
    await node.rpc('importaddress', [address, '', false]);
    const txid = await node.fund(address, 123_456_789n);
    const exact = nodeRpc(node, { exactAmounts: true });
    const unspent = await exact<{ txid: string; amount: unknown; confirmations: number }[]>('listunspent', [1, 9_999_999, [address], true]);
    assert.equal(unspent.length, 1);
    assert.equal(unspent[0]!.txid, txid);
    assert.equal(amountField(unspent[0]!.amount), 123_456_789n);
    assert.equal(unspent[0]!.confirmations, 1);
    const scan = await exact<{ success: boolean; total_amount: unknown }>('scantxoutset', ['start', [`addr(${address})`]]);
    assert.equal(scan.success, true);
    assert.equal(amountField(scan.total_amount), 123_456_789n);
  });

  test('fund with 0 confirmations leaves the transaction in the mempool', async () => {
    const address = p2pkhAddress(randomBytes(20));
    const txid = await node.fund(address, 1_000_000n, 0);
    assert.ok((await node.rpc<string[]>('getrawmempool')).includes(txid));
    await node.mine(1);
    assert.deepEqual(await node.rpc<string[]>('getrawmempool'), []);
  });

  test('fundImmatureCoinbase mines a block whose coinbase pays the hash160', async () => {
    const hash160 = randomBytes(20).toString('hex');
    const funded = await fundImmatureCoinbase(node, hash160);
    assert.equal(funded.address, p2pkhAddress(hash160));
    const out = await nodeRpc(node, { exactAmounts: true })<{ coinbase: boolean; confirmations: number; value: unknown; scriptPubKey: { hex: string } }>('gettxout', [funded.txid, 0]);
    assert.equal(out.coinbase, true);
    assert.ok(out.confirmations < COINBASE_MATURITY);
    assert.equal(out.scriptPubKey.hex, `76a914${hash160}88ac`);
    assert.equal(amountField(out.value), funded.litoshis);
    const tx = await node.rpc<{ vin: { coinbase?: string }[] }>('getrawtransaction', [funded.txid, true]);
    assert.ok(tx.vin[0]!.coinbase);
  });

  test('listens on loopback only: RPC, and nothing else without p2pPort', async () => {
    assert.deepEqual(await listeners(node.pid), [`127.0.0.1:${node.rpcPort}`]);
  });

  test('p2pPort binds P2P (and its Tor target) to loopback; stop kills the process and removes the temp datadir', async () => {
    const other = await startLitecoind({ p2pPort: 0, initialBlocks: 0 });
    try {
      assert.ok(other.p2pPort);
      const found = await listeners(other.pid);
      assert.ok(found.includes(`127.0.0.1:${other.p2pPort}`));
      assert.ok(found.includes(`127.0.0.1:${other.rpcPort}`));
      assert.ok(found.every((l) => l.startsWith('127.0.0.1:')), found.join(', '));
      assert.equal(await other.rpc('getblockcount'), 0);
    } finally {
      await other.stop();
    }
    await other.stop(); // idempotent
    assert.equal(isAlive(other.pid), false);
    assert.equal(existsSync(other.datadir), false);
  });

  test('a given datadir is kept, and a restart reloads its chain and wallet', async () => {
    const datadir = await mkdtemp(join(tmpdir(), 'litecoind-kept-'));
    try {
      const first = await startLitecoind({ datadir, initialBlocks: 5 });
      await first.stop();
      assert.ok(existsSync(join(datadir, 'regtest')));
      const second = await startLitecoind({ datadir, initialBlocks: 1 });
      try {
        assert.equal(await second.rpc('getblockcount'), 6);
        assert.deepEqual(await second.rpc('listwallets'), ['devnet']);
      } finally {
        await second.stop();
      }
      assert.equal(isAlive(second.pid), false);
    } finally {
      await rm(datadir, { recursive: true, force: true });
    }
  });

  test('a daemon that dies at startup is reported with its output', async () => {
    await assert.rejects(startLitecoind({ binary: 'false' }), /false exited .* before its RPC answered/);
  });
});
