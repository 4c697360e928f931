import { createActor, fromCallback, fromPromise, type Actor } from 'xstate';
import type { DomainEvent } from '../spec/events.ts';
import type { Clock } from '../kernel/clock.ts';
import type { ActivatedCoin, Balance } from '../machines/activation.types.ts';
import { balanceWatchMachine, watchKey, type BalanceWatchEvent, type WatchedBalance, type WatchRead } from '../machines/balanceWatch.machine.ts';
import type { CoinWatch, WatchedNode } from './ports/balanceWatch.ts';
import { xstateClock } from './xstateClock.ts';

export interface BalanceWatchersDeps {
  readonly clock: Clock;
  /** What to watch of an active coin (the family router's `balanceWatch`); `undefined`: not watched. */
  readonly watchOf: (coin: ActivatedCoin) => CoinWatch | undefined;
  /** Records a `BalanceChanged` on its platform's stream, in order with the coin's own events. */
  readonly append: (platform: string, event: DomainEvent) => void;
  /** Resolves once the coin's events so far are durable (its activation is then answered). */
  readonly afterDurable: (ticker: string) => Promise<void>;
}

interface Watching {
  /** The node as the coin `owner` reaches it (its sockets): the watcher reads through that coin's connection. */
  readonly node: WatchedNode;
  readonly owner: string;
  readonly actor: Actor<typeof balanceWatchMachine>;
  readonly coins: Set<string>;
}

/**
 * A watched balance as `my_balance` may answer it: the last value read, and whether it is current
 * (read within one poll interval, or since then no head or change was pushed by a live subscription).
 */
export interface WatchedValue {
  readonly balance: Balance;
  /** Read within one poll interval (one block), so the node need not be asked. */
  readonly fresh: boolean;
}

/**
 * One `balanceWatch` actor per node (issue 24), not per coin: every coin that is active joins the
 * watcher of its node ({@link WatchedNode.key}) once its activation is durable, and leaves it when
 * it stops being active (disabled, passive, re-activated, the service stopping); the node's
 * watcher stops with its last coin, leaving no timer, subscription or read behind. The registry
 * reports each coin's state after every transition ({@link follow}).
 */
export class BalanceWatchers {
  readonly #deps: BalanceWatchersDeps;
  readonly #clock: ReturnType<typeof xstateClock>;
  readonly #nodes = new Map<string, Watching>();
  /**
   * Per node: when its watched values were last known to be those of its latest block (a read
   * answered, or a poll found no newer block), on the clock.
   */
  readonly #currentAt = new Map<string, number>();
  /** Each watched coin: the activation attempt and coin it watches, and its node's key. */
  readonly #coins = new Map<string, { readonly attempt: number; readonly coin: ActivatedCoin; readonly key: string }>();
  /** Per node: its watcher's node calls in flight (a poll or a read), and who waits for them to end. */
  readonly #steps = new Map<string, { inFlight: number; readonly waiters: Set<() => void> }>();
  /** The attempt each coin is waiting to join with (until its activation is durable), and its coin now. */
  readonly #joining = new Map<string, { readonly attempt: number; coin: ActivatedCoin }>();

  constructor(deps: BalanceWatchersDeps) {
    this.#deps = deps;
    this.#clock = xstateClock(deps.clock);
  }

