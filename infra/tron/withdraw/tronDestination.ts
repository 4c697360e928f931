/**
 * A withdrawal's `to` for TRON, read as the reference reads it (`mm2src/coins/eth/tron/address.rs`
 * `FromStr`): base58check `T…` of 34 characters, or hex `41…` (42 digits, optionally `0x`), whose
 * first byte is TRON's `0x41`. An EVM address or another network's address is `InvalidAddress`.
 */
import { tronToEvmAddress } from '../../keys/tronAddress.ts';
import { invalidAddress } from './tronWithdrawErrors.ts';

const BASE58_FORM = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const HEX_FORM = /^(?:0x)?41[0-9a-fA-F]{40}$/;

/** The EVM-form (EIP-55) address behind a TRON destination; throws `InvalidAddress`. */
export function tronDestination(to: string): string {
  const evm = BASE58_FORM.test(to) || HEX_FORM.test(to) ? tronToEvmAddress(to) : undefined;
  if (evm === undefined) {
    const why = BASE58_FORM.test(to) ? 'its base58check checksum is wrong' : 'expected base58 T… (34 characters) or hex 41… (42 digits)';
    throw invalidAddress(`Invalid TRON address ${JSON.stringify(to.slice(0, 100))}: ${why}`);
  }
  return evm;
}
