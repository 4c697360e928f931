import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeCoin, fakeToken } from '../devnet/testing/fixtures.ts';
import { ActivationError, ErrorType, isActivationError } from '../spec/errors.ts';
import { ChainFamilyId, type ActivatedCoin, type HdAddressSource } from '../machines/activation.types.ts';
import { withHdAddresses } from '../machines/hdAccount.ts';
import { HdAddressOperations } from './hdAddressOperations.ts';

/** One address operation per coin at a time (issue 26): concurrent requests each get their own address. */

const PATH = "m/44'/2'/0'";
/** A chain where nothing is used; each read waits a turn, so concurrent reads would overlap. */
const source: HdAddressSource = {
  async read(chain, indices, tokens) {
    await new Promise((r) => setImmediate(r));
    const zero = { spendable: 0n, unspendable: 0n };
    const balances = Object.fromEntries([['LTC', zero], ...tokens.map((t) => [t.ticker, zero] as const)]);
    const addresses = indices.map((i) => ({ address: `${chain}-${i}`, derivationPath: `${PATH}/0/${i}`, chain, addressIndex: i, txCount: 0n, balances }));
    return { currentBlock: 1, addresses };
  },
};

/** An HD LTC (and a token of it) whose registry applies each recorded address to the coin. */
function harness() {
  let coin: ActivatedCoin = fakeCoin('LTC', [fakeToken('TKN', 6, 0n)], {
    family: ChainFamilyId.Utxo,
    hd: { walletId: 'w', accountId: 0, accountPath: PATH, chain: 'External', knownAddresses: 0, addresses: [], gapLimit: 20, source },
  });
  const recorded: number[] = [];
  const operations = new HdAddressOperations({
    registry: {
      async addHdAddresses(_ticker, command) {
        if (!('created' in command)) return;
        recorded.push(command.created.addressIndex);
        coin = withHdAddresses(coin, [command.created]);
      },
    },
    find: (ticker) => (ticker === 'LTC' ? { coin, token: undefined } : ticker === 'TKN' ? { coin, token: coin.tokens[0] } : undefined),
    noSuchCoin: (ticker) => new ActivationError(ErrorType.NoSuchCoin, `No such coin ${ticker}`, { coin: ticker }, { httpStatus: 400 }),
  });
  return { operations, recorded };
}

const signal = new AbortController().signal;

describe('HdAddressOperations', () => {
  test('Given an HD coin, When three new addresses are asked at once, Then they are 0, 1 and 2, each recorded once', async () => {
    const h = harness();
    const got = await Promise.all([0, 1, 2].map(() => h.operations.newAddress('LTC', { accountIndex: 0, chain: 'External' }, signal)));
    assert.deepEqual(got.map((a) => a.addressIndex), [0, 1, 2]);
    assert.deepEqual(h.recorded, [0, 1, 2]);
  });

  test('When a refused request is among them, Then the next one still runs', async () => {
    const h = harness();
    const [bad, good] = await Promise.allSettled([
      h.operations.newAddress('LTC', { accountIndex: 3, chain: 'External' }, signal),
      h.operations.newAddress('LTC', { accountIndex: 0, chain: 'External' }, signal),
    ]);
    assert.ok(bad.status === 'rejected' && isActivationError(bad.reason) && bad.reason.errorType === 'UnknownAccount');
    assert.ok(good.status === 'fulfilled' && good.value.addressIndex === 0);
  });

  test('A token hands out its platform\'s next address, with its own balance only; an unknown coin is refused before any read', async () => {
    const h = harness();
    await assert.rejects(h.operations.scan('NOPE', { accountIndex: 0 }, signal), (e) => isActivationError(e) && e.errorType === 'NoSuchCoin');
    assert.deepEqual(h.recorded, []);
    await h.operations.newAddress('LTC', { accountIndex: 0, chain: 'External' }, signal);
    const token = await h.operations.newAddress('TKN', { accountIndex: 0, chain: 'External' }, signal);
    assert.deepEqual([token.addressIndex, Object.keys(token.balances)], [1, ['TKN']]);
    assert.deepEqual(h.recorded, [0, 1]);
  });
});
