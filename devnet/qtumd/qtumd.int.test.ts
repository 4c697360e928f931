import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Interface, toBeHex, zeroPadValue } from 'ethers';
import { startEvmDevnet, type EvmDevnet } from '../evm/evmDevnet.ts';
import { startQtumd, type Qtumd } from './qtumd.ts';

const HOLDER = '00000000000000000000000000000000000a11ce';
const NOBODY = '000000000000000000000000000000000000dead';
const UNITS = 987_654_321n;
const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)', 'function decimals() view returns (uint8)', 'function transfer(address,uint256) returns (bool)']);
const encode = (name: string, args: unknown[] = []) => ERC20.encodeFunctionData(name, args).slice(2);

describe('the Qtum daemon double: bitcoind JSON-RPC over HTTP, callcontract on the EVM devnet', () => {
  let evm: EvmDevnet;
  let qtumd: Qtumd;
  let token: string;
  const auth = () => `Basic ${Buffer.from(`${qtumd.rpcUser}:${qtumd.rpcPassword}`).toString('base64')}`;
  /** POSTs `body` (a string is sent as is; `authorization` null sends none) and returns status, headers and text. */
  const post = async (body: unknown, authorization: string | null = auth()) => {
    const res = await fetch(qtumd.rpcUrl, { method: 'POST', headers: authorization === null ? {} : { authorization }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const call = async (method: string, params?: unknown) => {
    const { status, text } = await post({ jsonrpc: '1.0', id: 'x', method, ...(params === undefined ? {} : { params }) });
    return { status, reply: JSON.parse(text) };
  };

  before(async () => {
    evm = await startEvmDevnet({ tokens: [{ symbol: 'QTEST', decimals: 7, mint: [{ address: `0x${HOLDER}`, amount: UNITS }] }] });
    token = evm.tokens[0]!.address.slice(2).toLowerCase();
    qtumd = await startQtumd({ evm });
  });
  after(async () => {
    await qtumd?.stop();
    await evm?.stop();
  });

  test('the conf file names the port and the credentials the server accepts', async () => {
    const conf = await readFile(qtumd.confPath, 'utf8');
    assert.equal(conf, `rpcuser=${qtumd.rpcUser}\nrpcpassword=${qtumd.rpcPassword}\nrpcport=${qtumd.rpcPort}\n`);
    assert.equal(qtumd.rpcUrl, `http://127.0.0.1:${qtumd.rpcPort}`);
  });

  test('getblockcount is the chain height, in the JSON-RPC 1.0 reply shape', async () => {
    const { status, text, headers } = await post({ jsonrpc: '1.0', id: 7, method: 'getblockcount', params: [] });
    assert.equal(status, 200);
    assert.equal(headers.get('content-type'), 'application/json');
    assert.equal(text, `${JSON.stringify({ result: Number(await evm.request('eth_blockNumber', [])), error: null, id: 7 })}\n`);
  });

  test('callcontract runs balanceOf and decimals with the qtumd result shape', async () => {
    const { status, reply } = await call('callcontract', [token, encode('balanceOf', [`0x${HOLDER}`])]);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(reply), ['result', 'error', 'id']);
    assert.equal(reply.result.address, token);
    assert.deepEqual(Object.keys(reply.result.executionResult), ['gasUsed', 'excepted', 'newAddress', 'output', 'codeDeposit', 'gasRefunded', 'depositSize', 'gasForDeposit', 'exceptedMessage']);
    assert.equal(reply.result.executionResult.excepted, 'None');
    assert.equal(reply.result.executionResult.output, zeroPadValue(toBeHex(UNITS), 32).slice(2));
    const named = await call('callcontract', { address: token, data: encode('decimals') });
    assert.equal(BigInt(`0x${named.reply.result.executionResult.output}`), 7n);
  });

  test('a revert is a result with excepted "RevertInstruction" and the reason', async () => {
    const { status, reply } = await call('callcontract', [token, encode('transfer', [`0x${HOLDER}`, 1n]), NOBODY]);
    assert.equal(status, 200);
    assert.equal(reply.result.executionResult.excepted, 'RevertInstruction');
    assert.equal(reply.result.executionResult.exceptedMessage, 'TestToken: insufficient balance');
  });

  test('refusals carry qtumd codes and messages, with bitcoind HTTP statuses', async () => {
    const cases: [string, unknown, number, number, string | RegExp][] = [
      ['callcontract', [NOBODY, encode('decimals')], 500, -5, 'Address does not exist'],
      ['callcontract', [`0x${token}`, encode('decimals')], 500, -5, 'Incorrect address'],
      ['callcontract', [token, 'abc'], 500, -3, 'Invalid data (data not hex)'],
      ['callcontract', [token, 5], 500, -1, 'JSON value of type number is not of expected type string'],
      ['callcontract', [token], 500, -1, /^callcontract "address" "data"/],
      ['callcontract', { address: token, data: '', gas: 1 }, 500, -8, 'Unknown named parameter gas'],
      ['getblockcount', [1], 500, -1, /^getblockcount\n/],
      ['getwalletinfo', [], 404, -32601, 'Method not found'],
    ];
    for (const [method, params, status, code, message] of cases) {
      const answer = await call(method, params);
      assert.equal(answer.status, status, `${method} ${JSON.stringify(params)}`);
      assert.equal(answer.reply.result, null);
      assert.equal(answer.reply.id, 'x');
      assert.equal(answer.reply.error.code, code);
      if (message instanceof RegExp) assert.match(answer.reply.error.message, message);
      else assert.equal(answer.reply.error.message, message);
    }
  });

  test('malformed requests: parse error (500), bad method (400), batches answered per element', async () => {
    const unparsable = await post('{not json');
    assert.equal(unparsable.status, 500);
    assert.equal(unparsable.text, `${JSON.stringify({ result: null, error: { code: -32700, message: 'Parse error' }, id: null })}\n`);
    const noMethod = await call(5 as unknown as string);
    assert.equal(noMethod.status, 400);
    assert.deepEqual(noMethod.reply.error, { code: -32600, message: 'Method must be a string' });
    const batch = await post([{ id: 1, method: 'getblockcount' }, { id: 2, method: 'nope' }, 3]);
    assert.equal(batch.status, 200);
    const replies = JSON.parse(batch.text);
    assert.equal(typeof replies[0].result, 'number');
    assert.deepEqual(replies[1], { result: null, error: { code: -32601, message: 'Method not found' }, id: 2 });
    assert.deepEqual(replies[2], { result: null, error: { code: -32600, message: 'Invalid Request object' }, id: null });
  });

  test('wrong or missing credentials: 401, empty body, WWW-Authenticate; GET is 405', async () => {
    const before = qtumd.hits.length;
    for (const authorization of [null, `Basic ${Buffer.from(`${qtumd.rpcUser}:wrong`).toString('base64')}`]) {
      const { status, text, headers } = await post({ id: 1, method: 'getblockcount' }, authorization);
      assert.equal(status, 401);
      assert.equal(text, '');
      assert.equal(headers.get('www-authenticate'), 'Basic realm="jsonrpc"');
    }
    assert.equal(qtumd.hits.length, before, 'refused requests reach no method');
    const get = await fetch(qtumd.rpcUrl, { headers: { authorization: auth() } });
    assert.equal(get.status, 405);
    assert.equal(await get.text(), 'JSONRPC server handles only POST requests');
  });
});
