import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { AbiCoder } from 'ethers';
import { TronWeb } from 'tronweb';
import { startEvmDevnet, type EvmDevnet } from '../evm/evmDevnet.ts';
import { evmToTronBase58, evmToTronHex, tronToEvmAddress } from './tronAddress.ts';
import { startTronNode, type TronNode } from './tronNode.ts';

const HOLDER = '0x00000000000000000000000000000000000a11ce';
const NEVER_ACTIVATED = '0x000000000000000000000000000000000000dead';
const HOLDER_SUN = 123_456_789n;
const USDT_UNITS = 1_500_000n;

/** Records the host of every outgoing TCP connection made while installed. */
function recordConnections(): { hosts: string[]; restore(): void } {
  const hosts: string[] = [];
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const [head, second] = args;
    // net.connect passes its normalized `[options, callback]` array as the first argument.
    const first: unknown = Array.isArray(head) ? head[0] : head;
    const options = typeof first === 'object' && first !== null ? (first as { host?: string; path?: string }) : undefined;
    hosts.push(String(options ? (options.host ?? options.path ?? '(default host)') : typeof second === 'string' ? second : '(default host)'));
    return Reflect.apply(original, this, args) as net.Socket;
  } as typeof original;
  return { hosts, restore: () => void (net.Socket.prototype.connect = original) };
}

async function http(url: string, init?: RequestInit): Promise<{ status: number; json: any }> {
  const response = await fetch(url, init);
  return { status: response.status, json: await response.json() };
}

