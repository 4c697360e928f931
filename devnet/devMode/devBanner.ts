/** The dev-mode banner: where everything runs and curl commands to paste (tested by pasting them). */
import { formatAmount } from '../../spec/amount.ts';
import { evmToTronBase58 } from '../../infra/keys/index.ts';
import { DEV_LTC_COIN, DEV_LTC_LITOSHIS, type DevUtxo } from './devUtxo.ts';
import type { EvmDevnet } from '../evm/evmDevnet.ts';
import type { TronNode } from '../tron/tronNode.ts';
import type { NftIndexer } from '../nftIndexer/nftIndexer.ts';

/** Placeholder swap contract for the printed requests (activation does not call it). */
const DEV_SWAP_CONTRACT = '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80';

export interface BannerFacts {
  readonly url: string;
  readonly devnet: EvmDevnet;
  readonly tron: TronNode;
  readonly utxo: DevUtxo;
  readonly nftIndexer: NftIndexer;
  readonly password: string;
  /** The wallet's EVM address. */
  readonly address: string;
  readonly confPath: string;
}

/** Human-readable lines: endpoints, the wallet, and one pasteable command per activation method. */
export function banner({ url, devnet, tron, utxo, nftIndexer, password, address, confPath }: BannerFacts): string {
  const v2 = (method: string, params: unknown) => ({ userpass: password, mmrpc: '2.0', method, params });
  const activateEth = v2('enable_eth_with_tokens', {
    ticker: 'ETH',
    nodes: [{ url: devnet.url }],
    swap_contract_address: DEV_SWAP_CONTRACT,
    fallback_swap_contract: DEV_SWAP_CONTRACT,
    erc20_tokens_requests: devnet.tokens.map((t) => ({ ticker: `${t.symbol}-ERC20` })),
    nft_req: { type: 'NftIndexer', info: { url: nftIndexer.url } },
  });
  const activateTrx = v2('enable_eth_with_tokens', { ticker: 'TRX', nodes: [{ url: tron.url }], erc20_tokens_requests: [{ ticker: 'USDT-TRC20' }] });
  const q = (body: unknown) => `curl -s ${url} -d '${JSON.stringify(body)}'`;
  const ltc = DEV_LTC_COIN.coin;
  const utxoLines = utxo.running
    ? [
        `  UTXO           litecoind regtest (RPC ${utxo.node.rpcUrl}) behind an Electrum server at ${utxo.electrum.tcp} (TCP)`,
        `                 ${utxo.address} on ${ltc} (${formatAmount(DEV_LTC_LITOSHIS, 8)} ${ltc})`,
      ]
    : [`  UTXO           not started: ${utxo.reason}`];
  const utxoCommands = utxo.running
    ? [`Activate ${ltc} through electrum (legacy):`, `  ${q({ userpass: password, method: 'electrum', coin: ltc, servers: [{ url: utxo.electrum.tcp, protocol: 'TCP' }] })}`]
    : [];
  return [
    'coin-activation: dev mode (no MM2.json found)',
    `  RPC            ${url}`,
    `  rpc_password   ${password}`,
    `  EVM devnet     ${devnet.url} (chain id ${devnet.chainId}, in-process, 127.0.0.1 only)`,
    `  TRON node      ${tron.url} (HTTP API over the same chain: 1 SUN = 1 wei, the ERC20s are also TRC20s)`,
    ...utxoLines,
    `  NFT indexer    ${nftIndexer.url} (over the same chain's transfer logs)`,
    `  wallet         ${address} (10 ETH, 25000 USDT-ERC20, 1500.5 DAI-ERC20, an ERC721 NFT and 5 of an ERC1155 one)`,
    `                 ${evmToTronBase58(address)} on TRON (the same account: 10000000000000 TRX, 25000 USDT-TRC20)`,
    `  config         ${confPath} (delete its folder to reset)`,
    '',
    'Activate ETH with its tokens and list its NFTs:',
    `  ${q(activateEth)}`,
    'Activate TRX with a TRC20 (wallet-only: no swap contracts):',
    `  ${q(activateTrx)}`,
    ...utxoCommands,
    'List enabled coins:',
    `  ${q({ userpass: password, method: 'get_enabled_coins' })}`,
    'Balance of a token:',
    `  ${q({ userpass: password, method: 'my_balance', coin: 'USDT-ERC20' })}`,
    '',
  ].join('\n');
}
