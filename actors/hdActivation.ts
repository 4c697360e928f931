/**
 * HD activation of an account (EVM and TRON platforms with their tokens, UTXO coins): scan the account chain
 * (batched, see hdScan.ts), list its addresses with their balances, and enable the
 * `path_to_address` one. Families supply the chain read and how a key becomes an address; the coin
 * keeps an {@link HdAddressSource} over them, so that more addresses are reached later
 * (`get_new_address`, `scan_for_new_addresses`: actors/hdAddresses.ts).
 */
import type { CoinEntry } from '../spec/coins.ts';
import type { HdKeyProvider } from './ports/keyProvider.ts';
import type { PublicKey } from './ports/keyProvider.ts';
import { ChainFamilyId, type ActivatedCoin, type ActivationPlan, type Balance, type HdActivation, type HdAddressRead, type HdAddressSource, type HdScanPlan } from '../machines/activation.types.ts';
import { scanHdAccount, type AddressRead } from './hdScan.ts';
import type { PlannedToken } from './platformPlan.ts';
import { currentActivationProgress } from './ports/activationProgress.ts';

type Chain = 'External' | 'Internal';

/** What a family gives the HD activation. */
export interface HdAccountDeps {
  readonly keys: HdKeyProvider;
  readonly family: ChainFamilyId;
  readonly entry: CoinEntry;
  readonly tokens: readonly PlannedToken[];
  readonly decimals: number;
  /** The address shown to users and the form the chain read takes (e.g. TRON base58 / EVM hex). */
  addressOf(publicKey: PublicKey): { readonly display: string; readonly owner: string };
  /** One round trip: the block, unknown decimals of `tokens` and every owner's read (tokens in order); stops when `signal` aborts. */
  read(owners: readonly string[], tokens: readonly PlannedToken[], signal: AbortSignal): Promise<{ currentBlock: number; decimals: number[]; addresses: AddressRead[] }>;
  /** The active coin's connection, reading for the enabled address from now on. */
  connectionFor(owner: string): unknown;
}

const spendable = (raw: bigint): Balance => ({ spendable: raw, unspendable: 0n });
/** The coin's own balance of a read (an account-model read has no unspendable part). */
const coinBalance = (read: AddressRead): Balance => ({ spendable: read.native, unspendable: read.unspendable ?? 0n });

