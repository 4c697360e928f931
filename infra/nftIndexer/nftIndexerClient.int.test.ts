import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { getAddress } from 'ethers';
import { closeServer, httpUrl, listen, LOOPBACK_HOST } from '../../devnet/listening.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { listNfts, nftListUrl, type NftIndexerDeps } from './nftIndexerClient.ts';

/** The listing client against a scripted indexer on loopback: pagination, its bounds and the request budget. */

const WALLET = '0x394d86994f954ed931b86791b62fe64f4c5dac37';
let script: (url: URL, res: ServerResponse) => void = () => {};
const seen: string[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  seen.push(req.url ?? '');
  script(new URL(req.url ?? '/', 'http://x'), res);
});
let base = '';
before(async () => {
  base = httpUrl(LOOPBACK_HOST, await listen(server, LOOPBACK_HOST, 0));
});
after(() => closeServer(server, () => server.closeAllConnections()));

const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const nft = (id: number) => ({ token_address: '0x5fbdb2315678afecb367f032d93f642f64180aa3', token_id: String(id), contract_type: 'ERC721', amount: '1' });
const deps = (over: Partial<NftIndexerDeps> = {}): NftIndexerDeps => ({ clock: new ManualClock(), timeoutMs: 10_000, signer: () => undefined, ...over });
const list = (d = deps(), signal = new AbortController().signal) => listNfts({ url: `${base}/v2api?key=K`, gatewayProxy: false }, WALLET, 'ETH', signal, d);

describe('the NFT indexer client', () => {
  it('builds the reference\'s URL (its own test vector): the address lowercased, chain and format appended to the indexer\'s query', () => {
    assert.equal(
      nftListUrl('https://moralis.gleec.com', getAddress(WALLET), 'POLYGON'),
      'https://moralis.gleec.com/api/v2/0x394d86994f954ed931b86791b62fe64f4c5dac37/nft?chain=POLYGON&format=decimal',
    );
    assert.equal(nftListUrl('https://n.example/base/?key=K', WALLET, 'BSC', 'c.d'), `https://n.example/base/api/v2/${WALLET}/nft?key=K&chain=BSC&format=decimal&cursor=c.d`);
  });

  it('follows cursors until there is none, keyed as the reference (a repeated NFT is listed once)', async () => {
    script = (url, res) => {
      const cursor = url.searchParams.get('cursor');
      if (cursor === null) return json(res, { result: [nft(1), nft(2)], cursor: 'p2' });
      if (cursor === 'p2') return json(res, { result: [nft(2), { ...nft(3), contract_type: null }], cursor: 'p3' });
      return json(res, { result: [nft(4)], cursor: null });
    };
    seen.length = 0;
    const holdings = await list();
    assert.deepEqual(holdings.map((h) => h.tokenId), ['1', '2', '4']);
    assert.deepEqual(seen.map((u) => new URL(u, 'http://x').searchParams.get('cursor')), [null, 'p2', 'p3']);
  });

  it('is bounded: a repeated cursor, too many pages, too many NFTs, too large a page', async () => {
    const reason = async (d: NftIndexerDeps) => (await list(d).then(() => 'listed', (e: Error) => e.message)).replace(`${base}`, 'ORIGIN');
    script = (_url, res) => json(res, { result: [nft(1)], cursor: 'same' });
    assert.equal(await reason(deps()), 'Failed to get the NFT list from the NFT indexer ORIGIN: page 2 repeats an earlier cursor');
    let n = 0;
    script = (_url, res) => json(res, { result: [nft(n)], cursor: `c${++n}` });
    assert.equal(await reason(deps({ maxPages: 5 })), 'Failed to get the NFT list from the NFT indexer ORIGIN: it has more than 5 pages');
    assert.equal(await reason(deps({ maxNfts: 3 })), 'Failed to get the NFT list from the NFT indexer ORIGIN: it lists more than 3 NFTs');
    script = (_url, res) => json(res, { result: Array.from({ length: 50 }, (_, i) => nft(i)), cursor: null });
    assert.equal(await reason(deps({ maxPageBytes: 1000 })), 'Failed to get the NFT list from the NFT indexer ORIGIN: the answer exceeds 1000 bytes');
  });

  it('gives a silent indexer its budget on the injected clock, and stops at once when the activation is aborted', async () => {
    script = () => {}; // never answers
    const clock = new ManualClock();
    const pending = list(deps({ clock }));
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(clock.dueIn(), [10_000]);
    clock.advance(10_000);
    await assert.rejects(pending, { errorType: 'Transport', message: `Failed to get the NFT list from the NFT indexer ${base}: no answer within 10000 ms` });
    assert.equal(clock.pendingTimers, 0);
    const controller = new AbortController();
    const aborted = list(deps({ clock }), controller.signal);
    await new Promise((r) => setTimeout(r, 20));
    controller.abort(new Error('cancelled'));
    await assert.rejects(aborted, { message: 'cancelled' });
    assert.equal(clock.pendingTimers, 0);
  });
});
