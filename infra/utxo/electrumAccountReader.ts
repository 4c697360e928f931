/**
 * A UTXO wallet's balance over Electrum (docs/compatibility.md §9): the tip, `get_balance` and
 * `listunspent` (and for an HD scan `get_history`) of every script that pays the wallet in one batch; then, only if some unspent
 * output is younger than `mature_confirmations` and of a transaction not known yet ({@link CoinbaseMemo}),
 * one more batch of `transaction.get` to tell immature coinbase outputs (unspendable) from ordinary ones.
 */
import type { ElectrumCall } from '../electrum/electrumConnection.ts';
import { electrumScripthash, type UtxoWallet } from './utxoAddress.ts';

export interface UtxoBalanceRead {
  readonly currentBlock: number;
  /** Confirmed + unconfirmed, less immature coinbase outputs (smallest unit). */
  readonly spendable: bigint;
  /** Immature coinbase outputs. */
  readonly unspendable: bigint;
}

interface Unspent {
  readonly tx_hash: string;
  readonly height: number;
  readonly value: bigint;
}

/**
 * What reads of one wallet learnt of its transactions' kinds: whether each txid is a coinbase (a
 * fact that never changes), and the coinbase txid of recent blocks. An output first seen in the
 * mempool is not one (a coinbase never enters a mempool); an output at a height whose coinbase is
 * known is one only if it is that transaction. With it, a watcher's read asks `transaction.get`
 * only for a young output it cannot place, so a block that pays the wallet costs one round trip,
 * not two. Bounded: the oldest entries go first.
 */
export class CoinbaseMemo {
  readonly #kinds = new Map<string, boolean>();
  readonly #coinbaseAt = new Map<number, string>();
  /** @default 4096 entries of each kind */
  constructor(readonly limit = 4096) {}

  /** Whether `txid` (an output at `height`) is a coinbase, when known. */
  get(txid: string, height?: number): boolean | undefined {
    const known = this.#kinds.get(txid);
    if (known !== undefined || height === undefined) return known;
    const coinbase = this.#coinbaseAt.get(height);
    return coinbase === undefined ? undefined : coinbase === txid;
  }

  set(txid: string, coinbase: boolean): void {
    remember(this.#kinds, txid, coinbase, this.limit);
  }

  /** The coinbase of the block at `height` (`blockchain.transaction.id_from_pos(height, 0)`). */
  setBlockCoinbase(height: number, txid: string): void {
    remember(this.#coinbaseAt, height, txid, this.limit);
  }
}

function remember<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= limit) break;
    map.delete(oldest);
  }
}

/** Sends calls as one batch to one server (e.g. `ElectrumConnection.batch`). */
export type ElectrumBatch = (calls: readonly ElectrumCall[]) => Promise<unknown[]>;

/**
 * Reads the wallet's balance (at most two round trips). A malformed answer throws a plain `Error`,
 * which the pool treats as that server's failure.
 */
export async function readElectrumBalance(batch: ElectrumBatch, wallet: UtxoWallet, matureConfirmations: number, memo?: CoinbaseMemo): Promise<UtxoBalanceRead> {
  const { currentBlock, wallets } = await readWallets(batch, [wallet], matureConfirmations, false, memo);
  return { currentBlock, ...wallets[0]! };
}

/** One wallet of {@link readElectrumWallets}: its balance and how many transactions touched it. */
export interface UtxoWalletRead {
  readonly spendable: bigint;
  readonly unspendable: bigint;
  readonly txCount: number;
}

/**
 * Reads several wallets (an HD scan window) in the same two round trips as one: each wallet's
 * history (so a wallet that received and spent everything counts as used), balance and unspent
 * outputs, then the coinbase check of the young outputs of all of them.
 */
export async function readElectrumWallets(
  batch: ElectrumBatch,
  wallets: readonly UtxoWallet[],
  matureConfirmations: number,
): Promise<{ currentBlock: number; wallets: UtxoWalletRead[] }> {
  return readWallets(batch, wallets, matureConfirmations, true);
}

/**
 * The balances of several wallets (the watcher's read of an HD account's changed addresses) in
 * the round trips of one, without their history; `memo` as {@link readElectrumBalance}'s.
 */
export async function readElectrumBalances(
  batch: ElectrumBatch,
  wallets: readonly UtxoWallet[],
  matureConfirmations: number,
  memo?: CoinbaseMemo,
): Promise<{ currentBlock: number; wallets: UtxoWalletRead[] }> {
  return readWallets(batch, wallets, matureConfirmations, false, memo);
}

