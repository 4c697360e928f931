import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AbiCoder, Contract, getAddress, Interface, JsonRpcProvider, Wallet } from 'ethers';
import { DEVNET_DEPLOYER_PRIVATE_KEY, startEvmDevnet, type EvmDevnet } from './evmDevnet.ts';

const HOLDER = '0x00000000000000000000000000000000000a11ce';
const SECOND_HOLDER = '0x0000000000000000000000000000000000000b0b';
const erc20 = new Interface([
  'function balanceOf(address) view returns (uint256)',
  'function decimals() view returns (uint8)',
  'function symbol() view returns (string)',
  'function mint(address,uint256)',
]);

/** POSTs a raw body and returns the HTTP status and parsed JSON (undefined when empty). */
async function post(url: string, body: string): Promise<{ status: number; json: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

describe('startEvmDevnet', () => {
  let devnet: EvmDevnet;
  let startupMs = 0;

  before(async () => {
    const startedAt = performance.now();
    devnet = await startEvmDevnet({
      fund: [
        { address: HOLDER, wei: 5n * 10n ** 18n },
        { address: HOLDER, wei: 1n },
      ],
      tokens: [
        { symbol: 'USDC', decimals: 6, mint: [{ address: HOLDER, amount: 1_500_000n }] },
        { symbol: 'WETH', name: 'Wrapped Ether', decimals: 18, mint: [{ address: HOLDER, amount: 10n ** 18n }, { address: SECOND_HOLDER, amount: 2n }] },
        { symbol: 'WBTC', decimals: 8, mint: [] },
      ],
    });
    startupMs = performance.now() - startedAt;
  });
  after(() => devnet?.stop());

  test('starts in a few seconds (3 tokens, 3 mints)', (t) => {
    t.diagnostic(`startup ${startupMs.toFixed(0)} ms`);
    assert.ok(startupMs < 15_000, `startup took ${startupMs} ms`);
  });

  test('serves on loopback with the default chain id', async () => {
    assert.match(devnet.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(devnet.chainId, 1337);
    assert.equal((await post(devnet.url, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')).json.result, '0x539');
  });

  test('deploys the tokens with EIP-55 addresses and the right decimals and symbols', async () => {
    assert.deepEqual(devnet.tokens.map((t) => [t.symbol, t.decimals]), [['USDC', 6], ['WETH', 18], ['WBTC', 8]]);
    for (const token of devnet.tokens) {
      assert.equal(getAddress(token.address), token.address);
      const call = (fn: 'decimals' | 'symbol') =>
        devnet.request('eth_call', [{ to: token.address, data: erc20.encodeFunctionData(fn) }, 'latest']) as Promise<string>;
      assert.equal(erc20.decodeFunctionResult('decimals', await call('decimals'))[0], BigInt(token.decimals));
      assert.equal(erc20.decodeFunctionResult('symbol', await call('symbol'))[0], token.symbol);
    }
  });

  test('a raw HTTP batch reads block number, balance and minted balances, answered in order', async () => {
    const [usdc, weth, wbtc] = devnet.tokens;
    const balanceOf = (token: string, who: string, id: unknown) => ({
      jsonrpc: '2.0', id, method: 'eth_call', params: [{ to: token, data: erc20.encodeFunctionData('balanceOf', [who]) }, 'latest'],
    });
    const batch = [
      { jsonrpc: '2.0', id: 'block', method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 42, method: 'eth_getBalance', params: [HOLDER, 'latest'] },
      balanceOf(usdc!.address, HOLDER, 3),
      balanceOf(weth!.address, SECOND_HOLDER, 1),
      balanceOf(wbtc!.address, HOLDER, 0),
    ];
    const { status, json } = await post(devnet.url, JSON.stringify(batch));
    assert.equal(status, 200);
    assert.deepEqual(json.map((r: { id: unknown }) => r.id), ['block', 42, 3, 1, 0]);
    assert.equal(BigInt(json[0].result), 6n, '3 deploys + 3 mints, one block each');
    assert.equal(BigInt(json[1].result), 5n * 10n ** 18n + 1n);
    const uint = (hex: string) => AbiCoder.defaultAbiCoder().decode(['uint256'], hex)[0];
    assert.deepEqual([json[2].result, json[3].result, json[4].result].map(uint), [1_500_000n, 2n, 0n]);
  });

  test('batch errors stay per element', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'no_suchMethod', params: [] },
      'not a request',
      { jsonrpc: '2.0', id: 3, method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 4, method: 'eth_blockNumber', params: { not: 'an array' } },
    ];
    const { json } = await post(devnet.url, JSON.stringify(batch));
    assert.equal(json.length, 4);
    assert.equal(json[0].id, 1);
    assert.equal(typeof json[0].error.code, 'number');
    assert.deepEqual([json[1].id, json[1].error.code], [null, -32600]);
    assert.deepEqual([json[2].id, json[2].result], [3, '0x539']);
    assert.deepEqual([json[3].id, json[3].error.code], [4, -32600]);
  });

  test('a revert comes back as code 3 with the revert data', async () => {
    const [usdc] = devnet.tokens;
    const call = { from: HOLDER, to: usdc!.address, data: erc20.encodeFunctionData('mint', [HOLDER, 1n]) };
    const { json } = await post(devnet.url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'eth_call', params: [call, 'latest'] }));
    assert.equal(json.id, 9);
    assert.equal(json.error.code, 3);
    assert.match(json.error.message, /caller is not the owner/);
    const reason = AbiCoder.defaultAbiCoder().decode(['string'], `0x${json.error.data.slice(10)}`)[0];
    assert.equal(reason, 'TestToken: caller is not the owner');
  });

  test('ethers JsonRpcProvider works against it (batched reads, revert reasons, signed sends)', async () => {
    const provider = new JsonRpcProvider(devnet.url, undefined, { staticNetwork: true });
    try {
      const [usdc] = devnet.tokens;
      const token = new Contract(usdc!.address, erc20, provider);
      const [balance, blockNumber] = await Promise.all([token.getFunction('balanceOf')(HOLDER), provider.getBlockNumber()]);
      assert.deepEqual([balance, blockNumber >= 6], [1_500_000n, true]);
      const stranger = Wallet.createRandom().connect(provider);
      await assert.rejects(token.connect(stranger).getFunction('mint').staticCall(HOLDER, 1n), { code: 'CALL_EXCEPTION', reason: 'TestToken: caller is not the owner' });
      const deployer = new Wallet(DEVNET_DEPLOYER_PRIVATE_KEY, provider);
      const receipt = await (await deployer.sendTransaction({ to: HOLDER, value: 1n })).wait();
      assert.equal(receipt?.status, 1);
    } finally {
      provider.destroy();
    }
  });

  test('malformed bodies get a JSON-RPC error and the server keeps serving', async () => {
    const parse = await post(devnet.url, '{"jsonrpc":"2.0", "id": 1, "method": ');
    assert.equal(parse.status, 200);
    assert.deepEqual([parse.json.id, parse.json.error.code], [null, -32700]);
    const empty = await post(devnet.url, '[]');
    assert.equal(empty.json.error.code, -32600);
    const scalar = await post(devnet.url, '17');
    assert.equal(scalar.json.error.code, -32600);
    const notification = await post(devnet.url, '{"jsonrpc":"2.0","method":"eth_chainId"}');
    assert.deepEqual([notification.status, notification.json], [204, undefined]);
    assert.equal((await post(devnet.url, '{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}')).json.result, '0x539');
  });

  test('rejects non-POST requests', async () => {
    const response = await fetch(devnet.url);
    assert.equal(response.status, 405);
    assert.equal(((await response.json()) as { error: { code: number } }).error.code, -32600);
  });
});

test('two devnets run side by side with their own chain ids, and stop closes the port', async () => {
  const [a, b] = await Promise.all([startEvmDevnet({ chainId: 31337 }), startEvmDevnet({ chainId: 5 })]);
  try {
    assert.equal(await a.request('eth_chainId', []), '0x7a69');
    assert.equal((await post(b.url, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')).json.result, '0x5');
    assert.equal(getAddress(a.deployer), a.deployer);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  await assert.rejects(post(a.url, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'));
  await a.stop();
});
