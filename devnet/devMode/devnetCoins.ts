import { evmToTronBase58 } from '../../infra/keys/tronAddress.ts';
import type { EvmDevnet } from '../evm/evmDevnet.ts';

/**
 * Coins-file entries for a devnet: `ETH` on its chain id and `<SYMBOL>-ERC20` per deployed token;
 * `TRX` and `<SYMBOL>-TRC20` for the devnet TRON node, whose TRC20s are the same contracts, and
 * whose multicall is the chain's (`protocol_data.multicall_address`).
 */
export function devnetCoins(devnet: Pick<EvmDevnet, 'chainId' | 'tokens'> & { readonly multicall?: string | undefined }): unknown[] {
  // The TRON devnet runs over this chain: its multicall (if any) is the TRX network's, in TRON form.
  const tronData = { network: 'Nile', ...(devnet.multicall === undefined ? {} : { multicall_address: evmToTronBase58(devnet.multicall) }) };
  const token = (suffix: string, platform: string, address: string, derivationPath: string, decimals: number) => ({
    coin: `${suffix}`,
    decimals,
    mm2: 1,
    derivation_path: derivationPath,
    protocol: { type: platform === 'ETH' ? 'ERC20' : 'TRC20', protocol_data: { platform, contract_address: address } },
  });
  return [
    { coin: 'ETH', name: 'ethereum', decimals: 18, mm2: 1, derivation_path: "m/44'/60'", protocol: { type: 'ETH', protocol_data: { chain_id: devnet.chainId } } },
    ...devnet.tokens.map((t) => token(`${t.symbol}-ERC20`, 'ETH', t.address, "m/44'/60'", t.decimals)),
    { coin: 'TRX', name: 'tron', decimals: 6, wallet_only: true, derivation_path: "m/44'/195'", protocol: { type: 'TRX', protocol_data: tronData } },
    ...devnet.tokens.map((t) => token(`${t.symbol}-TRC20`, 'TRX', evmToTronBase58(t.address), "m/44'/195'", t.decimals)),
  ];
}
