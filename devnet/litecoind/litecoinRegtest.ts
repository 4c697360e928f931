/** Litecoin regtest address parameters (chainparams.cpp `CRegTestParams`), for bitcoinjs-lib. */
import { address as btcAddress, payments, type Network } from 'bitcoinjs-lib';

/** P2PKH version 111 (0x6f, `m…`/`n…`), P2SH version 58 (0x3a, `Q…`), bech32 hrp `rltc`, WIF 239. */
export const LITECOIN_REGTEST: Network = {
  messagePrefix: '\x19Litecoin Signed Message:\n',
  bech32: 'rltc',
  bip32: { public: 0x043587cf, private: 0x04358394 },
  pubKeyHash: 0x6f,
  scriptHash: 0x3a,
  wif: 0xef,
};

/** The regtest P2PKH address of a 20-byte public key hash (hex or bytes). */
export function p2pkhAddress(hash160: Uint8Array | string): string {
  const hash = typeof hash160 === 'string' ? Buffer.from(hash160, 'hex') : hash160;
  if (hash.length !== 20) throw new Error(`a hash160 has 20 bytes, got ${hash.length}`);
  const { address } = payments.p2pkh({ hash, network: LITECOIN_REGTEST });
  return address!;
}

/** The scriptPubKey (hex) paying to a regtest address (P2PKH, P2SH or bech32). */
export function addressScript(address: string): string {
  return Buffer.from(btcAddress.toOutputScript(address, LITECOIN_REGTEST)).toString('hex');
}