async function readWallets(
  batch: ElectrumBatch,
  wallets: readonly UtxoWallet[],
  matureConfirmations: number,
  withHistory: boolean,
  memo?: CoinbaseMemo,
): Promise<{ currentBlock: number; wallets: UtxoWalletRead[] }> {
  const hashes = wallets.map((w) => w.scripts.map(electrumScripthash));
  const all = hashes.flat();
  const perScript = ['blockchain.scripthash.get_balance', 'blockchain.scripthash.listunspent', ...(withHistory ? ['blockchain.scripthash.get_history'] : [])];
  const answers = await batch([
    { method: 'blockchain.headers.subscribe', params: [] },
    ...perScript.flatMap((method) => all.map((h) => ({ method, params: [h] }))),
  ]);
  const tip = integer((answers[0] as { height?: unknown } | null)?.height, 'headers.subscribe height');
  const answersOf = (i: number) => answers.slice(1 + i * all.length, 1 + (i + 1) * all.length);
  const [balances, unspents, histories] = [answersOf(0), answersOf(1), withHistory ? answersOf(2) : []];
  // The scripts of wallet w are `all[first[w] .. first[w] + hashes[w].length)`.
  const first = hashes.map((_, w) => hashes.slice(0, w).reduce((n, h) => n + h.length, 0));
  const scriptsOf = <T>(list: readonly T[], w: number): T[] => list.slice(first[w], first[w]! + hashes[w]!.length);
  const unspent = wallets.map((_, w) => scriptsOf(unspents, w).flatMap((list) => (Array.isArray(list) ? list.map(toUnspent) : [])));
  const { coinbase } = await immatureCoinbase(batch, unspent.flat().map((u) => ({ txid: u.tx_hash, height: u.height })), tip, matureConfirmations, memo);
  const isYoung = (u: Unspent) => u.height > 0 && tip - u.height + 1 < matureConfirmations;
  return {
    currentBlock: tip,
    wallets: wallets.map((_, w) => {
      let total = 0n;
      for (const balance of scriptsOf(balances, w)) {
        const { confirmed, unconfirmed } = (balance ?? {}) as { confirmed?: unknown; unconfirmed?: unknown };
        total += bigInteger(confirmed, 'get_balance confirmed') + bigInteger(unconfirmed, 'get_balance unconfirmed');
      }
      const immature = unspent[w]!.filter((u) => isYoung(u) && coinbase.has(u.tx_hash)).reduce((sum, u) => sum + u.value, 0n);
      const txCount = new Set(scriptsOf(histories, w).flatMap((list) => (Array.isArray(list) ? list.map((h) => (h as { tx_hash?: unknown }).tx_hash) : []))).size;
      return { spendable: total - immature, unspendable: immature, txCount };
    }),
  };
}

/**
 * Which of `outputs`' transactions are coinbase outputs still young at `tip` (younger than
 * `matureConfirmations`): only those can be immature, anything deeper is spendable anyway. Asks
 * `blockchain.transaction.get` in one batch for the young ones `memo` cannot place, and teaches the
 * memo what it learns (an output at height 0 is in the mempool, so not a coinbase). `fetched`:
 * whether that batch went out.
 */
export async function immatureCoinbase(
  batch: ElectrumBatch,
  outputs: readonly { readonly txid: string; readonly height: number }[],
  tip: number,
  matureConfirmations: number,
  memo?: CoinbaseMemo,
): Promise<{ coinbase: Set<string>; fetched: boolean }> {
  for (const o of outputs) if (o.height <= 0) memo?.set(o.txid, false);
  const heightOf = new Map(outputs.map((o) => [o.txid, o.height]));
  const young = [...new Set(outputs.filter((o) => o.height > 0 && tip - o.height + 1 < matureConfirmations).map((o) => o.txid))];
  const coinbase = new Set(young.filter((txid) => memo?.get(txid, heightOf.get(txid)) === true));
  const txids = young.filter((txid) => memo?.get(txid, heightOf.get(txid)) === undefined);
  if (txids.length === 0) return { coinbase, fetched: false };
  const raws = await batch(txids.map((txid) => ({ method: 'blockchain.transaction.get', params: [txid] })));
  txids.forEach((txid, i) => {
    const isCoinbase = isCoinbaseTx(String(raws[i]));
    memo?.set(txid, isCoinbase);
    if (isCoinbase) coinbase.add(txid);
  });
  return { coinbase, fetched: true };
}

function toUnspent(item: unknown): Unspent {
  const { tx_hash, height, value } = (item ?? {}) as { tx_hash?: unknown; height?: unknown; value?: unknown };
  if (typeof tx_hash !== 'string' || !/^[0-9a-f]{64}$/i.test(tx_hash)) throw new Error('listunspent: bad tx_hash');
  return { tx_hash, height: integer(height, 'listunspent height'), value: bigInteger(value, 'listunspent value') };
}

function integer(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new Error(`${what} is not an integer`);
  return value;
}

function bigInteger(value: unknown, what: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new Error(`${what} is not an integer amount`);
}

/**
 * Whether a raw transaction (hex) is a coinbase: its one input spends the null outpoint (32 zero
 * bytes, index 0xffffffff). Reads only the header, so any Bitcoin-derived format parses (segwit
 * marker, Litecoin's MWEB flag).
 */
export function isCoinbaseTx(rawHex: string): boolean {
  const raw = Buffer.from(rawHex, 'hex');
  let offset = 4; // version
  if (raw[offset] === 0x00 && raw[offset + 1] !== undefined && raw[offset + 1] !== 0x00) offset += 2; // segwit marker + flag
  const count = raw[offset];
  if (count !== 0x01) return false;
  offset += 1;
  const prevout = raw.subarray(offset, offset + 36);
  return prevout.length === 36 && prevout.subarray(0, 32).every((b) => b === 0) && prevout.readUInt32LE(32) === 0xffffffff;
}
