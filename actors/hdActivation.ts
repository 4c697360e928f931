/**
 * HD activation of an account (EVM and TRON platforms with their tokens, UTXO coins): scan the account chain
 * (batched, see hdScan.ts), list its addresses with their balances, and enable the
 * `path_to_address` one. Families supply the chain read and how a key becomes an address.
 */
import type { CoinEntry } from '../spec/coins.ts';
import type { HdKeyProvider } from './ports/keyProvider.ts';
import type { PublicKey } from './ports/keyProvider.ts';
import type { ActivatedCoin, ActivationPlan, Balance, ChainFamilyId, HdActivation } from '../machines/activation.types.ts';
import { scanHdAccount, type AddressRead } from './hdScan.ts';
import type { PlannedToken } from './platformPlan.ts';
import { currentActivationProgress } from './ports/activationProgress.ts';

/** What a family gives the HD activation. */
export interface HdAccountDeps {
  readonly keys: HdKeyProvider;
  readonly family: ChainFamilyId;
  readonly entry: CoinEntry;
  readonly tokens: readonly PlannedToken[];
  readonly decimals: number;
  /** The address shown to users and the form the chain read takes (e.g. TRON base58 / EVM hex). */
  addressOf(publicKey: PublicKey): { readonly display: string; readonly owner: string };
  /** One round trip: the block, unknown token decimals and every owner's read. */
  read(owners: readonly string[]): Promise<{ currentBlock: number; decimals: number[]; addresses: AddressRead[] }>;
  /** The active coin's connection, reading for the enabled address from now on. */
  connectionFor(owner: string): unknown;
}

const spendable = (raw: bigint): Balance => ({ spendable: raw, unspendable: 0n });
/** The coin's own balance of a read (an account-model read has no unspendable part). */
const coinBalance = (read: AddressRead): Balance => ({ spendable: read.native, unspendable: read.unspendable ?? 0n });

/** Scans, then builds the activated coin: the enabled address's balances plus the account listing. */
export async function activateHdAccount(plan: ActivationPlan, hd: HdActivation, deps: HdAccountDeps): Promise<ActivatedCoin> {
  const path = (addressId: number) => ({ accountId: hd.accountId, chain: hd.chain, addressId });
  const derived = new Map<number, { publicKey: PublicKey; display: string; owner: string }>();
  const derive = async (index: number) => {
    let entry = derived.get(index);
    if (entry === undefined) {
      const publicKey = await deps.keys.publicKey(deps.entry, path(index));
      entry = { publicKey, ...deps.addressOf(publicKey) };
      derived.set(index, entry);
    }
    return entry;
  };
  const progress = currentActivationProgress();
  const scan = await scanHdAccount(
    hd,
    async (indices) => deps.read(await Promise.all(indices.map(async (i) => (await derive(i)).owner))),
    (window) => progress?.hdWindowScanned({ accountIndex: hd.accountId, chain: hd.chain, ...window }),
  );
  // Every read held every token (for each address checked): all of them are read.
  if (deps.tokens.length > 0) progress?.tokensRead(deps.tokens.length, deps.tokens.length);
  const decimals = deps.tokens.map((t, i) => scan.decimals[i] ?? t.decimals ?? 0);
  const listing = await Promise.all(
    scan.addresses.map(async (read, index) => {
      const { display } = await derive(index);
      const balances: Record<string, Balance> = { [plan.ticker]: coinBalance(read) };
      deps.tokens.forEach((t, i) => (balances[t.ticker] = spendable(read.tokens[i] ?? 0n)));
      return { address: display, derivationPath: deps.keys.addressPath(deps.entry, path(index)), chain: hd.chain, balances };
    }),
  );
  const enabled = await derive(hd.addressId);
  const enabledRead = scan.addresses[hd.addressId]!;
  return {
    ticker: plan.ticker,
    family: deps.family,
    address: enabled.display,
    pubkey: enabled.publicKey.uncompressedHex,
    derivationMethod: 'HDWallet',
    derivationPath: deps.keys.addressPath(deps.entry, path(hd.addressId)),
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
      addresses: listing,
    },
    connection: deps.connectionFor(enabled.owner),
  };
}
