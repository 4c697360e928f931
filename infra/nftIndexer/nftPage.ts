/**
 * One page of an NFT indexer's answer (the Moralis-shaped `GET /api/v2/{address}/nft` the
 * reference reads): `{"result": [...], "cursor": "<next page>" | null}`. Entries without a
 * `contract_type` are skipped, as the reference does; anything else malformed refuses the whole
 * answer (the reference fails there too), so that no value is guessed. Token ids and amounts stay
 * exact decimal strings.
 */
import { formatAmount, parseAmount } from '../../spec/amount.ts';
import type { NftChain, NftHolding } from '../../spec/nft.ts';

export interface NftPage {
  readonly holdings: NftHolding[];
  /** The next page's cursor; `undefined` on the last page (`null`, absent or empty). */
  readonly cursor: string | undefined;
}

/** The holdings and cursor of `text`, or throws an `Error` saying what is wrong with it. */
export function parseNftPage(text: string, chain: NftChain): NftPage {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error('the answer is not JSON');
  }
  if (!isObject(answer)) throw new Error('the answer is not a JSON object');
  const result = answer['result'];
  if (!Array.isArray(result)) throw new Error('the answer has no "result" list');
  const holdings: NftHolding[] = [];
  result.forEach((entry, index) => {
    const holding = parseEntry(entry, `result[${index}]`, chain);
    if (holding !== undefined) holdings.push(holding);
  });
  const cursor = answer['cursor'];
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string') throw new Error('the answer\'s "cursor" is not a string or null');
  return { holdings, cursor: cursor === null || cursor === undefined || cursor === '' ? undefined : cursor };
}

function parseEntry(entry: unknown, at: string, chain: NftChain): NftHolding | undefined {
  if (!isObject(entry)) throw new Error(`${at} is not an object`);
  const contractType = entry['contract_type'];
  if (contractType === undefined || contractType === null) return undefined;
  if (contractType !== 'ERC721' && contractType !== 'ERC1155') throw new Error(`${at}.contract_type is neither ERC721 nor ERC1155 (got ${shown(contractType)})`);
  const tokenAddress = entry['token_address'];
  if (typeof tokenAddress !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(tokenAddress)) throw new Error(`${at}.token_address is not an EVM address (got ${shown(tokenAddress)})`);
  const tokenId = entry['token_id'];
  if (typeof tokenId !== 'string' || !/^[0-9]+$/.test(tokenId)) throw new Error(`${at}.token_id is not a decimal integer string (got ${shown(tokenId)})`);
  if (BigInt(tokenId) >= 2n ** 256n) throw new Error(`${at}.token_id exceeds uint256 (got ${shown(tokenId)})`);
  return {
    tokenAddress: tokenAddress.toLowerCase(),
    tokenId: BigInt(tokenId).toString(),
    chain,
    contractType,
    amount: canonicalAmount(entry['amount'], `${at}.amount`),
  };
}

/** A decimal string in its canonical form (`"007"` → `"7"`, `"1.50"` → `"1.5"`), exactly. */
function canonicalAmount(value: unknown, at: string): string {
  const match = typeof value === 'string' ? /^[0-9]+(?:\.([0-9]+))?$/.exec(value) : null;
  if (match === null) throw new Error(`${at} is not a non-negative decimal string (got ${shown(value)})`);
  const decimals = match[1]?.length ?? 0;
  return formatAmount(parseAmount(value as string, decimals), decimals);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A bad value, short, for a message. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
