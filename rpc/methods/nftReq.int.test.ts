import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAddress } from 'ethers';
import { deployTestNfts, startNftIndexer, NftIndexerMode, type EvmDevnet, type NftIndexer, type TestNfts } from '../../devnet/index.ts';
import { DEVNET_CHAIN_ID, TEST_ADDRESS, enableEthParams, startStack, startTestDevnet } from '../../devnet/testing/stack.ts';
import { enabledTickers, startTask, taskStatus, untilFinished } from '../../devnet/testing/tasks.ts';

/**
 * `nft_req` through the RPC (docs/compatibility.md §15): the wallet's NFTs from an NFT indexer
 * double that computes holdings from the devnet chain's transfer logs and pages them two at a time.
 * The expected entries are what this test minted and moved, written out here.
 */

const BOB_SEED = 'dummy-value-bob';
/** The reference's peer id for the seed node with passphrase "dummy-value-bob". */
const BOB_PEER_ID = '12D3KooWEtuv7kmgGCC7oAQ31hB7AR5KkhT3eEWB2bP2roo3M7rY';
/** Someone else: NFTs minted to it are not the wallet's. */
const STRANGER = '0x0d3c2a6b4ba1d2a2c0fbe00e7d3d06c2a1e42b32';
const BIG_ID = 2n ** 200n + 5n;

let devnet: EvmDevnet;
let nfts: TestNfts;
let indexer: NftIndexer;
/** What the test wallet holds after the transactions of `before`, as `nfts_infos` must list it. */
let expected: Record<string, { token_address: string; token_id: string; chain: string; contract_type: string; amount: string }>;

before(async () => {
  devnet = await startTestDevnet();
  nfts = await deployTestNfts(devnet.request, devnet.deployer);
  const me = TEST_ADDRESS;
  const other = getAddress(STRANGER);
  await nfts.mint721(me, 1n);
  await nfts.mint721(me, BIG_ID);
  await nfts.mint721(devnet.deployer, 3n);
  await nfts.give721(me, 3n); // minted elsewhere, then moved to the wallet
  await nfts.mint721(other, 4n); // someone else's
  await nfts.mint721(devnet.deployer, 5n); // the deployer's
  await nfts.mint1155(me, 10n, 7n);
  await nfts.mintBatch1155(me, [11n, 12n], [1n, 10n ** 21n]);
  await nfts.mint1155(devnet.deployer, 13n, 10n);
  await nfts.give1155(me, 13n, 4n); // 4 of the deployer's 10
  await nfts.mint1155(other, 14n, 2n);
  const e721 = nfts.erc721.toLowerCase();
  const e1155 = nfts.erc1155.toLowerCase();
  const entry = (token: string, id: bigint, type: string, amount: string) => [
    `${token},${id}`,
    { token_address: token, token_id: id.toString(), chain: 'ETH', contract_type: type, amount },
  ];
  expected = Object.fromEntries([
    entry(e721, 1n, 'ERC721', '1'),
    entry(e721, BIG_ID, 'ERC721', '1'),
    entry(e721, 3n, 'ERC721', '1'),
    entry(e1155, 10n, 'ERC1155', '7'),
    entry(e1155, 11n, 'ERC1155', '1'),
    entry(e1155, 12n, 'ERC1155', '1000000000000000000000'),
    entry(e1155, 13n, 'ERC1155', '4'),
  ]);
  indexer = await startNftIndexer({ evm: devnet });
});
after(async () => {
  await indexer.stop();
  await devnet.stop();
});

const nftReq = (url: string, gatewayProxy?: boolean) => ({ type: 'NftIndexer', info: { url, ...(gatewayProxy === undefined ? {} : { gateway_proxy: gatewayProxy }) } });

/** The indexer's requests made during `work`. */
async function requestsDuring<T>(on: NftIndexer, work: () => Promise<T>): Promise<{ value: T; paths: string[]; signed: boolean[] }> {
  const before = on.requests().length;
  const value = await work();
  const made = on.requests().slice(before);
  return { value, paths: made.map((r) => r.path), signed: made.map((r) => r.signed) };
}

