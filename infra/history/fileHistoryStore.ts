/**
 * The history store (issue 26; docs/events.md "Transaction history"): one JSON file per coin and
 * wallet under `<dbdir>/history/`, `<TICKER>_<digest>.json`, replaced whole through a temporary file
 * and a rename (a crash leaves the old file or the new one, never half of one). A file that cannot be
 * read as a history is ignored (the history is fetched again), as the reference does with its file.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HistoryStore, StoredHistory, TxRecord } from '../../actors/history/historyPort.ts';

/** The file's format version; a file of another version is ignored. */
const VERSION = 1;

interface RecordJson {
  txHash: string;
  txHex: string;
  blockHeight: number;
  timestamp: number;
  from: string[];
  to: string[];
  totalAmount: string;
  spentByMe: string;
  receivedByMe: string;
  fee: string | null;
}

export function createFileHistoryStore(dir: string): HistoryStore {
  /** Saves of one key, in call order. */
  const queues = new Map<string, Promise<void>>();
  const path = (key: string) => join(dir, `${key}.json`);

  return {
    async load(key) {
      let text: string;
      try {
        text = await readFile(path(key), 'utf8');
      } catch {
        return undefined;
      }
      return decode(text);
    },
    save(key, history) {
      const text = JSON.stringify({ version: VERSION, block: history.block, records: history.records.map(encode) });
      const write = (queues.get(key) ?? Promise.resolve()).then(async () => {
        await mkdir(dir, { recursive: true });
        const tmp = `${path(key)}.tmp`;
        await writeFile(tmp, text);
        await rename(tmp, path(key));
      });
      const settled = write.catch(() => undefined);
      queues.set(key, settled);
      void settled.then(() => queues.get(key) === settled && queues.delete(key));
      return write;
    },
  };
}

function encode(r: TxRecord): RecordJson {
  return {
    txHash: r.txHash,
    txHex: r.txHex,
    blockHeight: r.blockHeight,
    timestamp: r.timestamp,
    from: [...r.from],
    to: [...r.to],
    totalAmount: r.totalAmount.toString(),
    spentByMe: r.spentByMe.toString(),
    receivedByMe: r.receivedByMe.toString(),
    fee: r.fee === null ? null : r.fee.toString(),
  };
}

function decode(text: string): StoredHistory | undefined {
  try {
    const json = JSON.parse(text) as { version?: unknown; block?: unknown; records?: RecordJson[] };
    if (json.version !== VERSION || typeof json.block !== 'number' || !Array.isArray(json.records)) return undefined;
    const records = json.records.map(
      (r): TxRecord => ({
        txHash: String(r.txHash),
        txHex: String(r.txHex),
        blockHeight: Number(r.blockHeight),
        timestamp: Number(r.timestamp),
        from: r.from.map(String),
        to: r.to.map(String),
        totalAmount: BigInt(r.totalAmount),
        spentByMe: BigInt(r.spentByMe),
        receivedByMe: BigInt(r.receivedByMe),
        fee: r.fee === null ? null : BigInt(r.fee),
      }),
    );
    return { block: json.block, records };
  } catch {
    return undefined;
  }
}
