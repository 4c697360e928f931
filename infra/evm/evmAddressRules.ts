/**
 * The EVM address rules every EVM activation path shares (v2 `enable_eth_with_tokens`,
 * `task::enable_eth::init` and legacy `enable`): what counts as an address, a checksummed contract
 * address, the zero address, and the swap contracts.
 */
import { ZeroAddress, getAddress, isAddress } from 'ethers';
import type { TokenRule } from '../../actors/platformPlan.ts';
import type { SwapContracts, SwapV2Contracts } from '../../machines/activation.types.ts';
import { invalidRequest } from '../../spec/errors.ts';

/** A well-formed EVM address: 40 hex digits, and if mixed-case, a valid EIP-55 checksum. */
export function isEvmAddress(value: string): boolean {
  return isAddress(value);
}

/** `0x000…0` in any letter case (an unset contract, refused by the reference). */
export function isZeroAddress(value: string): boolean {
  return value.toLowerCase() === ZeroAddress;
}

/** Memo of checksum verdicts: the same coins-file addresses are checked on every activation. */
const checksumVerdicts = new Map<string, boolean>();

/** Exactly the EIP-55 form of itself (the reference requires it of coins-file token contracts). */
export function isChecksummed(address: string): boolean {
  let verdict = checksumVerdicts.get(address);
  if (verdict === undefined) {
    try {
      verdict = getAddress(address) === address;
    } catch {
      verdict = false;
    }
    if (checksumVerdicts.size < 100_000) checksumVerdicts.set(address, verdict);
  }
  return verdict;
}

/** ERC20 tokens, with the EIP-55 checksummed contract address the reference requires. */
export const ERC20_RULE: TokenRule = {
  protocolType: 'ERC20',
  contractAddress: (raw) => (isChecksummed(raw) ? { address: raw } : { problem: 'is not an EIP-55 checksummed address' }),
};

/** The swap contract fields of an EVM request, as given (`null` already read as absent). */
export interface SwapContractsRequest {
  readonly swapContractAddress?: string;
  readonly fallbackSwapContract?: string;
}

/**
 * The swap contracts of every EVM method (spec 4.1, 4.5, 4.7; docs/compatibility.md §7, §9), checked
 * as the reference does: each given address is a well-formed EVM address and not `0x000…0`;
 * `swap_contract_address` is required unless `required` is false (a wallet-only coin through a v2
 * method), `fallback_swap_contract` is optional (omitted or `null`). `fieldPrefix` is how the
 * request names its fields (`params.` for v2, nothing for a flat legacy body). The result records
 * an absent address as `null`, never a default. Throws `InvalidRequest` with the reference's sentence.
 */
export function planSwapContracts(
  request: SwapContractsRequest,
  options: { readonly ticker: string; readonly required: boolean; readonly fieldPrefix: string },
): SwapContracts {
  const check = (field: string, value: string | undefined, required: boolean): string | null => {
    const problem = swapContractProblem(value, required, options.ticker);
    if (problem !== undefined) throw invalidRequest(`${options.fieldPrefix}${field} ${problem}`);
    return value ?? null;
  };
  return {
    swapContractAddress: check('swap_contract_address', request.swapContractAddress, options.required),
    fallbackSwapContract: check('fallback_swap_contract', request.fallbackSwapContract, false),
  };
}

function swapContractProblem(value: string | undefined, required: boolean, ticker: string): string | undefined {
  if (value === undefined) return required ? `is required to enable ${ticker}` : undefined;
  if (!isEvmAddress(value)) return 'is not a valid EVM address';
  if (isZeroAddress(value)) return "can't be zero address";
  return undefined;
}

/** The swap v2 contract fields of an EVM request, as given. */
export interface SwapV2ContractsRequest {
  readonly swapV2Contracts?: SwapV2Contracts;
}

/** Wire names of the three swap v2 contracts (spec 2.2 SwapV2Contracts), in the reference's order of checks. */
const SWAP_V2_FIELDS = [
  ['maker_swap_v2_contract', 'makerSwapV2Contract'],
  ['taker_swap_v2_contract', 'takerSwapV2Contract'],
  ['nft_maker_swap_v2_contract', 'nftMakerSwapV2Contract'],
] as const;

/**
 * `swap_v2_contracts` of a v2 EVM method (spec 4.1, 4.5; docs/compatibility.md §13): required when
 * MM2.json `use_trading_proto_v2` is true for a coin that trades (`required`), as the reference;
 * when given, each of the three is checked like the other swap contracts (a well-formed EVM
 * address, a valid EIP-55 checksum if mixed-case, not `0x000…0`). Absent and not required: `undefined`.
 */
export function planSwapV2Contracts(
  request: SwapV2ContractsRequest,
  options: { readonly ticker: string; readonly required: boolean; readonly fieldPrefix: string },
): SwapV2Contracts | undefined {
  const given = request.swapV2Contracts;
  if (given === undefined) {
    if (!options.required) return undefined;
    throw invalidRequest(
      `${options.fieldPrefix}swap_v2_contracts is required to enable ${options.ticker}: MM2.json sets use_trading_proto_v2, and trading protocol v2 needs the maker, taker and NFT maker swap v2 contracts`,
    );
  }
  for (const [wire, field] of SWAP_V2_FIELDS) {
    const problem = swapContractProblem(given[field], true, options.ticker);
    if (problem !== undefined) throw invalidRequest(`${options.fieldPrefix}swap_v2_contracts.${wire} ${problem}`);
  }
  return { takerSwapV2Contract: given.takerSwapV2Contract, makerSwapV2Contract: given.makerSwapV2Contract, nftMakerSwapV2Contract: given.nftMakerSwapV2Contract };
}
