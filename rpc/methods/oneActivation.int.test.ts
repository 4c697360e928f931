/**
 * One coin, one activation (docs/compatibility.md §12), for every ordered pair of methods over one
 * ticker: however a coin was activated first (legacy `enable`/`electrum`, `enable_eth_with_tokens`,
 * a `task::enable_eth` task; as a coin of its own, a platform or a token; EVM, TRON, UTXO), every
 * second activation of it is refused with the already-activated answer of its own form, before
 * any other check (each second request is sent once well-formed and once with its other fields
 * bad), and every list shows each ticker once. One service serves every row; each row leaves
 * nothing enabled.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { evmToTronBase58 } from '../../infra/keys/tronAddress.ts';
import { SWAP_CONTRACT, TEST_ADDRESS, TEST_PASSPHRASE, enableEthParams, enableTrxParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { startTask, taskStatus, untilFinished } from '../../devnet/testing/tasks.ts';
import { AnswerForm, assertAlreadyActivated, enabledEverywhere } from '../../devnet/testing/oneActivation.ts';

type Answer = { status: number; body: any };
const Family = { Evm: 'evm', Tron: 'tron', Utxo: 'utxo' } as const;
type Family = (typeof Family)[keyof typeof Family];

/** A ticker under test; `platform` is set for tokens. */
interface Subject {
  readonly ticker: string;
  readonly family: Family;
  readonly platform?: string;
}
const ETH: Subject = { ticker: 'ETH', family: Family.Evm };
const USDT_ERC20: Subject = { ticker: 'USDT-ERC20', family: Family.Evm, platform: 'ETH' };
const TRX: Subject = { ticker: 'TRX', family: Family.Tron };
const USDT_TRC20: Subject = { ticker: 'USDT-TRC20', family: Family.Tron, platform: 'TRX' };
const LTC: Subject = { ticker: 'LTC', family: Family.Utxo };

const USDT_AMOUNT = 1_234_567_891n; // '1234.567891' at 6 decimals
const LTC_FUNDED = 123_456_789n; // '1.23456789' at 8 decimals
const TRON_ADDRESS = evmToTronBase58(TEST_ADDRESS);

let s: Stack;
let node: Litecoind;
let electrum: ElectrumServer;
let ltcAddress: string;

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'LTC' });
  ltcAddress = p2pkhAddress(Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex'));
  node = await startLitecoind();
  await node.fund(ltcAddress, LTC_FUNDED, 1);
  await node.rpc('importaddress', [ltcAddress, '', true]);
  electrum = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
  s = await startStack({
    tokens: [{ symbol: 'USDT', decimals: 6, amount: USDT_AMOUNT }],
    tron: true,
    extraCoins: [{ coin: 'LTC', name: 'litecoin', mm2: 1, pubtype: 111, decimals: 8, network: 'regtest', confpath: node.confPath, protocol: { type: 'UTXO' } }],
  });
});
after(async () => {
  await s?.stop();
  await electrum?.stop();
  await node?.stop();
});

/** What `my_balance` and the legacy `get_enabled_coins` must say of each subject. */
const expected: Record<string, { address: () => string; balance: string }> = {
  ETH: { address: () => TEST_ADDRESS, balance: '1.2345' },
  'USDT-ERC20': { address: () => TEST_ADDRESS, balance: '1234.567891' },
  TRX: { address: () => TRON_ADDRESS, balance: '1234500000000' },
  'USDT-TRC20': { address: () => TRON_ADDRESS, balance: '1234.567891' },
  LTC: { address: () => ltcAddress, balance: '1.23456789' },
};

/** A well-formed platform request for `ticker` on its family's devnet node, with `tokens`. */
function platformParams(subject: Subject, tokens: readonly string[]): Record<string, unknown> {
  if (subject.family === Family.Tron) return enableTrxParams(s, tokens, { ticker: subject.ticker });
  return enableEthParams(s, tokens, { ticker: subject.ticker });
}

