/**
 * Subscription notifications. litecoind cannot push, so while any session is subscribed the node is
 * polled (every ~200 ms): a new tip goes to header subscribers, a changed status to script-hash
 * subscribers. Nobody subscribed: no polling traffic at all.
 */
import { tipHeader } from './blockchainMethods.ts';
import type { ChainIndex } from './chainIndex.ts';
import { scriptHashStatus, type ChainView } from './scriptHashQueries.ts';
import type { LiveSession } from './sessions.ts';

export interface NotifierOptions {
  everyMs: number;
  sessions(): Iterable<LiveSession>;
  /** The chain index synced to the tip. */
  chain(): Promise<ChainIndex>;
  /** The synced chain plus the mempool. */
  view(): Promise<ChainView>;
}

/** Starts polling; `stop()` waits for a check in progress. */
export function startNotifier(options: NotifierOptions): { stop(): Promise<void> } {
  async function check(): Promise<void> {
    const subscribed = [...options.sessions()].filter((s) => s.state.headersTip !== undefined || s.state.scriptHashes.size > 0);
    if (subscribed.length === 0) return;
    const view = subscribed.some((s) => s.state.scriptHashes.size > 0) ? await options.view() : undefined;
    const chain = view?.chain ?? (await options.chain());
    const tipHash = chain.blockHash(chain.tipHeight());
    for (const session of subscribed) {
      const { state } = session;
      if (state.headersTip !== undefined && state.headersTip !== tipHash) {
        state.headersTip = tipHash;
        session.notify('blockchain.headers.subscribe', [tipHeader(chain)]);
      }
      if (!view) continue;
      for (const [scriptHash, sent] of state.scriptHashes) {
        const status = scriptHashStatus(view, scriptHash);
        if (status === sent) continue;
        state.scriptHashes.set(scriptHash, status);
        session.notify('blockchain.scripthash.subscribe', [scriptHash, status]);
      }
    }
  }

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    timer = setTimeout(() => {
      // A failed check (node restarting, say) is retried on the next tick.
      running = check().catch(() => {});
      void running.then(() => !stopped && schedule());
    }, options.everyMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
