/**
 * TRC20 balances through the TRON network's multicall contract (`protocol_data.multicall_address`
 * of the TRX entry): one `triggerconstantcontract` for every token call, the same balances and
 * errors as without it, and today's one request per call where the contract is absent (learned
 * once per node).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvmDevnet } from '../../devnet/index.ts';
import { evmToTronBase58 } from '../../infra/keys/tronAddress.ts';
import { TEST_ADDRESS, devnetCoins, enableTrxParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';

const TRON_ADDRESS = evmToTronBase58(TEST_ADDRESS);
const NO_CODE = evmToTronBase58('0x000000000000000000000000000000000000dEaD');
const TOKENS = [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }, { symbol: 'DAI', decimals: 18, amount: 5n * 10n ** 18n + 1n }, { symbol: 'NIL', decimals: 8, amount: 0n }];
const BALANCES = {
  'USDT-TRC20': { spendable: '1234.567891', unspendable: '0' },
  'DAI-TRC20': { spendable: '5.000000000000000001', unspendable: '0' },
  'NIL-TRC20': { spendable: '0', unspendable: '0' },
};
const TICKERS = Object.keys(BALANCES);

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ tokens: TOKENS });
});
after(() => devnet.stop());

/** The devnet's coins with the TRX entry's multicall set to `multicall` (`undefined`: none). */
function coins(multicall: string | undefined): unknown[] {
  return devnetCoins(devnet).map((entry) => {
    const e = entry as { coin: string; protocol: { protocol_data: Record<string, unknown> } };
    if (e.coin !== 'TRX') return entry;
    const { multicall_address: _, ...data } = e.protocol.protocol_data;
    return { ...e, protocol: { ...e.protocol, protocol_data: multicall === undefined ? data : { ...data, multicall_address: multicall } } };
  });
}

const NOCODE_TOKEN = { coin: 'NOCODE-TRC20', decimals: 6, protocol: { type: 'TRC20', protocol_data: { platform: 'TRX', contract_address: NO_CODE } } };
const stack = (multicall: string | undefined) => startStack({ devnet, tron: true, coins: coins(multicall), extraCoins: [NOCODE_TOKEN] });
const constantCalls = (s: Stack) => s.tron!.hits.filter((h) => h === 'POST /wallet/triggerconstantcontract').length;

async function enable(s: Stack, tickers: readonly string[] = TICKERS) {
  const { status, body } = await s.v2('enable_eth_with_tokens', enableTrxParams(s, tickers));
  return { status, body };
}

test('dev mode configures the multicall: every token balance in one triggerconstantcontract, exact balances', async () => {
  assert.ok(devnet.multicall !== undefined);
  const s = await stack(evmToTronBase58(devnet.multicall));
  try {
    const { status, body } = await enable(s);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.result.erc20_addresses_infos[TRON_ADDRESS].balances, BALANCES);
    assert.deepEqual([...s.tron!.hits].sort(), ['POST /wallet/getaccount', 'POST /wallet/getnowblock', 'POST /wallet/triggerconstantcontract']);
    assert.equal((await s.legacy('my_balance', { coin: 'DAI-TRC20' })).body.balance, '5.000000000000000001');
  } finally {
    await s.stop();
  }
});

test('no multicall configured: one request per token, the same balances', async () => {
  const s = await stack(undefined);
  try {
    const { status, body } = await enable(s);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.result.erc20_addresses_infos[TRON_ADDRESS].balances, BALANCES);
    assert.equal(constantCalls(s), 3);
  } finally {
    await s.stop();
  }
});

test('a configured multicall the node lacks: plain requests, the same balances, and it is not asked again on that node', async () => {
  const s = await stack(NO_CODE);
  try {
    const first = await enable(s);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body.result.erc20_addresses_infos[TRON_ADDRESS].balances, BALANCES);
    assert.equal(constantCalls(s), 1 + 3, 'the multicall that failed, then one request per token');
    const hits = s.tron!.hits.length;
    const balance = await s.legacy('my_balance', { coin: 'DAI-TRC20' });
    assert.equal(balance.body.balance, '5.000000000000000001', JSON.stringify(balance.body));
    assert.deepEqual(s.tron!.hits.slice(hits).sort(), ['POST /wallet/getaccount', 'POST /wallet/getnowblock', 'POST /wallet/triggerconstantcontract'], 'no second multicall try on that node');
  } finally {
    await s.stop();
  }
});

test('a token with no contract fails inside the multicall with the very error it gets without one', async () => {
  const errors: string[] = [];
  for (const multicall of [evmToTronBase58(devnet.multicall!), undefined]) {
    const s = await stack(multicall);
    try {
      const { status, body } = await enable(s, ['USDT-TRC20', 'NOCODE-TRC20']);
      assert.equal(status, 502, JSON.stringify(body));
      errors.push(`${body.error_type}: ${body.error}`);
    } finally {
      await s.stop();
    }
  }
  assert.match(errors[0]!, /NOCODE-TRC20.*No contract/);
  assert.equal(errors[0], errors[1]);
});

test('a malformed multicall_address is refused when TRX is activated, naming the field', async () => {
  for (const bad of ['0xcA11bde05977b3631167028862bE2a173976CA11', `${NO_CODE.slice(0, -1)}${NO_CODE.endsWith('1') ? '2' : '1'}`]) {
    const s = await stack(bad);
    try {
      const { status, body } = await enable(s);
      assert.equal(status, 500, JSON.stringify(body));
      assert.equal(body.error_type, 'CoinProtocolParseError');
      assert.match(body.error, /protocol_data\.multicall_address/);
      assert.deepEqual(s.tron!.hits, []);
    } finally {
      await s.stop();
    }
  }
});
