/**
 * The EVM address rules every EVM activation path shares (v2 `enable_eth_with_tokens` and legacy
 * `enable`): what counts as an address, a checksummed contract address, and the zero address.
 */
import { ZeroAddress, getAddress, isAddress } from 'ethers';
import type { TokenRule } from '../../actors/platformPlan.ts';

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
