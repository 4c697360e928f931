import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommandKind, type PlatformActivationCommand } from '../../actors/ports/chainFamily.ts';
import { ActivationVia, KeyPolicy } from '../../machines/activation.types.ts';
import { proxySigner } from '../gatewayProxy/proxySign.ts';
import { ed25519Identity } from '../keys/proxyIdentity.ts';
import { systemClock } from '../../kernel/clock.ts';
import { planNftIndexer } from './nftPlan.ts';

const signer = proxySigner(ed25519Identity(new Uint8Array(32).fill(1)), systemClock);
const command = (ticker: string, nft?: { url: string; gatewayProxy: boolean }): PlatformActivationCommand => ({
  kind: CommandKind.Platform,
  ticker,
  via: ActivationVia.EnableEthWithTokens,
  nodes: [],
  tokens: [],
  getBalances: true,
  keyPolicy: KeyPolicy.ContextPrivKey,
  ...(nft === undefined ? {} : { nft }),
});
const iguana: { singleAddress: boolean; signer: () => typeof signer | undefined } = { singleAddress: true, signer: () => signer };

describe('nft_req planning (the reference\'s order: URL, chain, single address; then the proxy identity)', () => {
  it('maps the reference\'s tickers to its chains, lowercase tickers too', () => {
    const chains = ['AVAX', 'BNB', 'ETH', 'FTM', 'MATIC', 'matic'].map((t) => planNftIndexer(command(t, { url: 'https://nft.example', gatewayProxy: false }), iguana)?.chain);
    assert.deepEqual(chains, ['AVALANCHE', 'BSC', 'ETH', 'FANTOM', 'POLYGON', 'POLYGON']);
    assert.equal(planNftIndexer(command('ETH'), iguana), undefined);
  });

  it('refuses, naming the field and the URL by origin only', () => {
    const refusal = (ticker: string, url: string, key = iguana) => {
      try {
        planNftIndexer(command(ticker, { url, gatewayProxy: true }), key);
        return undefined;
      } catch (error) {
        const e = error as { errorType: string; message: string };
        return [e.errorType, e.message];
      }
    };
    assert.deepEqual(refusal('ETH', 'ftp://nft.example/k?key=SECRET'), ['InvalidRequest', 'params.nft_req.info.url ftp://nft.example: expected an http:// or https:// URL']);
    assert.deepEqual(refusal('Eth', 'https://nft.example'), ['InvalidRequest', 'params.nft_req: Eth has no NFT chain; NFTs are listed for the platforms AVAX, BNB, ETH, FTM, MATIC only, so leave nft_req out']);
    assert.equal(refusal('ETH', 'https://nft.example', { singleAddress: false, signer: () => signer })?.[0], 'UnexpectedDerivationMethod');
    assert.deepEqual(refusal('ETH', 'https://nft.example', { singleAddress: true, signer: () => undefined }), [
      'PrivKeyNotAllowed',
      'params.nft_req.info.gateway_proxy: requests to a gateway proxy are signed with the node\'s identity key, which is derived from the passphrase in MM2.json, and none is configured',
    ]);
  });
});