/** Scans, then builds the activated coin: the enabled address's balances plus the account listing. */
export async function activateHdAccount(plan: ActivationPlan, hd: HdActivation, deps: HdAccountDeps, signal: AbortSignal): Promise<ActivatedCoin> {
  const path = (chain: Chain, addressId: number) => ({ accountId: hd.accountId, chain, addressId });
  const derived = new Map<string, { publicKey: PublicKey; display: string; owner: string }>();
  const derive = async (chain: Chain, index: number) => {
    let entry = derived.get(`${chain}/${index}`);
    if (entry === undefined) {
      const publicKey = await deps.keys.publicKey(deps.entry, path(chain, index));
      entry = { publicKey, ...deps.addressOf(publicKey) };
      derived.set(`${chain}/${index}`, entry);
    }
    return entry;
  };
  /** Addresses `indices` of `chain` read with `tokens`, balances keyed by ticker. */
  const source: HdAddressSource = {
    async read(chain, indices, tokens, readSignal) {
      const keys = await Promise.all(indices.map((i) => derive(chain, i)));
      const read = await deps.read(keys.map((k) => k.owner), tokens, readSignal);
      const addresses = read.addresses.map((r, k): HdAddressRead => {
        const balances: Record<string, Balance> = { [plan.ticker]: coinBalance(r) };
        tokens.forEach((t, i) => (balances[t.ticker] = spendable(r.tokens[i] ?? 0n)));
        const addressIndex = indices[k]!;
        return { address: keys[k]!.display, derivationPath: deps.keys.addressPath(deps.entry, path(chain, addressIndex)), chain, addressIndex, txCount: r.txCount, balances };
      });
      return { currentBlock: read.currentBlock, addresses };
    },
  };
  const progress = currentActivationProgress();
  const scanChain = (plan: HdScanPlan) =>
    scanHdAccount(
      plan,
      async (indices) => deps.read(await Promise.all(indices.map(async (i) => (await derive(plan.chain, i)).owner)), deps.tokens, signal),
      (window) => progress?.hdWindowScanned({ accountIndex: hd.accountId, chain: plan.chain, ...window }),
    );
  // The other chain: listed where the reference's `all_known_addresses_balances` lists it (both
  // chains of a UTXO coin, External only for account-model coins), and scanned with the path's
  // chain where the reference's `scan_for_new_addresses` scans it (a UTXO coin's two chains).
  const otherChain = hd.chain === 'External' ? 'Internal' : 'External';
  const listsOther = deps.family === ChainFamilyId.Utxo || otherChain === 'External';
  const otherPlan: HdScanPlan = {
    accountId: hd.accountId,
    chain: otherChain,
    addressId: 0,
    gapLimit: hd.gapLimit,
    scan: hd.scan && deps.family === ChainFamilyId.Utxo,
    minAddresses: 0,
    knownAddresses: listsOther ? (hd.otherChainAddresses ?? 0) : 0,
  };
  const [scan, otherScan] = await Promise.all([scanChain(hd), otherPlan.scan || otherPlan.knownAddresses > 0 ? scanChain(otherPlan) : undefined]);
  // Every read held every token (for each address checked): all of them are read.
  if (deps.tokens.length > 0) progress?.tokensRead(deps.tokens.length, deps.tokens.length);
  const decimals = deps.tokens.map((t, i) => scan.decimals[i] ?? t.decimals ?? 0);
  const listed = (chain: Chain, reads: readonly AddressRead[]) =>
    Promise.all(
      reads.map(async (read, index) => {
        const { display } = await derive(chain, index);
        const balances: Record<string, Balance> = { [plan.ticker]: coinBalance(read) };
        deps.tokens.forEach((t, i) => (balances[t.ticker] = spendable(read.tokens[i] ?? 0n)));
        return { address: display, derivationPath: deps.keys.addressPath(deps.entry, path(chain, index)), chain, balances };
      }),
    );
  const listing = await listed(hd.chain, scan.addresses);
  const otherListing = await listed(otherChain, otherScan?.addresses ?? []);
  const enabled = await derive(hd.chain, hd.addressId);
  const enabledRead = scan.addresses[hd.addressId]!;
  return {
    ticker: plan.ticker,
    family: deps.family,
    address: enabled.display,
    pubkey: enabled.publicKey.uncompressedHex,
    derivationMethod: 'HDWallet',
    derivationPath: deps.keys.addressPath(deps.entry, path(hd.chain, hd.addressId)),
    currentBlock: scan.currentBlock,
    decimals: deps.decimals,
    ...(plan.getBalances ? { balance: coinBalance(enabledRead) } : {}),
    tokens: deps.tokens.map((t, i) => ({
      ticker: t.ticker,
      contractAddress: t.contractAddress,
      decimals: decimals[i]!,
      ...(plan.getBalances ? { balance: spendable(enabledRead.tokens[i] ?? 0n) } : {}),
    })),
    hd: {
      walletId: hd.walletId,
      accountId: hd.accountId,
      accountPath: deps.keys.accountPath(deps.entry, hd.accountId),
      chain: hd.chain,
      knownAddresses: scan.knownAddresses,
      ...(otherScan !== undefined && otherScan.knownAddresses > 0 ? { otherChainKnown: otherScan.knownAddresses } : {}),
      // External first, each chain in address-id order (as `withHdAddresses` keeps it).
      addresses: hd.chain === 'External' ? [...listing, ...otherListing] : [...otherListing, ...listing],
      gapLimit: hd.gapLimit,
      source,
    },
    connection: deps.connectionFor(enabled.owner),
  };
}
