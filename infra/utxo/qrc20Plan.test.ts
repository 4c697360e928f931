import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import type { CoinEntry } from '../../spec/coins.ts';
import { planQrc20SwapContracts, planQrc20Token, qrc20DaemonEntry } from './qrc20Plan.ts';

const SWAP = '0x2f754733acd6d753731c00fee32cb484551cc15d';
const H160 = 'a 0x-prefixed hex string with length of 40';

/** The error `run` throws, which must be an `ActivationError` of `type` with `message`. */
function refusal(run: () => unknown, type: ErrorType, message: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ActivationError);
    assert.equal(error.errorType, type);
    assert.equal(error.message, message);
    return true;
  });
}

describe('QRC20 swap contracts, read as the reference reads an H160', () => {
  // The reasons are those of the reference's decoder of an H160 (impl-serde 0.3 under serde_json):
  // "invalid type: null, expected …" for a missing field, "0x prefix is missing", "invalid length
  // N, expected …", "invalid hex character: C, at I" (I counts the 0x).
  const refused: [string, Record<string, string | null | undefined>, string][] = [
    ['swap_contract_address missing', {}, `swap_contract_address: invalid type: null, expected ${H160}`],
    ['swap_contract_address null', { swapContractAddress: null }, `swap_contract_address: invalid type: null, expected ${H160}`],
    ['no 0x prefix', { swapContractAddress: SWAP.slice(2) }, 'swap_contract_address: 0x prefix is missing'],
    ['too short', { swapContractAddress: '0x1234' }, `swap_contract_address: invalid length 4, expected ${H160}`],
    ['not hex', { swapContractAddress: `0x${'g'}${SWAP.slice(3)}` }, 'swap_contract_address: invalid hex character: g, at 2'],
    ['a bad fallback', { swapContractAddress: SWAP, fallbackSwapContract: 'nope' }, 'fallback_swap_contract: 0x prefix is missing'],
  ];
  for (const [name, request, message] of refused) {
    it(`refuses ${name} with InvalidRequest naming the field`, () => refusal(() => planQrc20SwapContracts(request), ErrorType.InvalidRequest, message));
  }

  it('takes the swap contract (lower case, no 0x); the fallback may be omitted or null', () => {
    const upper = `0x${SWAP.slice(2).toUpperCase()}`;
    assert.deepEqual(planQrc20SwapContracts({ swapContractAddress: upper }), { swapContract: SWAP.slice(2) });
    assert.deepEqual(planQrc20SwapContracts({ swapContractAddress: SWAP, fallbackSwapContract: null }), { swapContract: SWAP.slice(2) });
    assert.deepEqual(planQrc20SwapContracts({ swapContractAddress: SWAP, fallbackSwapContract: upper }), { swapContract: SWAP.slice(2), fallbackSwapContract: SWAP.slice(2) });
  });

  it('accepts the zero address, as the reference does for QRC20', () => {
    assert.deepEqual(planQrc20SwapContracts({ swapContractAddress: `0x${'0'.repeat(40)}` }), { swapContract: '0'.repeat(40) });
  });
});

describe('the QRC20 token of the coins file', () => {
  const qrc20 = (contractAddress: string) => ({ type: 'QRC20' as const, platform: 'QTUM', contractAddress });
  const swap = { swapContract: SWAP.slice(2) };

  it('carries the contract with the swap contracts; a coin has none', () => {
    assert.deepEqual(planQrc20Token('T', qrc20('0x0F80AA32BA51E0ACF171E106A1CFCD1EB9A9C3A5'), swap), { ...swap, contract: '0f80aa32ba51e0acf171e106a1cfcd1eb9a9c3a5' });
    assert.equal(planQrc20Token('QTUM', { type: 'QTUM' }, undefined), undefined);
  });

  it('refuses a contract that is not 40 hex digits as a protocol parse error', () => {
    refusal(() => planQrc20Token('T', qrc20('0x1'), swap), ErrorType.CoinProtocolParseError, 'T: QRC20 contract_address must be 40 hex digits');
  });
});

describe("a native QRC20 token's daemon entry", () => {
  const QTUM: CoinEntry = { coin: 'QTUM', name: 'qtum', rpcport: 3889, confpath: '/etc/qtum.conf' };
  const coins = { find: (ticker: string) => (ticker === 'QTUM' ? QTUM : undefined) };

  it("is the platform's entry", () => {
    assert.deepEqual(qrc20DaemonEntry({ coin: 'T-QRC20', name: 'qtum' }, 'QTUM', coins), QTUM);
  });

  it("takes the token's own confpath and rpcport when it sets them", () => {
    assert.deepEqual(qrc20DaemonEntry({ coin: 'T-QRC20', confpath: '/t.conf', rpcport: 1 }, 'QTUM', coins), { ...QTUM, confpath: '/t.conf', rpcport: 1 });
  });

  it('is looked for under the platform ticker in lower case when the coins file lacks the platform', () => {
    assert.deepEqual(qrc20DaemonEntry({ coin: 'T-QRC20' }, 'tQTUM', coins), { coin: 'tQTUM', name: 'tqtum' });
  });
});