/** Activates through a task and reads its `Ok` (the read forgets it). */
async function viaTask(params: Record<string, unknown>): Promise<void> {
  const id = await startTask(s, params);
  assert.equal((await untilFinished(s, id)).result.status, 'Ok');
  assert.equal((await taskStatus(s, id)).body.result.status, 'Ok');
}

async function ok(answer: Promise<Answer>): Promise<void> {
  const { status, body } = await answer;
  assert.equal(status, 200, JSON.stringify(body));
}

/** How a row activates first; `enabled` is what every list shows then, `subjects` what is asked for again. */
interface First {
  readonly name: string;
  activate(): Promise<void>;
  readonly enabled: readonly string[];
  readonly subjects: readonly Subject[];
  /** A platform left passive (disabled with its token kept): a v2 platform form re-activates it. */
  readonly passive?: string;
}

const legacyEnable = (coin: string) => ok(s.legacy('enable', { coin, urls: [s.devnet.url], swap_contract_address: SWAP_CONTRACT }));

const firsts: First[] = [
  { name: 'legacy enable ETH', activate: () => legacyEnable('ETH'), enabled: ['ETH'], subjects: [ETH] },
  { name: 'legacy enable of the ERC20 alone', activate: () => legacyEnable('USDT-ERC20'), enabled: ['USDT-ERC20'], subjects: [USDT_ERC20] },
  {
    name: 'enable_eth_with_tokens ETH with the ERC20',
    activate: () => ok(s.v2('enable_eth_with_tokens', platformParams(ETH, ['USDT-ERC20']))),
    enabled: ['ETH', 'USDT-ERC20'],
    subjects: [ETH, USDT_ERC20],
  },
  {
    name: 'task::enable_eth ETH with the ERC20',
    activate: () => viaTask(platformParams(ETH, ['USDT-ERC20'])),
    enabled: ['ETH', 'USDT-ERC20'],
    subjects: [ETH, USDT_ERC20],
  },
  {
    name: 'enable_eth_with_tokens ETH with the ERC20, then ETH disabled (passive, the ERC20 kept)',
    async activate() {
      await ok(s.v2('enable_eth_with_tokens', platformParams(ETH, ['USDT-ERC20'])));
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
    },
    enabled: ['ETH', 'USDT-ERC20'],
    subjects: [ETH, USDT_ERC20],
    passive: 'ETH',
  },
  {
    name: 'enable_eth_with_tokens TRX with the TRC20',
    activate: () => ok(s.v2('enable_eth_with_tokens', platformParams(TRX, ['USDT-TRC20']))),
    enabled: ['TRX', 'USDT-TRC20'],
    subjects: [TRX, USDT_TRC20],
  },
  {
    name: 'task::enable_eth TRX with the TRC20',
    activate: () => viaTask(platformParams(TRX, ['USDT-TRC20'])),
    enabled: ['TRX', 'USDT-TRC20'],
    subjects: [TRX, USDT_TRC20],
  },
  { name: 'legacy electrum LTC', activate: () => ok(s.legacy('electrum', { coin: 'LTC', servers: [{ url: electrum.tcp!, protocol: 'TCP' }] })), enabled: ['LTC'], subjects: [LTC] },
  { name: 'legacy enable LTC (native daemon)', activate: () => ok(s.legacy('enable', { coin: 'LTC' })), enabled: ['LTC'], subjects: [LTC] },
];

/** A second activation of `subject`: `bad` spoils every field but the coin's (and the tokens'). */
interface Second {
  readonly name: string;
  readonly form: AnswerForm;
  /** Whether it asks for the subject as a token of its platform (only tokens have one). */
  readonly asToken?: boolean;
  send(subject: Subject, bad: boolean): Promise<Answer>;
}

const badPlatform = { nodes: 'not a list', get_balances: 'yes', swap_contract_address: 7 };
const tokenRequest = (subject: Subject, bad: boolean) =>
  bad ? { ticker: subject.platform, erc20_tokens_requests: [{ ticker: subject.ticker }], ...badPlatform } : platformParams({ ...subject, ticker: subject.platform! }, [subject.ticker]);

