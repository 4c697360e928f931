import type { ElectrumCall } from '../electrum/electrumConnection.ts';
import type { ElectrumBatch } from './electrumAccountReader.ts';

interface Pending {
  /** Each distinct call once, by method and params. */
  readonly calls: Map<string, ElectrumCall>;
  readonly answers: Promise<Map<string, PromiseSettledResult<unknown>>>;
}

/** Sends calls as one batch and gives each call's own outcome (`ElectrumConnection.batchSettled`). */
export type SettledBatch = (calls: readonly ElectrumCall[]) => Promise<PromiseSettledResult<unknown>[]>;

/**
 * One Electrum batch for the calls of concurrent readers: every call made in the same turn goes
 * out as one JSON-RPC batch on the next microtask, and a call repeated (the same method and params,
 * e.g. two coins paid by one script) is sent once. Each reader gets its own answers in its own
 * order, and fails only when one of its own calls failed (or the whole batch did). The balance watcher reads through it, so that a
 * block which changes many coins of one server costs one request (issue 24), not one per coin.
 */
export function coalescedBatch(send: SettledBatch): ElectrumBatch {
  let open: Pending | undefined;

  function start(): Pending {
    const calls = new Map<string, ElectrumCall>();
    const answers = new Promise<Map<string, PromiseSettledResult<unknown>>>((resolve, reject) => {
      queueMicrotask(() => {
        open = undefined; // calls made from now on go out in the next batch
        const keys = [...calls.keys()];
        send([...calls.values()]).then((values) => resolve(new Map(keys.map((k, i) => [k, values[i] ?? { status: 'rejected' as const, reason: new Error(`no answer to ${k}`) }]))), reject);
      });
    });
    return { calls, answers };
  }

  return async (calls) => {
    const pending = (open ??= start());
    const keys = calls.map((call) => {
      const key = `${call.method} ${JSON.stringify(call.params)}`;
      if (!pending.calls.has(key)) pending.calls.set(key, call);
      return key;
    });
    const answers = await pending.answers;
    return keys.map((k) => {
      const answer = answers.get(k)!;
      if (answer.status === 'rejected') throw answer.reason;
      return answer.value;
    });
  };
}
