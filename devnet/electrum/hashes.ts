/** Electrum hashing: script hashes, statuses, merkle branches. */
import { createHash } from 'node:crypto';
import { addressScript } from '../litecoind/litecoinRegtest.ts';

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest();
const sha256d = (data: Uint8Array) => sha256(sha256(data));
/** Display hex (txids, block hashes) ⇄ the bytes hashed on the wire: byte-reversed. */
const reversedHex = (hex: string) => Buffer.from(hex, 'hex').reverse();

/** The Electrum script hash of a scriptPubKey: sha256(script), bytes reversed, hex. */
export function scriptHashOf(scriptPubKey: Uint8Array | string): string {
  const script = typeof scriptPubKey === 'string' ? Buffer.from(scriptPubKey, 'hex') : scriptPubKey;
  return sha256(script).reverse().toString('hex');
}

/** The Electrum script hash of a Litecoin regtest address. */
export function addressScriptHash(address: string): string {
  return scriptHashOf(addressScript(address));
}

/** Hex of sha256 of `text`: an Electrum status from its `tx_hash:height:` string. */
export function sha256Hex(text: string): string {
  return sha256(Buffer.from(text, 'utf8')).toString('hex');
}

/**
 * The merkle branch of leaf `index` (deepest pairing first) and the root, over display-hex hashes
 * (txids for a block's tree, block hashes for ElectrumX's header checkpoints). Bitcoin's tree: a
 * level with an odd count pairs its last hash with itself.
 */
export function merkleBranch(hashes: readonly string[], index: number): { branch: string[]; root: string } {
  if (index < 0 || index >= hashes.length) throw new RangeError(`leaf ${index} of ${hashes.length}`);
  let level: Buffer[] = hashes.map(reversedHex);
  const branch: string[] = [];
  for (let position = index; level.length > 1; position >>= 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]!);
    branch.push(Buffer.from(level[position ^ 1]!).reverse().toString('hex'));
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i]!, level[i + 1]!])));
    level = next;
  }
  return { branch, root: Buffer.from(level[0]!).reverse().toString('hex') };
}