const seconds: Second[] = [
  {
    name: 'legacy enable',
    form: AnswerForm.Legacy,
    send: (x, bad) =>
      s.legacy('enable', bad ? { coin: x.ticker, urls: 'not a list', required_confirmations: 'three' } : { coin: x.ticker, urls: [s.devnet.url], swap_contract_address: SWAP_CONTRACT }),
  },
  {
    name: 'legacy electrum',
    form: AnswerForm.Legacy,
    send: (x, bad) => s.legacy('electrum', bad ? { coin: x.ticker, servers: 'nope', min_connected: 0 } : { coin: x.ticker, servers: [{ url: electrum.tcp!, protocol: 'TCP' }] }),
  },
  {
    name: 'enable_eth_with_tokens naming it',
    form: AnswerForm.V2,
    send: (x, bad) => s.v2('enable_eth_with_tokens', bad ? { ticker: x.ticker, ...badPlatform } : platformParams(x, [])),
  },
  {
    name: 'task::enable_eth::init naming it',
    form: AnswerForm.V2,
    send: (x, bad) => s.v2('task::enable_eth::init', bad ? { ticker: x.ticker, ...badPlatform } : platformParams(x, [])),
  },
  { name: 'enable_eth_with_tokens of its platform listing it', form: AnswerForm.V2, asToken: true, send: (x, bad) => s.v2('enable_eth_with_tokens', tokenRequest(x, bad)) },
  { name: 'task::enable_eth::init of its platform listing it', form: AnswerForm.V2, asToken: true, send: (x, bad) => s.v2('task::enable_eth::init', tokenRequest(x, bad)) },
];

/**
 * Which coin the refusal names: a token's platform when that is enabled (it is checked first),
 * else the subject. Undefined when the second is no second activation: a v2 platform form
 * re-activating a passive platform (docs/compatibility.md §10).
 */
function refusalNames(first: First, second: Second, subject: Subject): string | undefined {
  const named = second.asToken && first.enabled.includes(subject.platform!) ? subject.platform! : subject.ticker;
  return second.form === AnswerForm.V2 && named === first.passive ? undefined : named;
}

/**
 * Disables what a row enabled, tokens first; each disable must remove its ticker from every list
 * (a passive platform goes with its last token).
 */
async function disableAll(first: First): Promise<void> {
  const platforms = new Set([ETH, TRX].map((p) => p.ticker));
  const order = [...first.enabled].sort((a, b) => Number(platforms.has(a)) - Number(platforms.has(b)));
  for (const ticker of order) {
    if (!(await enabledEverywhere(s)).some((c) => c.ticker === ticker)) continue;
    const { status, body } = await s.legacy('disable_coin', { coin: ticker });
    assert.equal(status, 200, `disable_coin ${ticker}: ${JSON.stringify(body)}`);
    const listed = (await enabledEverywhere(s, `after disable_coin ${ticker}`)).map((c) => c.ticker);
    assert.ok(!listed.includes(ticker), `disable_coin ${ticker} left it listed: ${listed.join(', ')}`);
  }
  assert.deepEqual(await enabledEverywhere(s, 'after the row'), []);
}

/** Whatever a failed row left enabled goes, so the next row starts clean (platforms with their tokens). */
async function forceDisableAll(): Promise<void> {
  const platforms = new Set([ETH, TRX].map((p) => p.ticker));
  const listed: { ticker: string }[] = (await s.legacy('get_enabled_coins')).body.result;
  const order = listed.map((c) => c.ticker).sort((a, b) => Number(platforms.has(b)) - Number(platforms.has(a)));
  for (const coin of order) await s.legacy('disable_coin', { coin, force_disable: true });
}

