/**
 * JSON-RPC over one WebSocket to one EVM node (`ws://`, `wss://`; TLS verified by default). A body
 * is sent as one text frame, a batch as one array, exactly as it would be POSTed; the answer comes
 * back as the text an HTTP node would have sent. Many requests may share the socket at once, so
 * ids are rewritten to the socket's own and restored in the answer.
 */
import WebSocket from 'ws';
import { EvmNodeError } from './evmNodeError.ts';

/** Most bytes of one answer (a batch of a few hundred balances is far below). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

type JsonRpcCall = { id?: unknown } & Record<string, unknown>;

interface Pending {
  readonly batch: boolean;
  readonly answers: unknown[];
  readonly ids: number[];
  resolve(text: string): void;
  reject(reason: unknown): void;
}

/** An open socket. It closes itself when the node closes it or sends what is not JSON-RPC. */
export class WsJsonRpcChannel {
  readonly #ws: WebSocket;
  readonly #pending = new Map<number, { entry: Pending; originalId: unknown }>();
  /** `eth_subscribe` subscriptions by the node's id: what each notification's `result` goes to. */
  readonly #subscriptions = new Map<string, (result: unknown) => void>();
  readonly #closeListeners = new Set<() => void>();
  #nextId = 0;
  #closed = false;

  private constructor(ws: WebSocket, onClose: () => void) {
    this.#ws = ws;
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.#receive(data.toString());
    });
    ws.on('error', () => {}); // 'close' follows and reports
    ws.on('close', (code) => {
      this.#fail(new EvmNodeError(`connection closed by the node (code ${code})`));
      onClose();
    });
  }

  /** Opens a socket to `url`; `signal` aborts the opening. `onClose` runs once it has closed. */
  static open(url: string, signal: AbortSignal, onClose: () => void): Promise<WsJsonRpcChannel> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const ws = new WebSocket(url, { maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
      const onAbort = () => {
        ws.terminate();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      ws.once('error', (error: Error & { code?: string }) => {
        signal.removeEventListener('abort', onAbort);
        ws.terminate();
        reject(new EvmNodeError(error.code ? `connection failed (${error.code})` : `connection failed: ${error.message}`, { cause: error }));
      });
      ws.once('open', () => {
        signal.removeEventListener('abort', onAbort);
        resolve(new WsJsonRpcChannel(ws, onClose));
      });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends `body` (a JSON-RPC call or batch) and resolves with the answer's text. `frame` may turn
   * the outgoing text of a single call into what is sent (a gateway proxy's signed form).
   */
  request(body: string, signal: AbortSignal, frame: (text: string) => string = (text) => text): Promise<string> {
    if (this.#closed) return Promise.reject(new EvmNodeError('connection closed'));
    if (signal.aborted) return Promise.reject(signal.reason);
    const payload = JSON.parse(body) as JsonRpcCall | JsonRpcCall[];
    const calls = Array.isArray(payload) ? payload : [payload];
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => {
        this.#forget(entry);
        reject(signal.reason);
      };
      const entry: Pending = {
        batch: Array.isArray(payload),
        answers: [],
        ids: [],
        resolve: (text) => {
          signal.removeEventListener('abort', onAbort);
          resolve(text);
        },
        reject: (reason) => {
          signal.removeEventListener('abort', onAbort);
          reject(reason);
        },
      };
      const originalIds = calls.map((call) => {
        const original = call.id;
        call.id = ++this.#nextId;
        entry.ids.push(call.id as number);
        return original;
      });
      const text = frame(JSON.stringify(payload)); // may refuse the body: nothing is pending yet
      entry.ids.forEach((id, index) => this.#pending.set(id, { entry, originalId: originalIds[index] }));
      signal.addEventListener('abort', onAbort, { once: true });
      this.#ws.send(text);
    });
  }

  /**
   * `eth_subscribe(kind)` on this socket: each `eth_subscription` notification's `result` goes to
   * `onData`. Resolves with how to unsubscribe; rejects when the node refuses.
   */
  async subscribe(kind: string, signal: AbortSignal, onData: (result: unknown) => void): Promise<() => void> {
    const answer = JSON.parse(await this.request(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_subscribe', params: [kind] }), signal)) as { result?: unknown; error?: { message?: unknown } };
    if (typeof answer.result !== 'string') throw new EvmNodeError(`eth_subscribe ${kind} refused: ${printable(String(answer.error?.message ?? 'no id'))}`);
    const id = answer.result;
    this.#subscriptions.set(id, onData);
    return () => {
      if (!this.#subscriptions.delete(id) || this.#closed) return;
      const unsubscribe = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_unsubscribe', params: [id] });
      this.request(unsubscribe, new AbortController().signal).catch(() => undefined); // best effort: the socket may close first
    };
  }

  /** Runs `listener` once the socket has closed (at once if it has). */
  onClosed(listener: () => void): void {
    if (this.#closed) listener();
    else this.#closeListeners.add(listener);
  }

  /** Closes the socket; pending requests fail with `reason`. Idempotent. */
  close(reason: Error = new EvmNodeError('connection closed')): void {
    this.#fail(reason);
    this.#ws.terminate();
  }

  #receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      // A gateway proxy answers a refused call with a bare text such as "401 Unauthorized".
      return this.close(new EvmNodeError(`the node answered ${JSON.stringify(printable(text))}, not JSON-RPC`));
    }
    const notice = message as { method?: unknown; params?: { subscription?: unknown; result?: unknown } } | null;
    if (notice?.method === 'eth_subscription' && typeof notice.params?.subscription === 'string') {
      this.#subscriptions.get(notice.params.subscription)?.(notice.params.result);
      return;
    }
    const answers = (Array.isArray(message) ? message : [message]) as unknown[];
    const touched = new Set<Pending>();
    for (const answer of answers) {
      const id = (answer as { id?: unknown } | null)?.id;
      const owner = typeof id === 'number' ? this.#pending.get(id) : undefined;
      if (owner === undefined) {
        // An error without an id says the node could not read a request: it is unusable.
        const error = (answer as { error?: { message?: unknown } } | null)?.error;
        if (id === null && error !== undefined) return this.close(new EvmNodeError(`the node refused a request: ${printable(String(error.message))}`));
        continue; // a late answer to an abandoned request
      }
      this.#pending.delete(id as number);
      owner.entry.answers.push({ ...(answer as object), id: owner.originalId });
      touched.add(owner.entry);
    }
    for (const entry of touched) {
      // A batch is answered by one array: what it lacks, ethers reports as missing.
      if (entry.answers.length === entry.ids.length || Array.isArray(message)) {
        this.#forget(entry);
        entry.resolve(JSON.stringify(entry.batch ? entry.answers : entry.answers[0]));
      }
    }
  }

  #forget(entry: Pending): void {
    for (const id of entry.ids) this.#pending.delete(id);
  }

  #fail(reason: Error): void {
    this.#closed = true;
    this.#subscriptions.clear();
    const listeners = [...this.#closeListeners];
    this.#closeListeners.clear();
    for (const listener of listeners) listener();
    const entries = new Set([...this.#pending.values()].map((p) => p.entry));
    this.#pending.clear();
    for (const entry of entries) entry.reject(reason);
  }
}

/** Up to 80 printable characters of a node's text, for an error message. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 80);
}
