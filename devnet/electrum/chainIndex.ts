/**
 * The confirmed half of the script-hash index. litecoind has no address index, so every block
 * from genesis is read once (`getblockhash`, `getblock <hash> 2`, `getblockheader <hash> false`)
 * and kept as outputs, spends and per-script-hash history. Regtest chains here are a few hundred
 * blocks, so a full scan at start and again after a reorg is cheap and simpler than rolling back.
 */
import type { RpcCall } from '../../infra/utxo/daemonRpc.ts';
import { outpointKey, txInputs, txOutputs, type TxOutput, type VerboseTx } from './verboseTx.ts';

/** A confirmed transaction's place in the chain. */
export interface ConfirmedTx {
  txid: string;
  height: number;
  /** Position in its block (0 = coinbase). */
  index: number;
}

export interface IndexedOutput extends ConfirmedTx, TxOutput {}

export interface ChainIndex {
  /** Catches up with the node's best chain and resolves with the tip height. Calls run one after another. */
  sync(): Promise<number>;
  tipHeight(): number;
  blockHash(height: number): string | undefined;
  /** The raw 80-byte header, hex. */
  header(height: number): string | undefined;
  txids(height: number): readonly string[] | undefined;
  output(txid: string, n: number): IndexedOutput | undefined;
  /** The confirmed transaction spending an outpoint. */
  spender(txid: string, n: number): ConfirmedTx | undefined;
  /** Every output ever paid to the script hash, in chain order. */
  outputsOf(scriptHash: string): readonly IndexedOutput[];
  /** Transactions paying or spending the script hash, in chain order, each once. */
  historyOf(scriptHash: string): readonly ConfirmedTx[];
}

interface VerboseBlock {
  hash: string;
  height: number;
  previousblockhash?: string;
  tx: VerboseTx[];
}

const emptyState = () => ({
  blocks: [] as { hash: string; header: string; txids: string[] }[],
  outputs: new Map<string, IndexedOutput>(),
  spenders: new Map<string, ConfirmedTx>(),
  byScript: new Map<string, IndexedOutput[]>(),
  history: new Map<string, ConfirmedTx[]>(),
});

/** An index over `rpc` (which must parse amounts exactly: `nodeRpc(node, { exactAmounts: true })`). Empty until the first `sync()`. */
export function createChainIndex(rpc: RpcCall): ChainIndex {
  let state = emptyState();
  const tip = () => state.blocks.length - 1;
  const tipHash = () => state.blocks[tip()]?.hash;

  const append = <T>(map: Map<string, T[]>, key: string, value: T) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };

  function add(block: VerboseBlock, header: string): void {
    block.tx.forEach((tx, index) => {
      const at: ConfirmedTx = { txid: tx.txid, height: block.height, index };
      const touched = new Set<string>();
      for (const { txid, n } of txInputs(tx)) {
        state.spenders.set(outpointKey(txid, n), at);
        const spent = state.outputs.get(outpointKey(txid, n));
        if (spent) touched.add(spent.scriptHash);
      }
      for (const output of txOutputs(tx)) {
        const indexed = { ...at, ...output };
        state.outputs.set(outpointKey(tx.txid, output.n), indexed);
        append(state.byScript, output.scriptHash, indexed);
        touched.add(output.scriptHash);
      }
      for (const scriptHash of touched) append(state.history, scriptHash, at);
    });
    state.blocks.push({ hash: block.hash, header, txids: block.tx.map((tx) => tx.txid) });
  }

  async function catchUp(): Promise<number> {
    const best = await rpc<string>('getbestblockhash');
    if (best === tipHash()) return tip();
    const height = await rpc<number>('getblockcount');
    if (tip() > height || (tip() >= 0 && (await rpc<string>('getblockhash', [tip()])) !== tipHash())) state = emptyState(); // reorg
    while (tip() < height) {
      const hash = await rpc<string>('getblockhash', [tip() + 1]);
      const [block, header] = await Promise.all([rpc<VerboseBlock>('getblock', [hash, 2]), rpc<string>('getblockheader', [hash, false])]);
      if (block.height > 0 && block.previousblockhash !== tipHash()) {
        state = emptyState(); // reorganised while we were reading: start over
        continue;
      }
      add(block, header);
    }
    return tip();
  }

  let queue: Promise<unknown> = Promise.resolve();
  return {
    sync() {
      const run = queue.then(catchUp, catchUp);
      queue = run.catch(() => {});
      return run;
    },
    tipHeight: tip,
    blockHash: (height) => state.blocks[height]?.hash,
    header: (height) => state.blocks[height]?.header,
    txids: (height) => state.blocks[height]?.txids,
    output: (txid, n) => state.outputs.get(outpointKey(txid, n)),
    spender: (txid, n) => state.spenders.get(outpointKey(txid, n)),
    outputsOf: (scriptHash) => state.byScript.get(scriptHash) ?? [],
    historyOf: (scriptHash) => state.history.get(scriptHash) ?? [],
  };
}
