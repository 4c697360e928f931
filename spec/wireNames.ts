/**
 * The reference implementation's names for the spec's neutral ones (docs/compatibility.md §17).
 * One table, read both ways: on input either name is accepted and read as the neutral one; on
 * output the neutral name is written unless MM2.json `wire_names` is `reference`. Domain code,
 * events and the log only ever see the neutral names.
 */

/** Which names the service writes on output (MM2.json `wire_names`). */
export const WireNames = {
  /** The spec's names (`WaitingForHardwareToConnect`, `EnterHardwarePin`, …). @default */
  Neutral: 'neutral',
  /** The reference's names (`WaitingForTrezorToConnect`, `EnterTrezorPin`, …). */
  Reference: 'reference',
} as const;
export type WireNames = (typeof WireNames)[keyof typeof WireNames];

/**
 * Where a name appears on the wire:
 * - `privKeyPolicy`: `priv_key_policy` (`{"type": …}` or a bare string);
 * - `rpcMode`: `rpc_mode`;
 * - `userAction`: `user_action.action_type` of `task::*::user_action`;
 * - `taskDetails`: the `details` string of an in-progress or user-action task status;
 * - `nftProvider`: `nft_req.type`;
 * - `proxyFlag`: the boolean of a node (and of `nft_req.info`) asking for signed proxy requests.
 */
export type WireNameKind = 'privKeyPolicy' | 'rpcMode' | 'userAction' | 'taskDetails' | 'nftProvider' | 'proxyFlag';

interface WireNameRow {
  readonly kind: WireNameKind;
  readonly neutral: string;
  readonly reference: string;
  /** An older reference name, read on input only (the current one is written on output). */
  readonly inputOnly?: true;
}

/** The table (sources in the reference: docs/compatibility.md §17). */
export const WIRE_NAME_TABLE = [
  { kind: 'privKeyPolicy', neutral: 'Hardware', reference: 'Trezor' },
  { kind: 'privKeyPolicy', neutral: 'RemoteWallet', reference: 'WalletConnect' },
  { kind: 'privKeyPolicy', neutral: 'BrowserWallet', reference: 'Metamask' },
  { kind: 'rpcMode', neutral: 'BrowserWallet', reference: 'Metamask' },
  { kind: 'userAction', neutral: 'HardwarePin', reference: 'TrezorPin' },
  { kind: 'taskDetails', neutral: 'WaitingForHardwareToConnect', reference: 'WaitingForTrezorToConnect' },
  { kind: 'taskDetails', neutral: 'EnterHardwarePin', reference: 'EnterTrezorPin' },
  { kind: 'nftProvider', neutral: 'NftIndexer', reference: 'Moralis' },
  { kind: 'proxyFlag', neutral: 'gateway_proxy', reference: 'komodo_proxy' },
  // The same flag before the reference renamed it (its PR #2173); the reference's SDK still sends it.
  { kind: 'proxyFlag', neutral: 'gateway_proxy', reference: 'gui_auth', inputOnly: true },
] as const satisfies readonly WireNameRow[];

const rows: readonly WireNameRow[] = WIRE_NAME_TABLE;

/** The neutral name of `name` (a neutral or a reference name of `kind`); other names are returned unchanged. */
export function neutralName(kind: WireNameKind, name: string): string {
  return rows.find((row) => row.kind === kind && row.reference === name)?.neutral ?? name;
}

/** The name to write for the neutral `name` under `style`. */
export function wireName(kind: WireNameKind, name: string, style: WireNames): string {
  if (style === WireNames.Neutral) return name;
  return rows.find((row) => row.kind === kind && row.neutral === name && row.inputOnly !== true)?.reference ?? name;
}

/**
 * Every name accepted on input for the neutral `names` of `kind`: each neutral name followed by its
 * reference names (for schemas).
 */
export function acceptedNames(kind: WireNameKind, names: readonly string[]): string[] {
  return names.flatMap((name) => [name, ...rows.filter((row) => row.kind === kind && row.neutral === name).map((row) => row.reference)]);
}

/** `name` as a message shows it: a reference name with its neutral one, `Metamask (BrowserWallet)`. */
export function describeName(kind: WireNameKind, name: string): string {
  const neutral = neutralName(kind, name);
  return neutral === name ? name : `${name} (${neutral})`;
}
