/**
 * A withdrawal's node calls over Electrum: one batch of `blockchain.headers.subscribe`,
 * `blockchain.scripthash.listunspent` for each of the sender's scripts, and (only when needed)
 * `blockchain.estimatefee` and `blockchain.relayfee`; then, only if some output is younger than
 * coinbase maturity, one batch of `blockchain.transaction.get` to leave immature coinbase out
 * (a node refuses to spend it). Broadcast: `blockchain.transaction.broadcast`.
 */
import type { ElectrumCall } from '../../electrum/electrumConnection.ts';
import { immatureCoinbase, type CoinbaseMemo, type ElectrumBatch } from '../electrumAccountReader.ts';
import { electrumScripthash } from '../utxoAddress.ts';
import type { Unspent } from './txPlan.ts';
import { coinsPerKbToUnits, estimateToPerKb, type WithdrawChain, type WithdrawRead, type WithdrawReadRequest } from './withdrawChain.ts';

/**
 * One use of the coin's pool (electrumBackend.ts `usePool`): `read` with one server's batches,
 * failures as `Transport` errors; `onServer` learns which server answered.
 */
export type UseElectrum = <T>(signal: AbortSignal, read: (batch: ElectrumBatch) => Promise<T>, onServer?: (url: string) => void) => Promise<T>;

/** `memo`: what the coin's balance reads know of its transactions, so a withdrawal asks no `transaction.get` they already asked. */
export function electrumWithdrawChain(use: UseElectrum, memo?: CoinbaseMemo): WithdrawChain {
  return {
    read: (request, signal) => use(signal, (batch) => readUnspents(batch, request, memo)),
    rawTransactions: (txids, signal) =>
      use(signal, async (batch) => {
        const raws = await batch(txids.map((txid) => ({ method: 'blockchain.transaction.get', params: [txid] })));
        return raws.map((raw) => {
          if (typeof raw !== 'string' || !/^([0-9a-f]{2})+$/i.test(raw)) throw new Error('blockchain.transaction.get: not a raw transaction');
          return raw;
        });
      }),
    async broadcast(txHex, signal) {
      let node = '';
      const txHash = await use(signal, async (batch) => {
        const [answer] = await batch([{ method: 'blockchain.transaction.broadcast', params: [txHex] }]);
        if (typeof answer !== 'string' || !/^[0-9a-f]{64}$/i.test(answer)) throw new Error('blockchain.transaction.broadcast: the answer is not a transaction id');
        return answer.toLowerCase();
      }, (server) => (node = server));
      return { txHash, node };
    },
  };
}

async function readUnspents(batch: ElectrumBatch, request: WithdrawReadRequest, memo?: CoinbaseMemo): Promise<WithdrawRead> {
  const calls: ElectrumCall[] = [
    { method: 'blockchain.headers.subscribe', params: [] },
    ...request.scripts.map((script) => ({ method: 'blockchain.scripthash.listunspent', params: [electrumScripthash(script)] })),
  ];
  if (request.estimateBlocks !== undefined) calls.push({ method: 'blockchain.estimatefee', params: [request.estimateBlocks] });
  if (request.relayFee) calls.push({ method: 'blockchain.relayfee', params: [] });
  const answers = await batch(calls);
  const tip = (answers[0] as { height?: unknown } | null)?.height;
  if (typeof tip !== 'number' || !Number.isSafeInteger(tip)) throw new Error('headers.subscribe: no height');
  const listed = request.scripts.flatMap((script, i) => toUnspents(answers[1 + i], script));
  let next = 1 + request.scripts.length;
  const estimatePerKb = request.estimateBlocks === undefined ? undefined : estimateToPerKb(answers[next++], request.decimals);
  const relayPerKb = request.relayFee ? coinsPerKbToUnits(answers[next], request.decimals) : undefined;
  const { coinbase, fetched } = await immatureCoinbase(batch, listed.map((u) => ({ txid: u.unspent.txid, height: u.height })), tip, request.matureConfirmations, memo);
  const young = (u: { height: number }) => u.height > 0 && tip - u.height + 1 < request.matureConfirmations;
  const unspents = listed.filter((u) => !(young(u) && coinbase.has(u.unspent.txid))).map((u) => u.unspent);
  return {
    unspents: dedupe(unspents),
    ...(estimatePerKb === undefined ? {} : { estimatePerKb }),
    ...(relayPerKb === undefined ? {} : { relayPerKb }),
    roundTrips: fetched ? 2 : 1,
  };
}

function toUnspents(answer: unknown, script: Uint8Array): { unspent: Unspent; height: number }[] {
  if (!Array.isArray(answer)) throw new Error('listunspent: not a list');
  return answer.map((item) => {
    const { tx_hash, tx_pos, height, value } = (item ?? {}) as Record<string, unknown>;
    if (typeof tx_hash !== 'string' || !/^[0-9a-f]{64}$/i.test(tx_hash)) throw new Error('listunspent: bad tx_hash');
    if (typeof tx_pos !== 'number' || !Number.isSafeInteger(tx_pos) || tx_pos < 0) throw new Error('listunspent: bad tx_pos');
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new Error('listunspent: bad value');
    return { unspent: { txid: tx_hash.toLowerCase(), vout: tx_pos, value: BigInt(value), script }, height: typeof height === 'number' ? height : 0 };
  });
}

/** The same output listed twice (a server may) counts once, as in the reference. */
function dedupe(unspents: readonly Unspent[]): Unspent[] {
  const seen = new Set<string>();
  return unspents.filter((u) => {
    const key = `${u.txid}:${u.vout}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
