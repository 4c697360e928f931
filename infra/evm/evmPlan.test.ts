import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isActivationError } from '../../spec/errors.ts';
import { parseCoinProtocol, type CoinEntry } from '../../spec/coins.ts';
import { CommandKind, type EnableActivationCommand, type PlanContext, type PlatformActivationCommand } from '../../actors/ports/chainFamily.ts';
import { ActivationVia, KeyPolicy } from '../../machines/activation.types.ts';
import { planSwapContracts } from './evmAddressRules.ts';
import { planEvmPlatform } from './evmPlan.ts';
import { planLegacyEvmEnable } from './legacyEnablePlan.ts';

// The reference's documented swap contract (EIP-55 form).
const SWAP = '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80';
const ZERO = '0x0000000000000000000000000000000000000000';

const ETH: CoinEntry = { coin: 'ETH', decimals: 18, protocol: { type: 'ETH', protocol_data: { chain_id: 1 } } };
const RBTC: CoinEntry = { coin: 'RBTC', wallet_only: true, protocol: { type: 'ETH', protocol_data: { chain_id: 30 } } };

function context(entry: CoinEntry): PlanContext {
  const parsed = parseCoinProtocol(entry);
  assert.ok(parsed.ok);
  return { platform: entry, platformProtocol: parsed.protocol, coins: { find: (t) => (t === entry.coin ? entry : undefined) } };
}

const platform = (contracts: { swapContractAddress?: string; fallbackSwapContract?: string }, ticker = 'ETH'): PlatformActivationCommand => ({
  kind: CommandKind.Platform,
  ticker,
  via: ActivationVia.EnableEthWithTokens,
  nodes: [{ url: 'http://127.0.0.1:8545' }],
  tokens: [],
  getBalances: true,
  keyPolicy: KeyPolicy.ContextPrivKey,
  ...contracts,
});

const legacy = (contracts: { swapContractAddress?: string; fallbackSwapContract?: string }): EnableActivationCommand => ({
  kind: CommandKind.Enable,
  ticker: 'ETH',
  via: ActivationVia.Enable,
  urls: ['http://127.0.0.1:8545'],
  ...contracts,
});

/** Asserts `run` throws `InvalidRequest` with exactly `message`. */
function refused(run: () => unknown, message: string): void {
  assert.throws(run, (e) => isActivationError(e) && e.errorType === 'InvalidRequest' && e.message === message && e.data === message, message);
}

describe('EVM swap contracts: one rule for every EVM method (docs/compatibility.md §7, §9)', () => {
  test('the zero address is refused as either contract, by v2 and by legacy enable alike', () => {
    refused(() => planEvmPlatform(platform({ swapContractAddress: ZERO, fallbackSwapContract: SWAP }), context(ETH)), "params.swap_contract_address can't be zero address");
    refused(() => planEvmPlatform(platform({ swapContractAddress: SWAP, fallbackSwapContract: ZERO }), context(ETH)), "params.fallback_swap_contract can't be zero address");
    refused(() => planLegacyEvmEnable(legacy({ swapContractAddress: ZERO }), context(ETH)), "swap_contract_address can't be zero address");
    refused(() => planLegacyEvmEnable(legacy({ swapContractAddress: SWAP, fallbackSwapContract: ZERO }), context(ETH)), "fallback_swap_contract can't be zero address");
  });

  test('a wallet-only platform may leave the swap contract out in v2, but a zero one is still refused', () => {
    assert.deepEqual(planEvmPlatform(platform({}, 'RBTC'), context(RBTC)).swapContracts, { swapContractAddress: null, fallbackSwapContract: null });
    refused(() => planEvmPlatform(platform({ swapContractAddress: ZERO }, 'RBTC'), context(RBTC)), "params.swap_contract_address can't be zero address");
    refused(() => planEvmPlatform(platform({}), context(ETH)), 'params.swap_contract_address is required to enable ETH');
  });

  test('the fallback may be left out: the plan records it as null, never a default', () => {
    const v2 = planEvmPlatform(platform({ swapContractAddress: SWAP }), context(ETH));
    assert.deepEqual(v2.swapContracts, { swapContractAddress: SWAP, fallbackSwapContract: null });
    const both = planEvmPlatform(platform({ swapContractAddress: SWAP, fallbackSwapContract: SWAP.toLowerCase() }), context(ETH));
    assert.deepEqual(both.swapContracts, { swapContractAddress: SWAP, fallbackSwapContract: SWAP.toLowerCase() });
    assert.deepEqual(planLegacyEvmEnable(legacy({ swapContractAddress: SWAP }), context(ETH)).swapContracts, { swapContractAddress: SWAP, fallbackSwapContract: null });
  });

  test('malformed addresses: too short, not hex, a broken EIP-55 checksum', () => {
    const brokenChecksum = SWAP.replace('ABE4', 'aBE4');
    for (const bad of ['0x1234', 'nope', brokenChecksum]) {
      refused(() => planSwapContracts({ swapContractAddress: bad }, { ticker: 'ETH', required: true, fieldPrefix: '' }), 'swap_contract_address is not a valid EVM address');
      refused(() => planSwapContracts({ swapContractAddress: SWAP, fallbackSwapContract: bad }, { ticker: 'ETH', required: true, fieldPrefix: 'params.' }), 'params.fallback_swap_contract is not a valid EVM address');
    }
  });
});
