/**
 * An NFT indexer for tests and dev mode, answering as the Moralis-shaped API the reference reads:
 * `GET <base>/api/v2/<address>/nft?chain=<CHAIN>&format=decimal[&cursor=<c>]` →
 * `{"status":"SYNCED","page","page_size","cursor","result":[{token_address, token_id,
 * contract_type, amount, owner_of, block_number, block_number_minted, …}]}`, amounts and ids as
 * decimal strings. Holdings come from the devnet chain's transfer logs at each first page
 * (`chainHoldings.ts`), and are served a few per page (default 2) so clients must follow cursors.
 *
 * The base URL carries an API key in its query (`?key=devnet-secret`), which every request must
 * keep. With `requireSignature` it also checks the gateway-proxy payload (`X-Auth-Payload`) as a
 * gateway proxy does (`devnet/proxies/gatewayProxy.ts`), signed over the base URL with body size 0,
 * as the reference signs its NFT requests. Faults on demand: HTTP 500, a body that is not JSON, an
 * endless cursor, a malformed entry.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { closeServer, httpUrl, listen, LOOPBACK_HOST } from '../listening.ts';
import { refusal } from '../proxies/gatewayProxy.ts';
import { chainHoldings, type ChainHolding } from './chainHoldings.ts';

export const NftIndexerMode = { Json: 'json', Error: 'error', Garbage: 'garbage', EndlessCursor: 'endless-cursor', BadTokenId: 'bad-token-id' } as const;
export type NftIndexerMode = (typeof NftIndexerMode)[keyof typeof NftIndexerMode];

export interface NftIndexerOptions {
  readonly evm: { readonly request: EvmRequest };
  /** NFTs per page. @default 2 */
  readonly pageSize?: number;
  /** The `chain` query it serves (others get HTTP 400). @default 'ETH' */
  readonly chain?: string;
  /** Check the gateway-proxy signature of each request. @default false */
  readonly requireSignature?: boolean;
  /** Its clock for signature expiry, ms since the epoch. @default Date.now */
  readonly now?: () => number;
}

export interface NftIndexerRequest {
  /** Path and query as received. */
  readonly path: string;
  readonly signed: boolean;
}

export interface NftIndexer {
  /** The base URL to give as `nft_req.info.url`: `http://127.0.0.1:<port>/moralis?key=devnet-secret`. */
  readonly url: string;
  requests(): NftIndexerRequest[];
  /** Why each refused signed-request check failed, in order, and the accepted signers. */
  signatures(): { refused: string[]; signers: string[] };
  answer(mode: NftIndexerMode): void;
  stop(): Promise<void>;
}

const BASE_PATH = '/moralis';
const API_KEY = 'devnet-secret';

/** Starts the indexer on a free loopback port. */
export async function startNftIndexer(options: NftIndexerOptions): Promise<NftIndexer> {
  const pageSize = options.pageSize ?? 2;
  const chain = options.chain ?? 'ETH';
  const now = options.now ?? Date.now;
  let mode: NftIndexerMode = NftIndexerMode.Json;
  const requests: NftIndexerRequest[] = [];
  const refused: string[] = [];
  const signers = new Set<string>();
  let base = '';
  /** Holdings of each address being paged through, fixed at its first page (as a cursor pins a snapshot). */
  const snapshots = new Map<string, ChainHolding[]>();

  const server = createServer((req, res) => void serve(req, res).catch((error: unknown) => reply(res, 500, { message: String(error) })));
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    const header = req.headers['x-auth-payload'];
    requests.push({ path: req.url ?? '/', signed: typeof header === 'string' });
    if (options.requireSignature) {
      const why = typeof header === 'string' ? refusal(parse(header), base, 0, Math.floor(now() / 1000)) : 'missing X-Auth-Payload';
      if (why !== undefined) {
        refused.push(why);
        return reply(res, 401, { message: 'Unauthorized' });
      }
      signers.add((parse(header as string) as { address: string }).address);
    }
    const url = new URL(req.url ?? '/', base);
    if (url.searchParams.get('key') !== API_KEY) return reply(res, 401, { message: 'Invalid key' });
    const match = new RegExp(`^${BASE_PATH}/api/v2/(0x[0-9a-fA-F]{40})/nft$`).exec(url.pathname);
    if (req.method !== 'GET' || match === null) return reply(res, 404, { message: 'Not found' });
    if (url.searchParams.get('chain') !== chain || url.searchParams.get('format') !== 'decimal') return reply(res, 400, { message: 'chain or format not served' });
    if (mode === NftIndexerMode.Error) return reply(res, 500, { message: 'indexer is down' });
    if (mode === NftIndexerMode.Garbage) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not json');
    const address = match[1]!.toLowerCase();
    const cursor = url.searchParams.get('cursor');
    const offset = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString('utf8').split(':')[1]);
    if (!Number.isSafeInteger(offset) || offset < 0) return reply(res, 400, { message: 'bad cursor' });
    if (cursor === null) snapshots.set(address, await holdingsOf(address));
    const all = snapshots.get(address) ?? [];
    const page = all.slice(offset, offset + pageSize);
    const more = offset + pageSize < all.length || mode === NftIndexerMode.EndlessCursor;
    const next = more ? Buffer.from(`${address}:${offset + pageSize}`).toString('base64url') : null;
    reply(res, 200, {
      status: 'SYNCED',
      page: Math.floor(offset / pageSize) + 1,
      page_size: pageSize,
      cursor: next,
      result: page.map((h) => entry(h, mode)),
    });
  }

  async function holdingsOf(address: string): Promise<ChainHolding[]> {
    const held = (await chainHoldings(options.evm.request)).filter((h) => h.holder === address);
    return held.sort((a, b) => (a.contract === b.contract ? (a.tokenId < b.tokenId ? -1 : 1) : a.contract < b.contract ? -1 : 1));
  }

  const port = await listen(server, LOOPBACK_HOST, 0);
  base = `${httpUrl(LOOPBACK_HOST, port)}${BASE_PATH}?key=${API_KEY}`;
  let stopping: Promise<void> | undefined;
  return {
    url: base,
    requests: () => [...requests],
    signatures: () => ({ refused: [...refused], signers: [...signers] }),
    answer(next) {
      mode = next;
    },
    stop: () => (stopping ??= closeServer(server, () => server.closeAllConnections())),
  };
}

/** An entry as the Moralis-shaped API writes it (strings for numbers, lowercase addresses). */
function entry(h: ChainHolding, mode: NftIndexerMode): Record<string, unknown> {
  return {
    token_address: h.contract,
    token_id: mode === NftIndexerMode.BadTokenId ? Number(h.tokenId) : h.tokenId.toString(),
    owner_of: h.holder,
    block_number: String(h.blockNumber),
    block_number_minted: String(h.mintedAt),
    token_hash: h.tokenHash,
    amount: h.amount.toString(),
    possible_spam: false,
    contract_type: h.contractType,
    name: null,
    symbol: null,
    token_uri: null,
    metadata: null,
    last_token_uri_sync: null,
    last_metadata_sync: null,
    minter_address: null,
    verified_collection: false,
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
