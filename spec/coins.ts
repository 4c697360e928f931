/**
 * The coins file (docs/compatibility.md §5): the schema of one entry and the pure parser of its `protocol`.
 * Entries are validated leniently (unknown keys pass, every real entry loads); the fields this
 * service reads are type-checked. Protocol parse failures are reported at activation time
 * (`CoinProtocolParseError` / `TokenProtocolParseError`), not at load time.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { compile } from './validate.ts';

const Int = (min: number, max: number) => Type.Integer({ minimum: min, maximum: max });
const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** `protocol` as written in the file: `{"type": ..., "protocol_data": ...}` (extra keys pass). */
export const CoinProtocolJsonSchema = Type.Object(
  {
    type: Type.String({ minLength: 1 }),
    protocol_data: Opt(Type.Unknown()),
  },
  { additionalProperties: true },
);
export type CoinProtocolJson = Static<typeof CoinProtocolJsonSchema>;

/** One entry of the coins file. Only `coin` is required; unknown keys are allowed. */
export const CoinEntrySchema = Type.Object(
  {
    coin: Type.String({ minLength: 1 }),
    protocol: Opt(CoinProtocolJsonSchema),
    name: Opt(Type.String()),
    fname: Opt(Type.String()),
    mm2: Opt(Type.Union([Type.Literal(0), Type.Literal(1)])),
    decimals: Opt(Int(0, 255)),
    chain_id: Opt(Int(0, Number.MAX_SAFE_INTEGER)),
    derivation_path: Opt(Type.String({ pattern: "^m(/[0-9]+'?)+$" })),
    required_confirmations: Opt(Int(0, 1_000_000)),
    requires_notarization: Opt(Type.Boolean()),
    mature_confirmations: Opt(Int(0, 1_000_000)),
    pubtype: Opt(Int(0, 255)),
    p2shtype: Opt(Int(0, 255)),
    wiftype: Opt(Int(0, 255)),
    taddr: Opt(Int(0, 255)),
    segwit: Opt(Type.Boolean()),
    bech32_hrp: Opt(Type.String({ minLength: 1 })),
    address_format: Opt(
      Type.Object({ format: Type.String(), network: Opt(Type.String()) }, { additionalProperties: true }),
    ),
    confpath: Opt(Type.String({ minLength: 1 })),
    rpcport: Opt(Int(1, 65535)),
    txversion: Opt(Type.Integer()),
    overwintered: Opt(Int(0, 1)),
    txfee: Opt(Int(0, Number.MAX_SAFE_INTEGER)),
    dust: Opt(Int(0, Number.MAX_SAFE_INTEGER)),
    avg_blocktime: Opt(Type.Number({ minimum: 0 })),
    wallet_only: Opt(Type.Boolean()),
    is_testnet: Opt(Type.Boolean()),
    trezor_coin: Opt(Type.String()),
    sign_message_prefix: Opt(Type.String()),
    /** Ours, on an EVM platform entry: its Multicall3 contract, when not at the canonical address (docs/configuration.md). */
    multicall_address: Opt(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' })),
    /**
     * Ours, on a platform entry (EVM, TRX, and an ERC20 enabled on its own): seconds between two polls
     * of a watched node's block number (issue 24; docs/configuration.md). @default 10
     */
    balance_poll_s: Opt(Type.Number({ minimum: 0.1, maximum: 3600 })),
  },
  { additionalProperties: true },
);
/** A validated coins-file entry. */
export type CoinEntry = Static<typeof CoinEntrySchema>;
/** Compiled validator of one entry. */
export const coinEntryValidator = compile(CoinEntrySchema);

/** The protocol names listed by `TokenProtocolParseError` (spec 7.1), in the spec's order. */
export const PROTOCOL_NAMES = [
  'UTXO', 'QTUM', 'QRC20', 'ETH', 'ERC20', 'TRX', 'TRC20',
  'TENDERMINT', 'TENDERMINTTOKEN', 'LIGHTNING', 'SOLANA', 'SPLTOKEN', 'ZHTLC',
] as const;

/**
 * Known protocols this service does not activate. `NFT` and `SIA` are not in the spec's list but
 * occur in the real coins file (and in the reference), so they parse as `Other` rather than fail.
 */
export const OTHER_PROTOCOL_NAMES = [
  'TENDERMINT', 'TENDERMINTTOKEN', 'LIGHTNING', 'SOLANA', 'SPLTOKEN', 'ZHTLC', 'NFT', 'SIA',
] as const;
export type OtherProtocolName = (typeof OTHER_PROTOCOL_NAMES)[number];

/** TRON networks accepted in `TRX` `protocol_data.network`. */
export const TRON_NETWORKS = ['Mainnet', 'Shasta', 'Nile'] as const;
export type TronNetwork = (typeof TRON_NETWORKS)[number];

/** A parsed protocol. `Other.name` is the file's `type` for protocols this service does not activate. */
export type CoinProtocol =
  | { readonly type: 'ETH'; readonly chainId?: number }
  | { readonly type: 'ERC20'; readonly platform: string; readonly contractAddress: string }
  | { readonly type: 'TRX'; readonly network: TronNetwork; readonly multicallAddress?: string }
  | { readonly type: 'TRC20'; readonly platform: string; readonly contractAddress: string }
  | { readonly type: 'UTXO' }
  | { readonly type: 'QTUM' }
  | { readonly type: 'QRC20'; readonly platform: string; readonly contractAddress: string }
  | { readonly type: 'Other'; readonly name: OtherProtocolName };

/** Result of {@link parseCoinProtocol}: the protocol, or one secret-free sentence saying what is wrong. */
export type CoinProtocolParse = { readonly ok: true; readonly protocol: CoinProtocol } | { readonly ok: false; readonly error: string };

/** The protocol name as written in the coins file (`"ETH"`, `"TENDERMINT"`, …), e.g. for `error_data`. */
export function protocolTypeName(protocol: CoinProtocol): string {
  return protocol.type === 'Other' ? protocol.name : protocol.type;
}

const EXPECTED = `expected one of ${PROTOCOL_NAMES.join(', ')}`;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (error: string): CoinProtocolParse => ({ ok: false, error });
const ok = (protocol: CoinProtocol): CoinProtocolParse => ({ ok: true, protocol });
const isChainId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** Parses `{platform, contract_address}` of a token protocol (no checksum checks: the families do that). */
function parseToken(type: 'ERC20' | 'TRC20' | 'QRC20', data: unknown): CoinProtocolParse {
  if (!isRecord(data)) return fail(`${type} protocol: protocol_data must be an object with platform and contract_address`);
  const { platform, contract_address: contractAddress } = data;
  if (typeof platform !== 'string' || platform === '') return fail(`${type} protocol: protocol_data.platform must be a non-empty string`);
  if (typeof contractAddress !== 'string' || contractAddress === '') {
    return fail(`${type} protocol: protocol_data.contract_address must be a non-empty string`);
  }
  return ok({ type, platform, contractAddress });
}

/** ETH: `chain_id` from `protocol_data`, else the entry's top-level `chain_id`; both present must agree. */
function parseEth(data: unknown, topLevel: unknown): CoinProtocolParse {
  if (data !== undefined && data !== null && !isRecord(data)) return fail('ETH protocol: protocol_data must be an object');
  const inner = isRecord(data) ? data['chain_id'] : undefined;
  if (inner !== undefined && !isChainId(inner)) return fail('ETH protocol: protocol_data.chain_id must be a non-negative integer');
  if (topLevel !== undefined && !isChainId(topLevel)) return fail('ETH protocol: chain_id must be a non-negative integer');
  if (inner !== undefined && topLevel !== undefined && inner !== topLevel) {
    return fail(`ETH protocol: protocol_data.chain_id (${inner}) differs from chain_id (${topLevel})`);
  }
  const chainId = inner ?? topLevel;
  return ok(chainId === undefined ? { type: 'ETH' } : { type: 'ETH', chainId });
}

function parseTrx(data: unknown): CoinProtocolParse {
  const network = isRecord(data) ? data['network'] : undefined;
  if (!TRON_NETWORKS.includes(network as TronNetwork)) {
    return fail(`TRX protocol: protocol_data.network must be one of ${TRON_NETWORKS.join(', ')}`);
  }
  const multicall = isRecord(data) ? data['multicall_address'] : undefined;
  if (multicall === undefined) return ok({ type: 'TRX', network: network as TronNetwork });
  // The checksum is the TRON family's to check; here only the shape of a base58 or hex TRON address.
  if (typeof multicall !== 'string' || !/^(?:T[1-9A-HJ-NP-Za-km-z]{33}|41[0-9a-fA-F]{40})$/.test(multicall)) {
    return fail('TRX protocol: protocol_data.multicall_address must be a TRON address (base58 T… or hex 41…)');
  }
  return ok({ type: 'TRX', network: network as TronNetwork, multicallAddress: multicall });
}

/**
 * Parses the `protocol` of a coins-file entry. Pure; accepts any object so it also guards entries
 * that did not come through {@link CoinEntrySchema}. Messages never echo values other than the
 * protocol `type` and chain ids.
 */
export function parseCoinProtocol(entry: { readonly protocol?: unknown; readonly chain_id?: unknown }): CoinProtocolParse {
  const raw = entry.protocol;
  if (raw === undefined || raw === null) return fail(`protocol is missing; ${EXPECTED}`);
  if (!isRecord(raw)) return fail(`protocol must be an object {"type", "protocol_data"}; ${EXPECTED}`);
  const type = raw['type'];
  if (typeof type !== 'string') return fail(`protocol.type must be a string; ${EXPECTED}`);
  const data = raw['protocol_data'];
  switch (type) {
    case 'ETH':
      return parseEth(data, entry.chain_id);
    case 'ERC20':
    case 'TRC20':
    case 'QRC20':
      return parseToken(type, data);
    case 'TRX':
      return parseTrx(data);
    case 'UTXO':
    case 'QTUM':
      return ok({ type });
    default:
      if ((OTHER_PROTOCOL_NAMES as readonly string[]).includes(type)) return ok({ type: 'Other', name: type as OtherProtocolName });
      return fail(`unknown protocol type ${JSON.stringify(type.slice(0, 40))}; ${EXPECTED}`);
  }
}
