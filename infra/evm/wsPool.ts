/**
 * The WebSockets of one EVM coin: at most one per node URL, opened on first use and kept while the
 * coin is enabled, so `my_balance` reuses the socket the activation opened. A socket is dropped
 * when a read on it fails (the next read reconnects) and every socket closes with the coin
 * (disable, a failed or cancelled activation, service stop).
 */
import { EvmNodeError } from './evmNodeError.ts';
import { WsJsonRpcChannel } from './wsJsonRpc.ts';

interface Opening {
  readonly promise: Promise<WsJsonRpcChannel>;
  readonly controller: AbortController;
  /** Reads waiting for this socket; the opening is abandoned when the last one gives up. */
  waiters: number;
  settled: boolean;
}

export class WsPool {
  readonly #open = new Map<string, WsJsonRpcChannel>();
  readonly #opening = new Map<string, Opening>();
  #closed = false;

  /** The open socket to `url`, opening it if needed (concurrent reads share one opening). */
  async channel(url: string, signal: AbortSignal): Promise<WsJsonRpcChannel> {
    if (this.#closed) throw new EvmNodeError('the coin\'s connections are closed');
    const open = this.#open.get(url);
    if (open !== undefined && !open.closed) return open;
    const opening = this.#opening.get(url) ?? this.#startOpening(url);
    opening.waiters += 1;
    try {
      return await untilAborted(opening.promise, signal);
    } finally {
      opening.waiters -= 1;
      if (opening.waiters === 0 && !opening.settled) opening.controller.abort(signal.reason);
    }
  }

  /** Closes the socket to `url` (after a failed read on it); the next read opens a new one. */
  drop(url: string): void {
    this.#open.get(url)?.close();
    this.#open.delete(url);
  }

  /** Closes every socket and refuses new ones. Idempotent. */
  close(): void {
    this.#closed = true;
    for (const opening of this.#opening.values()) opening.controller.abort(new EvmNodeError('the coin\'s connections are closed'));
    for (const channel of this.#open.values()) channel.close();
    this.#open.clear();
  }

  /** Sockets open now (for tests and diagnostics). */
  get size(): number {
    return [...this.#open.values()].filter((c) => !c.closed).length;
  }

  #startOpening(url: string): Opening {
    const controller = new AbortController();
    const forget = (channel: WsJsonRpcChannel) => {
      if (this.#open.get(url) === channel) this.#open.delete(url);
    };
    let opened: WsJsonRpcChannel | undefined;
    const opening: Opening = {
      promise: WsJsonRpcChannel.open(url, controller.signal, () => opened && forget(opened)),
      controller,
      waiters: 0,
      settled: false,
    };
    this.#opening.set(url, opening);
    opening.promise.then(
      (channel) => {
        opened = channel;
        opening.settled = true;
        this.#opening.delete(url);
        if (this.#closed) channel.close();
        else this.#open.set(url, channel);
      },
      () => {
        opening.settled = true;
        this.#opening.delete(url);
      },
    );
    return opening;
  }
}

/** Settles with `work`, or rejects with the reason as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