  /**
   * The coin's state after a transition: active with the coin of activation `attempt`, or not
   * (`coin` null). A newly active coin joins its node's watcher once its events are durable; the
   * same activation with another coin (a token added or disabled) watches the coin's balances now;
   * anything else leaves.
   */
  follow(ticker: string, attempt: number, coin: ActivatedCoin | null): void {
    const watched = this.#coins.get(ticker);
    if (coin !== null && watched?.attempt === attempt) {
      if (watched.coin !== coin) this.#rewatch(ticker, attempt, coin);
      return;
    }
    this.#leave(ticker);
    if (coin === null) {
      this.#joining.delete(ticker);
      return;
    }
    const joining = this.#joining.get(ticker);
    if (joining?.attempt === attempt) {
      joining.coin = coin; // changed before it joined (a token added): it joins as it is then
      return;
    }
    const entry = { attempt, coin };
    this.#joining.set(ticker, entry);
    // Watching never adds to an activation's own traffic: the coin joins once it is answered.
    const joinNow = (): void => {
      if (this.#joining.get(ticker) !== entry) return;
      this.#joining.delete(ticker);
      this.#join(ticker, attempt, entry.coin);
    };
    // An activation whose events could not be recorded was not answered as done: nothing to watch.
    this.#deps.afterDurable(ticker).then(joinNow, () => this.#joining.get(ticker) === entry && this.#joining.delete(ticker));
  }

  /** The watched balance of `ticker` (a platform or token) at `address`, if a watcher holds one. */
  watched(platform: string, ticker: string, address: string): WatchedValue | undefined {
    const key = this.#coins.get(platform)?.key;
    const watching = key === undefined ? undefined : this.#nodes.get(key);
    if (watching === undefined) return undefined;
    const balance = watching.actor.getSnapshot().context.watched.get(watchKey({ ticker, address }))?.balance;
    if (balance === undefined) return undefined;
    const at = this.#currentAt.get(watching.node.key);
    // A node that pushes its heads (or script changes) tells every change: between two pushes the
    // last read stays current however long ago it was. A polled node's is current for one interval.
    const snapshot = watching.actor.getSnapshot();
    const pushed = snapshot.context.headsLive && snapshot.matches('waiting');
    const fresh = at !== undefined && (pushed || this.#deps.clock.now() - at <= watching.node.pollMs);
    return { balance, fresh };
  }

  /**
   * {@link watched}, but a value that is not fresh while its watcher is asking the node (a poll
   * that found a new block, then the read of it) waits for that step instead of asking the node
   * again: the answer then costs no node call. Waits at most one poll interval on the clock; a
   * step that fails, or a watcher with nothing in flight, answers at once (not fresh: the caller reads).
   */
  async current(platform: string, ticker: string, address: string, signal: AbortSignal): Promise<WatchedValue | undefined> {
    const value = this.watched(platform, ticker, address);
    const key = this.#coins.get(platform)?.key;
    const step = key === undefined ? undefined : this.#steps.get(key);
    if (value === undefined || value.fresh || step === undefined || step.inFlight === 0) return value;
    await new Promise<void>((resolve) => {
      const done = () => {
        cancel();
        step.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const cancel = this.#deps.clock.setTimeout(done, this.#nodes.get(key!)?.node.pollMs ?? 0);
      step.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
    return this.watched(platform, ticker, address);
  }

  /** Stops every watcher (the service stopping). */
  stopAll(): void {
    this.#joining.clear();
    for (const ticker of [...this.#coins.keys()]) this.#leave(ticker);
  }

  /** How many node watchers run. */
  get size(): number {
    return this.#nodes.size;
  }

  #join(ticker: string, attempt: number, coin: ActivatedCoin): void {
    const watch = this.#deps.watchOf(coin);
    if (watch === undefined) return;
    const { node, balances, block } = watch;
    this.#coins.set(ticker, { attempt, coin, key: node.key });
    const running = this.#nodes.get(node.key);
    if (running !== undefined) {
      running.coins.add(ticker);
      running.actor.send({ type: 'WATCH', platform: ticker, balances });
      node.close(); // the node the running watcher already reads through serves this coin too
      return;
    }
    this.#start(ticker, node, balances, block);
  }

  #rewatch(ticker: string, attempt: number, coin: ActivatedCoin): void {
    const watch = this.#deps.watchOf(coin);
    const running = this.#nodes.get(this.#coins.get(ticker)!.key);
    if (watch === undefined || running === undefined) return;
    watch.node.close();
    this.#coins.set(ticker, { attempt, coin, key: running.node.key });
    running.actor.send({ type: 'WATCH', platform: ticker, balances: watch.balances });
  }

  #leave(ticker: string): void {
    const watched = this.#coins.get(ticker);
    if (watched === undefined) return;
    this.#coins.delete(ticker);
    const running = this.#nodes.get(watched.key);
    if (running === undefined) return;
    running.coins.delete(ticker);
    if (running.coins.size > 0 && running.owner !== ticker) {
      running.actor.send({ type: 'UNWATCH', platform: ticker });
      return;
    }
    running.actor.stop();
    running.node.close();
    this.#nodes.delete(watched.key);
    if (running.coins.size > 0) return this.#handOver(running, ticker);
    this.#currentAt.delete(watched.key);
    const step = this.#steps.get(watched.key);
    this.#steps.delete(watched.key);
    step?.waiters.forEach((w) => w());
  }

  /**
   * The coin whose connection a watcher read through left, others stay: the watcher starts again
   * through the next coin's connection, with the values and the block it had.
   */
  #handOver(stopped: Watching, left: string): void {
    const { watched, block } = stopped.actor.getSnapshot().context;
    const next = [...stopped.coins][0]!;
    const watch = this.#deps.watchOf(this.#coins.get(next)!.coin);
    if (watch === undefined) return;
    const balances = [...watched.values()].filter((b) => b.platform !== left);
    this.#start(next, watch.node, balances, block, stopped.coins);
  }

  #start(ticker: string, node: WatchedNode, balances: readonly WatchedBalance[], block: number, coins = new Set([ticker])): void {
    const step = this.#steps.get(node.key) ?? { inFlight: 0, waiters: new Set<() => void>() };
    this.#steps.set(node.key, step);
    const wake = () => [...step.waiters].forEach((w) => w());
    const current = () => {
      this.#currentAt.set(node.key, this.#deps.clock.now());
      wake();
    };
    /** A node call of the watcher: waiters wait for it, and for the step it starts (a read after a poll). */
    const stepping = async <T>(call: () => Promise<T>): Promise<T> => {
      step.inFlight += 1;
      try {
        return await call();
      } finally {
        step.inFlight -= 1;
        // The read a poll leads to starts in this turn: wake the waiters only if nothing follows.
        setImmediate(() => step.inFlight === 0 && wake());
      }
    };
    const machine = balanceWatchMachine.provide({
      actors: {
        readBlock: fromPromise<number, void>(({ signal }) =>
          stepping(async () => {
            const height = await node.readBlock(signal);
            if (height <= actor.getSnapshot().context.block) current(); // nothing newer than what was read
            return height;
          }),
        ),
        readWatched: fromPromise<WatchRead, { readonly balances: readonly WatchedBalance[] }>(({ input, signal }) =>
          stepping(async () => {
            const read = await node.read(input.balances, signal);
            current();
            return read;
          }),
        ),
        followHeads: fromCallback<BalanceWatchEvent>(({ sendBack }) =>
          node.followHeads?.({
            live: () => sendBack({ type: 'HEADS_LIVE' }),
            head: (block) => sendBack({ type: 'HEAD', block }),
            changed: () => sendBack({ type: 'CHANGED' }),
            lost: () => sendBack({ type: 'HEADS_LOST' }),
          }),
        ),
      },
    });
    const actor = createActor(machine, { input: { pollMs: node.pollMs, balances, block }, clock: this.#clock });
    actor.on('*', (event) => {
      const e = event as DomainEvent;
      if (e.type === 'BalanceChanged') this.#deps.append(e.data.platform, e);
    });
    this.#nodes.set(node.key, { node, owner: ticker, actor, coins });
    actor.start();
  }
}
