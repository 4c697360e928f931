/**
 * The address an output script pays, as a coin shows it in history entries (`from`, `to`): P2PKH
 * (and P2PK, shown as its key's P2PKH) in the coin's address rule (Base58Check with `pubtype`, or
 * CashAddr), P2SH with `p2shtype`, and witness programs in bech32 with the coin's `bech32_hrp`.
 * A script of no known form (OP_RETURN, bare multisig) has no address and is left out, as the
 * reference leaves out what it cannot show.
 */
import { address as btcAddress, crypto as btcCrypto } from 'bitcoinjs-lib';
import type { CoinEntry } from '../../../spec/coins.ts';
import { encodeBase58Check } from '../../keys/base58check.ts';
import { COIN_PARAMS, base58ChecksumOf, utxoAddressOfHash, type UtxoAddressRule } from '../utxoAddress.ts';

/** Maps output scripts (hex) to addresses for one coin. */
export type ScriptAddresser = (script: Uint8Array) => string | undefined;

export function scriptAddresser(entry: CoinEntry, rule: UtxoAddressRule): ScriptAddresser {
  // A P2PKH under a segwit rule is still shown in Base58Check (the segwit rule names P2WPKH only).
  const legacyRule: UtxoAddressRule =
    rule.format === 'segwit' ? { format: 'standard', pubtype: COIN_PARAMS.pubtype(entry), taddr: entry.taddr ?? 0, checksum: base58ChecksumOf(entry.coin) } : rule;
  const keyHash = (hash: Uint8Array) => utxoAddressOfHash(hash, legacyRule);
  return (script) => {
    const s = Buffer.from(script);
    if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) return keyHash(s.subarray(3, 23));
    if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) {
      const taddr = entry.taddr ?? 0;
      const prefix = taddr > 0 ? [taddr, COIN_PARAMS.p2shtype(entry)] : [COIN_PARAMS.p2shtype(entry)];
      return encodeBase58Check(Uint8Array.from([...prefix, ...s.subarray(2, 22)]), base58ChecksumOf(entry.coin));
    }
    if ((s.length === 35 || s.length === 67) && s[s.length - 1] === 0xac && s[0] === s.length - 2) return keyHash(btcCrypto.hash160(s.subarray(1, s.length - 1)));
    const hrp = entry.bech32_hrp;
    if (hrp !== undefined && s.length >= 4 && s.length <= 42 && (s[0] === 0 || (s[0]! >= 0x51 && s[0]! <= 0x60)) && s[1] === s.length - 2) {
      const version = s[0] === 0 ? 0 : s[0]! - 0x50;
      return btcAddress.toBech32(s.subarray(2), version, hrp);
    }
    return undefined;
  };
}
