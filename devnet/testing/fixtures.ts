import {
  ActivationVia,
  ChainFamilyId,
  DerivationMethod,
  type ActivatedCoin,
  type ActivatedToken,
  type ActivationPlan,
} from '../../machines/activation.types.ts';

/** A plan for unit tests of machines and actors (no chain behind it). */
export function fakePlan(ticker = 'ETH', tokens: readonly string[] = [], overrides: Partial<ActivationPlan> = {}): ActivationPlan {
  return { ticker, family: ChainFamilyId.Evm, via: ActivationVia.EnableEthWithTokens, tokens, getBalances: true, params: {}, ...overrides };
}

/** A token as an activation reports it; without `spendable` it has no balance (get_balances false). */
export function fakeToken(ticker: string, decimals = 6, spendable?: bigint, unspendable = 0n): ActivatedToken {
  return {
    ticker,
    contractAddress: `0x${ticker.length.toString(16).padStart(40, '0')}`,
    decimals,
    ...(spendable === undefined ? {} : { balance: { spendable, unspendable } }),
  };
}

/** An activated coin at the check-vector address, 1 ETH, block 7. */
export function fakeCoin(ticker = 'ETH', tokens: readonly ActivatedToken[] = [], overrides: Partial<ActivatedCoin> = {}): ActivatedCoin {
  return {
    ticker,
    family: ChainFamilyId.Evm,
    address: '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d',
    pubkey: `04${'cd'.repeat(64)}`,
    derivationMethod: DerivationMethod.Iguana,
    currentBlock: 7,
    decimals: 18,
    balance: { spendable: 10n ** 18n, unspendable: 0n },
    tokens,
    connection: null,
    ...overrides,
  };
}