const postJson = (url: string, body: unknown) => http(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('startTronNode', () => {
  let evm: EvmDevnet;
  let node: TronNode;
  let tronWeb: TronWeb;
  let token: string;
  const connections = recordConnections();

  before(async () => {
    evm = await startEvmDevnet({
      fund: [{ address: HOLDER, wei: HOLDER_SUN }],
      tokens: [{ symbol: 'USDT', decimals: 6, mint: [{ address: HOLDER, amount: USDT_UNITS }] }],
    });
    node = await startTronNode({ evm });
    token = evmToTronBase58(evm.tokens[0]!.address);
    tronWeb = new TronWeb({ fullHost: node.url });
  });
  after(async () => {
    connections.restore();
    await node?.stop();
    await evm?.stop();
  });

  test('maps TRON addresses to the same 20 bytes', () => {
    const base58 = evmToTronBase58(HOLDER);
    assert.match(base58, /^T/);
    assert.equal(TronWeb.address.toHex(base58), evmToTronHex(HOLDER));
    assert.equal(tronToEvmAddress(base58)?.toLowerCase(), HOLDER);
    assert.equal(tronToEvmAddress(evmToTronHex(HOLDER))?.toLowerCase(), HOLDER);
    assert.equal(tronToEvmAddress('TnotAnAddress'), undefined);
  });

  test('tronWeb.trx.getCurrentBlock() reads the EVM latest block', async () => {
    const latest = BigInt((await evm.request('eth_blockNumber')) as string);
    const block = await tronWeb.trx.getCurrentBlock();
    assert.equal(BigInt(block.block_header.raw_data.number), latest);
    assert.match(block.blockID, /^[0-9a-f]{64}$/);
    assert.equal(BigInt(`0x${block.blockID.slice(0, 16)}`), latest);
    assert.ok(block.block_header.raw_data.timestamp > 1_600_000_000_000);
  });

  test('tronWeb.trx.getBalance() is the exact ledger value (1 SUN = 1 wei), 0 when never activated', async () => {
    assert.equal(await tronWeb.trx.getBalance(evmToTronBase58(HOLDER)), Number(HOLDER_SUN));
    assert.equal(await tronWeb.trx.getBalance(evmToTronBase58(NEVER_ACTIVATED)), 0);
    assert.deepEqual(await tronWeb.trx.getAccount(evmToTronBase58(NEVER_ACTIVATED)), {});
  });

  test('TRC20 balanceOf via tronWeb.transactionBuilder.triggerConstantContract runs the real contract', async () => {
    const holder = evmToTronBase58(HOLDER);
    const result = await tronWeb.transactionBuilder.triggerConstantContract(token, 'balanceOf(address)', {}, [{ type: 'address', value: holder }], holder);
    assert.equal(result.result.result, true);
    assert.equal(BigInt(`0x${result.constant_result[0]}`), USDT_UNITS);
  });

  test('TRC20 balanceOf via tronWeb.contract().at()', async () => {
    tronWeb.setAddress(evmToTronBase58(HOLDER));
    const contract = await tronWeb.contract().at(token);
    const balance = await contract.methods.balanceOf!(evmToTronBase58(HOLDER)).call();
    assert.equal(BigInt(balance.toString()), USDT_UNITS);
  });

  test('a revert and a missing contract get java-tron error shapes (tronweb throws)', async () => {
    const holder = evmToTronBase58(HOLDER);
    const args = [{ type: 'address', value: holder }, { type: 'uint256', value: 1 }];
    await assert.rejects(tronWeb.transactionBuilder.triggerConstantContract(token, 'mint(address,uint256)', {}, args, holder), /REVERT opcode executed/);
    const raw = await postJson(`${node.url}/wallet/triggerconstantcontract`, {
      contract_address: token,
      owner_address: holder,
      function_selector: 'mint(address,uint256)',
      parameter: AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [HOLDER, 1]).slice(2),
      visible: true,
    });
    assert.equal(raw.json.transaction.ret[0].ret, 'FAILED');
    const [reason] = AbiCoder.defaultAbiCoder().decode(['string'], `0x${raw.json.constant_result[0].slice(8)}`);
    assert.equal(reason, 'TestToken: caller is not the owner');
    await assert.rejects(
      tronWeb.transactionBuilder.triggerConstantContract(evmToTronBase58(NEVER_ACTIVATED), 'balanceOf(address)', {}, [{ type: 'address', value: holder }], holder),
      /No contract or not a valid smart contract/,
    );
  });

  test('getnowblock over raw HTTP POST and GET, /wallet and /walletsolidity', async () => {
    for (const url of [`${node.url}/wallet/getnowblock`, `${node.url}/walletsolidity/getnowblock`]) {
      const posted = await http(url, { method: 'POST', body: '{}' });
      const got = await http(url);
      assert.equal(posted.status, 200);
      assert.equal(got.status, 200);
      assert.equal(typeof posted.json.block_header.raw_data.number, 'number');
      assert.equal(got.json.blockID, posted.json.blockID);
    }
  });

  test('getaccount over raw HTTP: visible flag, GET query, int64_as_string', async () => {
    const visible = await postJson(`${node.url}/wallet/getaccount`, { address: evmToTronBase58(HOLDER), visible: true });
    assert.deepEqual(visible.json, { address: evmToTronBase58(HOLDER), balance: Number(HOLDER_SUN) });
    const hex = await http(`${node.url}/wallet/getaccount?address=${evmToTronHex(HOLDER)}&int64_as_string=true`);
    assert.deepEqual(hex.json, { address: evmToTronHex(HOLDER), balance: HOLDER_SUN.toString() });
    const bad = await postJson(`${node.url}/wallet/getaccount`, { address: 'nope' });
    assert.equal(bad.status, 200);
    assert.match(bad.json.Error, /Invalid address/);
  });

  test('unknown paths are 404 JSON', async () => {
    const missing = await http(`${node.url}/wallet/nosuchthing`, { method: 'POST', body: '{}' });
    assert.equal(missing.status, 404);
    assert.match(missing.json.Error, /no such endpoint/);
  });

  test('busy mode answers 503 (or a custom reply) and recovers; tronweb fails fast', async () => {
    node.setBusy(true);
    const busy = await http(`${node.url}/wallet/getnowblock`);
    assert.equal(busy.status, 503);
    assert.ok(busy.json.Error);
    await assert.rejects(tronWeb.trx.getCurrentBlock());
    node.setBusy({ status: 200, body: { Error: 'rate limited' } });
    assert.deepEqual((await http(`${node.url}/wallet/getnowblock`)).json, { Error: 'rate limited' });
    node.setBusy(false);
    assert.equal((await http(`${node.url}/wallet/getnowblock`)).status, 200);
  });

  test('only loopback connections were made; lists the endpoints hit', (t) => {
    t.diagnostic(`tron node hits: ${[...new Set(node.hits)].join(', ')}`);
    const foreign = connections.hosts.filter((host) => host !== '127.0.0.1');
    assert.deepEqual(foreign, []);
    assert.ok(connections.hosts.length > 0);
  });
});
