/** Electrum `blockchain.transaction.*` methods. */
import { DaemonRpcError } from '../../infra/utxo/daemonRpc.ts';
import type { ChainIndex } from './chainIndex.ts';
import { badRequest, fromDaemon } from './electrumErrors.ts';
import { merkleBranch } from './hashes.ts';
import type { ElectrumMethod } from './methodContext.ts';
import { booleanParam, hexString, nonNegativeInteger, positional, txHash } from './params.ts';

/** `blockchain.transaction.get(tx_hash, verbose=false)`: raw hex, or litecoind's verbose JSON as is. */
const get: ElectrumMethod = async (params, { plainRpc }) => {
  const [rawHash, rawVerbose = false] = positional(params, 1, 2);
  const [txid, verbose] = [txHash(rawHash), booleanParam(rawVerbose, 'verbose')];
  return fromDaemon(plainRpc('getrawtransaction', [txid, verbose]));
};

/** `blockchain.transaction.broadcast(raw_tx)` → txid; a rejection is error 1 with the node's reason, worded like ElectrumX. */
const broadcast: ElectrumMethod = async (params, { rpc, chain }) => {
  const [rawTx] = positional(params, 1, 1);
  const hex = hexString(rawTx);
  try {
    const txid = await rpc<string>('sendrawtransaction', [hex]);
    await chain(); // nothing to index yet, but keeps the tip fresh for the client's next query
    return txid;
  } catch (error) {
    if (!(error instanceof DaemonRpcError)) throw error;
    throw badRequest(`the transaction was rejected by network rules.\n\n${error.message}\n[${hex}]`);
  }
};

function blockTxids(chain: ChainIndex, height: number): readonly string[] {
  const txids = chain.txids(height);
  if (txids === undefined) throw badRequest(`height ${height} out of range`);
  return txids;
}

/** `blockchain.transaction.get_merkle(tx_hash, height)` → `{ block_height, merkle, pos }`. */
const getMerkle: ElectrumMethod = async (params, { chain }) => {
  const [rawHash, rawHeight] = positional(params, 2, 2);
  const [txid, height] = [txHash(rawHash), nonNegativeInteger(rawHeight)];
  const txids = blockTxids(await chain(), height);
  const pos = txids.indexOf(txid);
  if (pos < 0) throw badRequest(`tx ${txid} not in block at height ${height}`);
  return { block_height: height, merkle: merkleBranch(txids, pos).branch, pos };
};

/** `blockchain.transaction.id_from_pos(height, tx_pos, merkle=false)` → txid, or `{ tx_hash, merkle }`. */
const idFromPos: ElectrumMethod = async (params, { chain }) => {
  const [rawHeight, rawPos, rawMerkle = false] = positional(params, 2, 3);
  const [height, pos, merkle] = [nonNegativeInteger(rawHeight), nonNegativeInteger(rawPos), booleanParam(rawMerkle, 'merkle')];
  const txids = blockTxids(await chain(), height);
  const txid = txids[pos];
  if (txid === undefined) throw badRequest(`no tx at position ${pos} in block at height ${height}`);
  return merkle ? { tx_hash: txid, merkle: merkleBranch(txids, pos).branch } : txid;
};

export const TRANSACTION_METHODS: Record<string, ElectrumMethod> = {
  'blockchain.transaction.get': get,
  'blockchain.transaction.broadcast': broadcast,
  'blockchain.transaction.get_merkle': getMerkle,
  'blockchain.transaction.id_from_pos': idFromPos,
};
