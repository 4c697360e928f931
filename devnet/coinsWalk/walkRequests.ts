/**
 * Which activation methods the coins walk tries for an entry, and the request it sends for each:
 * the request a client would send for that coin to the walk's peers.
 */
import { SWAP_CONTRACT } from '../testing/stack.ts';
import type { CoinEntry } from '../../spec/coins.ts';
import { ActivationVia } from '../../machines/activation.types.ts';

/**
 * The activation methods walked, by the service's own names (`task::enable_eth` is `init` then
 * `status`): those that activate a coin from its entry alone (`enable_erc20` needs its platform first).
 */
export const WalkMethod = {
  Electrum: ActivationVia.Electrum,
  Enable: ActivationVia.Enable,
  EnableEthWithTokens: ActivationVia.EnableEthWithTokens,
  EnableEthTask: ActivationVia.EnableEthTask,
} as const;
export type WalkMethod = (typeof WalkMethod)[keyof typeof WalkMethod];

const ALL_METHODS: readonly WalkMethod[] = [WalkMethod.Electrum, WalkMethod.Enable, WalkMethod.EnableEthWithTokens, WalkMethod.EnableEthTask];
const LEGACY_UTXO = [WalkMethod.Electrum, WalkMethod.Enable] as const;
const EVM = [WalkMethod.Enable, WalkMethod.EnableEthWithTokens, WalkMethod.EnableEthTask] as const;

/**
 * The methods that fit each protocol (spec 4.1–4.7). TRON entries are also sent to legacy `enable`,
 * which refuses them by design; a protocol no method fits is sent to every method, so the table
 * shows how each one refuses it.
 */
const METHODS_BY_PROTOCOL: Readonly<Record<string, readonly WalkMethod[]>> = {
  UTXO: LEGACY_UTXO,
  QTUM: LEGACY_UTXO,
  QRC20: LEGACY_UTXO,
  ETH: EVM,
  ERC20: EVM,
  TRX: EVM,
  TRC20: EVM,
};

/** The methods walked for `entry`, in table order. */
export function walkMethods(entry: CoinEntry): readonly WalkMethod[] {
  return METHODS_BY_PROTOCOL[entry.protocol?.type ?? ''] ?? ALL_METHODS;
}

/** A Qtum swap contract as the reference's users send it for QRC20 (40 hex digits). */
export const QRC20_SWAP_CONTRACT = '0x2f754733acd6d753731c00fee32cb484551cc15d';

/** Where the walk's peers listen. */
export interface WalkEndpoints {
  readonly evmUrl: string;
  readonly tronUrl: string;
  /** `host:port` of the Electrum server's TCP transport. */
  readonly electrumTcp: string;
}

const isTron = (entry: CoinEntry | undefined) => entry?.protocol?.type === 'TRX';
const platformOf = (entry: CoinEntry): string | undefined => {
  const type = entry.protocol?.type;
  if (type !== 'ERC20' && type !== 'TRC20') return undefined;
  const platform = (entry.protocol?.protocol_data as { platform?: unknown } | undefined)?.platform;
  return typeof platform === 'string' ? platform : undefined;
};

/**
 * The v2 platform request for `entry`: the entry itself as the platform, or, for an ERC20/TRC20
 * token, its platform with the token (`tokens` overrides the token list). Swap contracts go to EVM
 * platforms only (TRON takes none, spec 4.5).
 */
export function platformRequest(entry: CoinEntry, find: (ticker: string) => CoinEntry | undefined, endpoints: WalkEndpoints, tokens?: readonly string[]): Record<string, unknown> {
  const platformTicker = platformOf(entry) ?? entry.coin;
  const tron = isTron(find(platformTicker));
  return {
    ticker: platformTicker,
    nodes: [{ url: tron ? endpoints.tronUrl : endpoints.evmUrl }],
    ...(tron ? {} : { swap_contract_address: SWAP_CONTRACT, fallback_swap_contract: SWAP_CONTRACT }),
    erc20_tokens_requests: (tokens ?? (platformTicker === entry.coin ? [] : [entry.coin])).map((ticker) => ({ ticker })),
  };
}

/** The legacy request body (without `userpass`/`method`) of `method` for `entry`. */
export function legacyRequest(method: typeof WalkMethod.Electrum | typeof WalkMethod.Enable, entry: CoinEntry, endpoints: WalkEndpoints): Record<string, unknown> {
  const type = entry.protocol?.type;
  const qrc20 = type === 'QRC20' ? { swap_contract_address: QRC20_SWAP_CONTRACT, fallback_swap_contract: QRC20_SWAP_CONTRACT } : {};
  if (method === WalkMethod.Electrum) return { coin: entry.coin, servers: [{ url: endpoints.electrumTcp, protocol: 'TCP' }], ...qrc20 };
  if (type === 'ETH' || type === 'ERC20') {
    return { coin: entry.coin, urls: [endpoints.evmUrl], swap_contract_address: SWAP_CONTRACT, fallback_swap_contract: SWAP_CONTRACT };
  }
  if (type === 'TRX' || type === 'TRC20') return { coin: entry.coin, urls: [endpoints.tronUrl] };
  return { coin: entry.coin, ...qrc20 };
}