/** Everything the service writes to stderr (its log) during `work`. */
async function stderrDuring<T>(work: () => Promise<T>): Promise<{ value: T; text: string }> {
  const write = process.stderr.write.bind(process.stderr);
  let text = '';
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    return { value: await work(), text };
  } finally {
    process.stderr.write = write;
  }
}

describe('nft_req', () => {
  test('enable_eth_with_tokens lists exactly the NFTs the wallet holds on chain, across every page; coin_status names the indexer by origin', async () => {
    const s = await startStack({ devnet });
    try {
      const seen = await requestsDuring(indexer, () => s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nft_req: nftReq(indexer.url) })));
      assert.equal(seen.value.status, 200, JSON.stringify(seen.value.body));
      assert.deepEqual(seen.value.body.result.nfts_infos, expected);
      const wallet = TEST_ADDRESS.toLowerCase();
      assert.equal(seen.paths.length, 4, '7 NFTs, 2 per page');
      assert.equal(seen.paths[0], `/moralis/api/v2/${wallet}/nft?key=devnet-secret&chain=ETH&format=decimal`, 'the reference\'s path and query, the address in lowercase, the API key kept');
      for (const path of seen.paths.slice(1)) assert.match(path, new RegExp(`^/moralis/api/v2/${wallet}/nft\\?key=devnet-secret&chain=ETH&format=decimal&cursor=[A-Za-z0-9_-]+$`));
      assert.deepEqual(seen.signed, [false, false, false, false]);
      const status = await s.v2('coin_status', { ticker: 'ETH' });
      assert.deepEqual(status.body.result.nft_indexer, { origin: new URL(indexer.url).origin, gateway_proxy: false });
      assert.doesNotMatch(JSON.stringify(status.body), /devnet-secret|moralis/);
    } finally {
      await s.stop();
    }
  });

  test('get_balances false: no balances, the NFTs all the same (as the reference); without nft_req nfts_infos is {} and no indexer is named', async () => {
    const s = await startStack({ devnet });
    try {
      const withNfts = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { get_balances: false, nft_req: nftReq(indexer.url) }));
      assert.equal(withNfts.status, 200, JSON.stringify(withNfts.body));
      assert.equal(withNfts.body.result.eth_addresses_infos[TEST_ADDRESS].balances, undefined);
      assert.deepEqual(withNfts.body.result.nfts_infos, expected);
      await s.legacy('disable_coin', { coin: 'ETH' });
      const without = await requestsDuring(indexer, () => s.v2('enable_eth_with_tokens', enableEthParams(s, [])));
      assert.deepEqual(without.value.body.result.nfts_infos, {});
      assert.deepEqual(without.paths, []);
      assert.equal((await s.v2('coin_status', { ticker: 'ETH' })).body.result.nft_indexer, undefined);
    } finally {
      await s.stop();
    }
  });

  test('task::enable_eth: the NFTs in the Ok details, recorded in the events, and the same status after a restart (replayed from the log)', async () => {
    const dbdir = await mkdtemp(join(tmpdir(), 'nft-task-'));
    const first = await startStack({ devnet, dbdir });
    let okStatus: unknown;
    let id: number;
    try {
      id = await startTask(first, enableEthParams(first, [], { nft_req: nftReq(indexer.url) }));
      const { result } = await untilFinished(first, id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.deepEqual(result.details.nfts_infos, expected);
      okStatus = result;
      const recorded: unknown[] = [];
      for await (const e of first.service.log.read()) {
        if (e.type === 'CoinActivated') recorded.push(e.data.nfts?.length);
        if (e.type === 'TaskSucceeded' && 'activation' in e.data) recorded.push(e.data.activation.nfts?.length);
      }
      assert.deepEqual(recorded, [7, 7]);
    } finally {
      await first.stop();
    }
    const second = await startStack({ devnet, dbdir });
    try {
      const replayed = await taskStatus(second, id, false);
      assert.deepEqual(replayed.body.result, okStatus);
      const log = await readFile(join(dbdir, 'events.log'), 'utf8');
      assert.doesNotMatch(log, /devnet-secret|\/moralis/, 'the event log never holds the indexer URL');
    } finally {
      await second.stop();
    }
  });

  test('an indexer that fails: Transport naming its origin only, nothing registered, the URL in no answer, event or log line', async () => {
    const failing = await startNftIndexer({ evm: devnet });
    const s = await startStack({ devnet });
    try {
      const origin = new URL(failing.url).origin;
      const cases: [NftIndexerMode, string][] = [
        [NftIndexerMode.Error, 'HTTP 500 Internal Server Error'],
        [NftIndexerMode.Garbage, 'malformed answer on page 1: the answer is not JSON'],
        [NftIndexerMode.BadTokenId, 'malformed answer on page 1: result[0].token_id is not a decimal integer string (got 1)'],
        [NftIndexerMode.EndlessCursor, 'it has more than 100 pages'],
      ];
      const { text } = await stderrDuring(async () => {
        for (const [mode, reason] of cases) {
          failing.answer(mode);
          const sentence = `Failed to get the NFT list from the NFT indexer ${origin}: ${reason}`;
          const params = enableEthParams(s, [], { nft_req: nftReq(failing.url) });
          const { status, body } = await s.v2('enable_eth_with_tokens', params);
          assert.equal(status, 502, JSON.stringify(body));
          assert.deepEqual([body.error_type, body.error_data], ['Transport', sentence], mode);
          assert.doesNotMatch(JSON.stringify(body), /devnet-secret|moralis/);
          assert.deepEqual(await enabledTickers(s), [], `${mode}: nothing half-registered`);
          const { result } = await untilFinished(s, await startTask(s, params));
          assert.deepEqual([result.status, result.details.error_type, result.details.error_data], ['Error', 'Transport', sentence], mode);
          assert.deepEqual(await enabledTickers(s), []);
        }
        await failing.stop();
        const down = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nft_req: nftReq(failing.url) }));
        assert.equal(down.body.error_type, 'Transport');
        assert.match(down.body.error, new RegExp(`^Failed to get the NFT list from the NFT indexer ${origin}: connection failed \\(ECONNREFUSED\\)$`));
      });
      assert.doesNotMatch(text, /devnet-secret|\/moralis/);
      const log = await readFile(join(s.dir, 'db', 'events.log'), 'utf8');
      assert.match(log, /ActivationFailed/);
      assert.doesNotMatch(log, /devnet-secret|\/moralis/);
      // The coin was held by nothing: the same request with a working indexer activates it.
      const ok = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nft_req: nftReq(indexer.url) }));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
    } finally {
      await s.stop();
      await failing.stop();
    }
  });

  test('refused before any network call: HD mode, a hardware key, a platform with no NFT chain, a URL that is not http(s)', async () => {
    const OTHER = { coin: 'DEVETH', decimals: 18, derivation_path: "m/44'/60'", protocol: { type: 'ETH', protocol_data: { chain_id: DEVNET_CHAIN_ID } } };
    const iguana = await startStack({ devnet, extraCoins: [OTHER] });
    const hd = await startStack({ devnet, config: { enable_hd: true, passphrase: 'legal winner thank year wave sausage worth useful legal winner thank yellow' } });
    const before = indexer.requests().length;
    try {
      const hdAnswer = await hd.v2('enable_eth_with_tokens', enableEthParams(hd, [], { nft_req: nftReq(indexer.url) }));
      assert.equal(hdAnswer.status, 500, JSON.stringify(hdAnswer.body)); // the type's status, as the reference's
      assert.equal(hdAnswer.body.error_type, 'UnexpectedDerivationMethod');
      assert.equal(
        hdAnswer.body.error,
        'params.nft_req: NFTs are listed for a single-address (Iguana) key only, not in HD mode or with a hardware key; leave nft_req out',
      );
      const hdTask = await untilFinished(hd, await startTask(hd, enableEthParams(hd, [], { nft_req: nftReq(indexer.url) })));
      assert.equal(hdTask.result.details.error_type, 'UnexpectedDerivationMethod');
      const hardware = await untilFinished(iguana, await startTask(iguana, enableEthParams(iguana, [], { priv_key_policy: 'Hardware', nft_req: nftReq(indexer.url) })));
      assert.equal(hardware.result.details.error_type, 'UnexpectedDerivationMethod', JSON.stringify(hardware.result));
      const other = await iguana.v2('enable_eth_with_tokens', enableEthParams(iguana, [], { ticker: 'DEVETH', nft_req: nftReq(indexer.url) }));
      assert.deepEqual([other.status, other.body.error_type, other.body.error], [
        400,
        'InvalidRequest',
        'params.nft_req: DEVETH has no NFT chain; NFTs are listed for the platforms AVAX, BNB, ETH, FTM, MATIC only, so leave nft_req out',
      ]);
      const ws = await iguana.v2('enable_eth_with_tokens', enableEthParams(iguana, [], { nft_req: nftReq('ws://127.0.0.1:1/api?key=SECRET') }));
      assert.deepEqual([ws.body.error_type, ws.body.error], ['InvalidRequest', 'params.nft_req.info.url ws://127.0.0.1:1: expected an http:// or https:// URL']);
      assert.deepEqual(await enabledTickers(iguana), []);
      assert.deepEqual(await enabledTickers(hd), []);
      assert.equal(indexer.requests().length, before, 'the indexer was never asked');
    } finally {
      await iguana.stop();
      await hd.stop();
    }
  });

  test('gateway_proxy: every page request signed by the node identity and accepted by a verifying indexer; unsigned ones refused', async () => {
    const guarded = await startNftIndexer({ evm: devnet, requireSignature: true });
    const s = await startStack({ devnet, config: { passphrase: BOB_SEED } });
    try {
      const first = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nft_req: nftReq(guarded.url, true) }));
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual(guarded.signatures(), { refused: [], signers: [BOB_PEER_ID] });
      assert.deepEqual(first.body.result.nfts_infos, {}, 'bob\'s wallet holds no NFT yet');
      const bob = Object.keys(first.body.result.eth_addresses_infos)[0]!;
      await nfts.mint721(bob, 100n);
      await nfts.mint721(bob, 101n);
      await nfts.mint1155(bob, 102n, 3n);
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).status, 200);
      const signed = await requestsDuring(guarded, () => s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nft_req: nftReq(guarded.url, true) })));
      assert.equal(signed.value.status, 200, JSON.stringify(signed.value.body));
      assert.deepEqual(Object.keys(signed.value.body.result.nfts_infos).sort(), [
        `${nfts.erc1155.toLowerCase()},102`,
        `${nfts.erc721.toLowerCase()},100`,
        `${nfts.erc721.toLowerCase()},101`,
      ].sort());
      assert.deepEqual(signed.signed, [true, true], 'both pages signed');
      assert.deepEqual(guarded.signatures(), { refused: [], signers: [BOB_PEER_ID] });
      assert.deepEqual((await s.v2('coin_status', { ticker: 'ETH' })).body.result.nft_indexer, { origin: new URL(guarded.url).origin, gateway_proxy: true });
      await s.legacy('disable_coin', { coin: 'ETH' });
      const unsigned = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nft_req: nftReq(guarded.url) }));
      assert.deepEqual([unsigned.status, unsigned.body.error_type], [502, 'Transport']);
      assert.match(unsigned.body.error, /HTTP 401 Unauthorized$/);
      assert.deepEqual(guarded.signatures().refused, ['missing X-Auth-Payload']);
    } finally {
      await s.stop();
      await guarded.stop();
    }
  });
});
