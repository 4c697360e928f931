/** Electrum methods about the chain itself: headers and fee rates. */
import type { ChainIndex } from './chainIndex.ts';
import { badRequest, fromDaemon } from './electrumErrors.ts';
import { merkleBranch } from './hashes.ts';
import type { ElectrumMethod } from './methodContext.ts';
import { nonNegativeInteger, positional } from './params.ts';

/** The most headers one `blockchain.block.headers` returns (ElectrumX's MAX_CHUNK_SIZE, one retarget period). */
export const MAX_HEADERS_CHUNK = 2016;

/** `{ height, hex }` of the tip: what `blockchain.headers.subscribe` answers and notifies. */
export function tipHeader(chain: ChainIndex): { height: number; hex: string } {
  const height = chain.tipHeight();
  return { height, hex: chain.header(height)! };
}

function headerAt(chain: ChainIndex, height: number): string {
  const header = chain.header(height);
  if (header === undefined) throw badRequest(`height ${height} out of range`);
  return header;
}

/** ElectrumX's header checkpoint proof: the branch of `height` in the tree of block hashes 0..cp_height. */
function checkpointProof(chain: ChainIndex, height: number, cpHeight: number): { branch: string[]; root: string } {
  if (!(height <= cpHeight && cpHeight <= chain.tipHeight())) {
    throw badRequest(`require header height ${height} <= cp_height ${cpHeight} <= chain height ${chain.tipHeight()}`);
  }
  const hashes = Array.from({ length: cpHeight + 1 }, (_, h) => chain.blockHash(h)!);
  return merkleBranch(hashes, height);
}

const headersSubscribe: ElectrumMethod = async (params, { chain, session }) => {
  positional(params, 0, 0);
  const synced = await chain();
  session.headersTip = synced.blockHash(synced.tipHeight());
  return tipHeader(synced);
};

/** `blockchain.block.header(height, cp_height=0)`: the header hex, or `{ branch, header, root }` with a checkpoint. */
const blockHeader: ElectrumMethod = async (params, { chain }) => {
  const [rawHeight, rawCp = 0] = positional(params, 1, 2);
  const [height, cpHeight] = [nonNegativeInteger(rawHeight), nonNegativeInteger(rawCp)];
  const synced = await chain();
  const header = headerAt(synced, height);
  if (cpHeight === 0) return header;
  return { header, ...checkpointProof(synced, height, cpHeight) };
};

/** `blockchain.block.headers(start_height, count, cp_height=0)` → `{ count, hex, max }` (1.4: concatenated headers in `hex`). */
const blockHeaders: ElectrumMethod = async (params, { chain }) => {
  const [rawStart, rawCount, rawCp = 0] = positional(params, 2, 3);
  const [start, requested, cpHeight] = [nonNegativeInteger(rawStart), nonNegativeInteger(rawCount), nonNegativeInteger(rawCp)];
  const synced = await chain();
  const count = Math.max(0, Math.min(requested, MAX_HEADERS_CHUNK, synced.tipHeight() - start + 1));
  const hex = Array.from({ length: count }, (_, i) => synced.header(start + i)!).join('');
  const result = { count, hex, max: MAX_HEADERS_CHUNK };
  return count > 0 && cpHeight > 0 ? { ...result, ...checkpointProof(synced, start + count - 1, cpHeight) } : result;
};

/** Whole coins per kB from `estimatesmartfee`, or -1 when the node cannot tell (always, on a fresh regtest chain). */
const estimateFee: ElectrumMethod = async (params, { plainRpc }) => {
  const [rawNumber] = positional(params, 1, 1);
  // litecoind takes targets 1..1008; ElectrumX maps any non-negative number onto its buckets.
  const target = Math.min(Math.max(nonNegativeInteger(rawNumber), 1), 1008);
  const estimate = await fromDaemon(plainRpc<{ feerate?: number }>('estimatesmartfee', [target]));
  return estimate.feerate ?? -1;
};

/** The node's minimum relay fee rate in whole coins per kB (`getnetworkinfo.relayfee`). */
const relayFee: ElectrumMethod = async (params, { plainRpc }) => {
  positional(params, 0, 0);
  return (await fromDaemon(plainRpc<{ relayfee: number }>('getnetworkinfo'))).relayfee;
};

export const BLOCKCHAIN_METHODS: Record<string, ElectrumMethod> = {
  'blockchain.headers.subscribe': headersSubscribe,
  'blockchain.block.header': blockHeader,
  'blockchain.block.headers': blockHeaders,
  'blockchain.estimatefee': estimateFee,
  'blockchain.relayfee': relayFee,
};
