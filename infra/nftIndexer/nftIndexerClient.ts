/**
 * Lists a wallet's NFTs from an `nft_req` indexer at activation, as the reference does
 * (docs/compatibility.md §15): `GET {url}/api/v2/{address}/nft?chain=<CHAIN>&format=decimal`, the
 * address in lowercase hex, then the same with `&cursor=<c>` while the answer carries a cursor.
 * With `gateway_proxy` each request carries the node's signed `X-Auth-Payload`, signed (as the
 * reference signs it) over the indexer URL the request gave, with body size 0.
 *
 * Bounded where the reference is not: each request by the family's budget on the injected clock,
 * the answer's size, the number of pages and of NFTs, and a cursor seen twice (a hostile or broken
 * indexer cannot keep the activation looping). Any failure is `Transport`, naming the indexer by
 * its origin only (its path or query may hold an API key).
 */
import { ErrorType, errorSentence } from '../../spec/errors.ts';
import type { NftChain, NftHolding } from '../../spec/nft.ts';
import type { NftIndexerSpec } from '../../actors/ports/chainFamily.ts';
import type { Clock } from '../../kernel/clock.ts';
import { urlLabel } from '../../kernel/urlLabel.ts';
import { describeFailure, getBoundedText } from '../http/boundedGet.ts';
import { X_AUTH_PAYLOAD, type ProxySigner } from '../gatewayProxy/proxySign.ts';
import { parseNftPage } from './nftPage.ts';

export interface NftIndexerLimits {
  /** Pages read at most; an indexer with more is refused rather than truncated. @default 100 */
  readonly maxPages?: number;
  /** NFTs listed at most (after skipping entries without a contract type). @default 10000 */
  readonly maxNfts?: number;
  /** Bytes of one page's answer at most. @default 8388608 (8 MiB) */
  readonly maxPageBytes?: number;
}

export interface NftIndexerDeps extends NftIndexerLimits {
  readonly clock: Clock;
  /** Budget of one request (the EVM family's node budget, 10 s). */
  readonly timeoutMs: number;
  /** The gateway-proxy signer (planning made sure there is one when `gatewayProxy` is set). */
  readonly signer: () => ProxySigner | undefined;
}

/** The page URL: the indexer's own path and query kept, the API path and the chain and format added. */
export function nftListUrl(indexerUrl: string, address: string, chain: NftChain, cursor?: string): string {
  const url = new URL(indexerUrl);
  url.pathname = `${url.pathname.replace(/\/$/, '')}/api/v2/${address.toLowerCase()}/nft`;
  url.searchParams.append('chain', chain);
  url.searchParams.append('format', 'decimal');
  if (cursor !== undefined) url.searchParams.append('cursor', cursor);
  return url.href;
}

/** Every NFT `address` holds on `chain` by the indexer, keyed and deduplicated as the reference (last wins). */
export async function listNfts(indexer: NftIndexerSpec, address: string, chain: NftChain, signal: AbortSignal, deps: NftIndexerDeps): Promise<NftHolding[]> {
  const maxPages = deps.maxPages ?? 100;
  const maxNfts = deps.maxNfts ?? 10_000;
  // No `cause`: a request's error may quote the URL, and nothing may carry more than its origin.
  const fail = (reason: string) => errorSentence(ErrorType.Transport, `Failed to get the NFT list from the NFT indexer ${urlLabel(indexer.url)}: ${reason}`);
  const holdings = new Map<string, NftHolding>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page += 1) {
    const text = await readPage(indexer, nftListUrl(indexer.url, address, chain, cursor), signal, deps, fail);
    let parsed;
    try {
      parsed = parseNftPage(text, chain);
    } catch (error) {
      throw fail(`malformed answer on page ${page}: ${describeFailure(error)}`);
    }
    for (const h of parsed.holdings) holdings.set(`${h.tokenAddress},${h.tokenId}`, h);
    if (holdings.size > maxNfts) throw fail(`it lists more than ${maxNfts} NFTs`);
    if (parsed.cursor === undefined) return [...holdings.values()];
    if (cursors.has(parsed.cursor)) throw fail(`page ${page} repeats an earlier cursor`);
    if (page >= maxPages) throw fail(`it has more than ${maxPages} pages`);
    cursors.add(parsed.cursor);
    cursor = parsed.cursor;
  }
}

/** One page's body, within the request budget; a failure is `fail`'s error, an abort the signal's reason. */
async function readPage(
  indexer: NftIndexerSpec,
  url: string,
  signal: AbortSignal,
  deps: NftIndexerDeps,
  fail: (reason: string) => Error,
): Promise<string> {
  const timeout = new AbortController();
  const cancelTimer = deps.clock.setTimeout(() => timeout.abort(new Error(`no answer within ${deps.timeoutMs} ms`)), deps.timeoutMs);
  try {
    const headers = indexer.gatewayProxy ? { [X_AUTH_PAYLOAD]: JSON.stringify(signerOf(deps).sign(indexer.url, 0)) } : undefined;
    return await getBoundedText(url, { signal: AbortSignal.any([signal, timeout.signal]), maxBytes: deps.maxPageBytes ?? 8 * 1024 * 1024, ...(headers === undefined ? {} : { headers }) });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw fail(timeout.signal.aborted ? (timeout.signal.reason as Error).message : describeFailure(error));
  } finally {
    cancelTimer();
  }
}

function signerOf(deps: NftIndexerDeps): ProxySigner {
  const signer = deps.signer();
  if (signer === undefined) throw new Error('no gateway-proxy identity to sign the NFT indexer requests'); // planning refuses this first
  return signer;
}
