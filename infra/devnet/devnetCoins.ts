import type { EvmDevnet } from './evmDevnet.ts';

/** Coins-file entries for a devnet: `ETH` on its chain id and `<SYMBOL>-ERC20` per deployed token. */
export function devnetCoins(devnet: Pick<EvmDevnet, 'chainId' | 'tokens'>): unknown[] {
  return [
    { coin: 'ETH', name: 'ethereum', decimals: 18, mm2: 1, derivation_path: "m/44'/60'", protocol: { type: 'ETH', protocol_data: { chain_id: devnet.chainId } } },
    ...devnet.tokens.map((t) => ({
      coin: `${t.symbol}-ERC20`,
      decimals: t.decimals,
      mm2: 1,
      derivation_path: "m/44'/60'",
      protocol: { type: 'ERC20', protocol_data: { platform: 'ETH', contract_address: t.address } },
    })),
  ];
}
