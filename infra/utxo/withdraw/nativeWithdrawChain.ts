/**
 * A withdrawal's node calls on a native daemon, sent at once (the daemon answers them in
 * parallel): `listunspent 0 9999999 [address]` (the daemon leaves immature coinbase out itself),
 * and only when needed `estimatesmartfee` (falling back to `estimatefee`, as the reference's
 * `detect_fee_method`) and `getnetworkinfo` for the relay fee. Broadcast: `sendrawtransaction`.
 */
import { amountField } from '../daemonAmounts.ts';
import type { Unspent } from './txPlan.ts';
import { coinsPerKbToUnits, estimateToPerKb, type WithdrawChain, type WithdrawReadRequest } from './withdrawChain.ts';

/**
 * `call` runs one RPC within the coin's budget and turns failures into `Transport` errors
 * (nativeBackend.ts); `rawRpc` reads amounts as JSON numbers (the fee estimates are not amount fields).
 */
export function nativeWithdrawChain(call: <T>(method: string, params: readonly unknown[], signal: AbortSignal) => Promise<T>, endpoint: string): WithdrawChain {
  return {
    async read(request, signal) {
      const [listed, estimate, network] = await Promise.all([
        call<Record<string, unknown>[]>('listunspent', [0, 9_999_999, [request.address]], signal),
        request.estimateBlocks === undefined ? undefined : estimateFee(call, request.estimateBlocks, signal),
        request.relayFee ? call<{ relayfee?: unknown }>('getnetworkinfo', [], signal) : undefined,
      ]);
      return {
        unspents: listed.map((u) => toUnspent(u, request)),
        ...(estimate === undefined ? {} : { estimatePerKb: estimateToPerKb(estimate, request.decimals) }),
        ...(network === undefined ? {} : { relayPerKb: coinsPerKbToUnits(Number(network.relayfee), request.decimals) }),
        roundTrips: 1,
      };
    },
    rawTransactions: (txids, signal) => Promise.all(txids.map((txid) => call<string>('getrawtransaction', [txid], signal))),
    async broadcast(txHex, signal) {
      const txHash = await call<string>('sendrawtransaction', [txHex], signal);
      return { txHash, node: endpoint };
    },
  };
}

async function estimateFee(call: <T>(method: string, params: readonly unknown[], signal: AbortSignal) => Promise<T>, blocks: number, signal: AbortSignal): Promise<unknown> {
  const smart = await call<{ feerate?: unknown }>('estimatesmartfee', [blocks], signal).catch(() => undefined);
  if (typeof smart?.feerate === 'number' && smart.feerate > 0) return smart.feerate;
  return call<unknown>('estimatefee', [blocks], signal).catch(() => -1);
}

/** One `listunspent` entry; its script must be one of the sender's (the daemon may watch more). */
function toUnspent(entry: Record<string, unknown>, request: WithdrawReadRequest): Unspent {
  const { txid, vout, amount, scriptPubKey } = entry;
  if (typeof txid !== 'string' || !/^[0-9a-f]{64}$/i.test(txid) || typeof vout !== 'number' || typeof scriptPubKey !== 'string') throw new Error('listunspent: malformed entry');
  const script = Uint8Array.from(Buffer.from(scriptPubKey, 'hex'));
  const own = request.scripts.find((s) => Buffer.from(s).equals(Buffer.from(script)));
  if (own === undefined) throw new Error(`listunspent: an output of ${request.address} has a script the wallet does not sign (${scriptPubKey.slice(0, 80)})`);
  return { txid: txid.toLowerCase(), vout, value: amountField(amount), script: own };
}
