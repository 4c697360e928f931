/**
 * A withdrawal's `to` as an output script of this coin's network, as the reference reads it
 * (KDF `utxo_common.rs` `address_from_str_unchecked`, `output_script_checked`): Base58 with the coin's
 * P2PKH or P2SH prefix and checksum, bech32 segwit (v0) with the coin's hrp, or CashAddr with the
 * coin's prefix. Anything else (another network's address included) is an invalid address.
 */
import { address as btcAddress, payments } from 'bitcoinjs-lib';
import { decodeBase58Check } from '../../keys/base58check.ts';
import { decodeCashAddress } from '../cashAddress.ts';
import type { CoinTxParams } from './coinTxParams.ts';

export type Destination = { readonly script: Uint8Array; readonly kind: 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' } | { readonly problem: string };

const quoted = (text: string) => JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
const startsWith = (bytes: Uint8Array, prefix: readonly number[]) => prefix.every((b, i) => bytes[i] === b);

/** The output script paying `to` on the coin of `params`, or why `to` is not one of its addresses. */
export function destinationScript(to: string, params: CoinTxParams): Destination {
  const base58 = decodeBase58Check(to, params.checksum);
  if (base58 !== undefined) return fromBase58(to, base58, params);
  if (params.hrp !== undefined && to.toLowerCase().startsWith(`${params.hrp}1`)) return fromBech32(to, params.hrp);
  const cash = params.cashPrefix === undefined ? undefined : decodeCashAddress(to, params.cashPrefix);
  if (cash !== undefined) {
    if (cash.prefix !== params.cashPrefix) return { problem: `${quoted(to)} is a CashAddr of ${cash.prefix}, not of ${params.ticker} (${params.cashPrefix})` };
    const hash = Buffer.from(cash.hash);
    return cash.kind === 'p2pkh' ? { script: payments.p2pkh({ hash }).output!, kind: 'p2pkh' } : { script: payments.p2sh({ hash }).output!, kind: 'p2sh' };
  }
  return { problem: `${quoted(to)} is not a ${params.ticker} address (${formatsOf(params)})` };
}

function fromBase58(to: string, payload: Uint8Array, params: CoinTxParams): Destination {
  const hash = payload.subarray(payload.length - 20);
  const prefixLength = payload.length - 20;
  if (prefixLength === params.p2pkhPrefix.length && startsWith(payload, params.p2pkhPrefix)) return { script: payments.p2pkh({ hash: Buffer.from(hash) }).output!, kind: 'p2pkh' };
  if (prefixLength === params.p2shPrefix.length && startsWith(payload, params.p2shPrefix)) return { script: payments.p2sh({ hash: Buffer.from(hash) }).output!, kind: 'p2sh' };
  return { problem: `${quoted(to)} has the address prefix of another network: ${params.ticker} takes ${params.p2pkhPrefix.join(',')} (P2PKH) or ${params.p2shPrefix.join(',')} (P2SH)` };
}

function fromBech32(to: string, hrp: string): Destination {
  let decoded: ReturnType<typeof btcAddress.fromBech32>;
  try {
    decoded = btcAddress.fromBech32(to);
  } catch {
    return { problem: `${quoted(to)} is not a valid bech32 address` };
  }
  if (decoded.prefix !== hrp) return { problem: `${quoted(to)} has the bech32 prefix ${decoded.prefix}, not ${hrp}` };
  if (decoded.version !== 0) return { problem: `${quoted(to)} is a witness version ${decoded.version} address: only version 0 (P2WPKH, P2WSH) is supported` };
  const hash = Buffer.from(decoded.data);
  if (hash.length === 20) return { script: payments.p2wpkh({ hash }).output!, kind: 'p2wpkh' };
  if (hash.length === 32) return { script: payments.p2wsh({ hash }).output!, kind: 'p2wsh' };
  return { problem: `${quoted(to)} has a witness program of ${hash.length} bytes` };
}

function formatsOf(params: CoinTxParams): string {
  const formats = ['Base58'];
  if (params.hrp !== undefined) formats.push(`bech32 ${params.hrp}1…`);
  if (params.cashPrefix !== undefined) formats.push(`CashAddr ${params.cashPrefix}:…`);
  return `expected ${formats.join(', ')}`;
}
