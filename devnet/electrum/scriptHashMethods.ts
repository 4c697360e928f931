/** Electrum `blockchain.scripthash.*` methods (script hash = sha256(scriptPubKey) reversed, hex). */
import type { ElectrumMethod, MethodContext } from './methodContext.ts';
import { positional, scriptHash } from './params.ts';
import { scriptHashBalance, scriptHashHistory, scriptHashMempool, scriptHashStatus, scriptHashUtxos, type ChainView } from './scriptHashQueries.ts';

/** A method taking one script hash and answering from a fresh view. */
const withScriptHash =
  (answer: (view: ChainView, scriptHash: string, context: MethodContext) => unknown): ElectrumMethod =>
  async (params, context) => {
    const [raw] = positional(params, 1, 1);
    const hash = scriptHash(raw);
    return answer(await context.view(), hash, context);
  };

export const SCRIPT_HASH_METHODS: Record<string, ElectrumMethod> = {
  'blockchain.scripthash.get_balance': withScriptHash(scriptHashBalance),
  'blockchain.scripthash.get_history': withScriptHash(scriptHashHistory),
  'blockchain.scripthash.get_mempool': withScriptHash(scriptHashMempool),
  'blockchain.scripthash.listunspent': withScriptHash(scriptHashUtxos),
  /** The status now (null without history); a notification `[scripthash, status]` follows each change. */
  'blockchain.scripthash.subscribe': withScriptHash((view, hash, { session }) => {
    const status = scriptHashStatus(view, hash);
    session.scriptHashes.set(hash, status);
    return status;
  }),
  /** 1.4.2: whether it was subscribed. */
  'blockchain.scripthash.unsubscribe': async (params, { session }) => {
    const [raw] = positional(params, 1, 1);
    return session.scriptHashes.delete(scriptHash(raw));
  },
};