describe('one coin, one activation: every ordered pair of methods over one ticker', () => {
  for (const first of firsts) {
    test(`first ${first.name}`, async () => {
      assert.deepEqual(await enabledEverywhere(s, 'before the row'), [], 'a previous row left coins enabled');
      try {
        await row(first);
      } finally {
        await forceDisableAll();
      }
    });
  }
});

/** One row: the first activation, every second one, my_balance, then disabling what it enabled. */
async function row(first: First): Promise<void> {
  await first.activate();
  const listed = await enabledEverywhere(s, first.name);
  assert.deepEqual(
    listed,
    [...first.enabled].sort().map((ticker) => ({ ticker, address: expected[ticker]!.address() })),
  );
  for (const subject of first.subjects) {
    for (const second of seconds) {
      if (second.asToken && subject.platform === undefined) continue;
      const named = refusalNames(first, second, subject);
      if (named === undefined) continue;
      for (const bad of [false, true]) {
        const why = `${first.name}, then ${second.name} ${subject.ticker}${bad ? ' (other fields bad)' : ''}`;
        assertAlreadyActivated(await second.send(subject, bad), second.form, named, why);
        assert.deepEqual(await enabledEverywhere(s, why), listed, `${why}: the lists changed`);
      }
    }
    // my_balance answers for the one activation there is (a passive platform is hidden)
    const balance = await s.legacy('my_balance', { coin: subject.ticker });
    if (subject.ticker === first.passive) {
      assert.deepEqual(balance.body.error, `No such coin: ${subject.ticker}`);
    } else {
      const { address, balance: amount } = expected[subject.ticker]!;
      assert.deepEqual(balance.body, { coin: subject.ticker, balance: amount, unspendable_balance: '0', address: address() }, first.name);
    }
  }
  await disableAll(first);
}

describe('one coin, one activation: a token and its platform disabled', () => {
  test('an ERC20 enabled alone outlives its platform; listing it stays refused until it is disabled itself', async () => {
    try {
      await legacyEnable('USDT-ERC20');
      await ok(s.v2('enable_eth_with_tokens', platformParams(ETH, [])));
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH', force_disable: true })).status, 200);
      assert.deepEqual((await enabledEverywhere(s, 'ETH disabled')).map((c) => c.ticker), ['USDT-ERC20']);
      assert.equal((await s.legacy('my_balance', { coin: 'USDT-ERC20' })).body.balance, '1234.567891');
      assertAlreadyActivated(await s.v2('enable_eth_with_tokens', platformParams(ETH, ['USDT-ERC20'])), AnswerForm.V2, 'USDT-ERC20', 'listed after');
      assert.equal((await s.legacy('disable_coin', { coin: 'USDT-ERC20' })).status, 200);
      await ok(s.v2('enable_eth_with_tokens', platformParams(ETH, ['USDT-ERC20'])));
      assert.deepEqual((await enabledEverywhere(s, 'listed at last')).map((c) => c.ticker), ['ETH', 'USDT-ERC20']);
    } finally {
      await forceDisableAll();
    }
  });

  test('a token enabled with its platform is let go with it: disabled with force_disable, or alone', async () => {
    try {
      await ok(s.v2('enable_eth_with_tokens', platformParams(ETH, ['USDT-ERC20'])));
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH', force_disable: true })).status, 200);
      assert.deepEqual(await enabledEverywhere(s, 'forced'), []);
      await legacyEnable('USDT-ERC20');
      assert.equal((await s.legacy('disable_coin', { coin: 'USDT-ERC20' })).status, 200);
      await ok(s.v2('enable_eth_with_tokens', platformParams(ETH, ['USDT-ERC20'])));
      assert.equal((await s.legacy('disable_coin', { coin: 'USDT-ERC20' })).status, 200);
      await legacyEnable('USDT-ERC20');
      assert.deepEqual((await enabledEverywhere(s, 'alone again')).map((c) => c.ticker), ['ETH', 'USDT-ERC20']);
    } finally {
      await forceDisableAll();
    }
  });
});
