/**
 * The NATS bench's domain events: interleaved `task::enable_eth` and `enable_eth_with_tokens`
 * activations across many coins and tasks, shaped exactly as spec/events.ts says (so the
 * projector's schema check passes), deterministic for a given seed.
 */
import type { DomainEvent, EventOf } from '../spec/events.ts';
import { coinStream, taskStream } from '../events/log/eventLog.ts';
import { mulberry32 } from '../devnet/testing/seededRandom.ts';

/** One event to append, and the aggregate stream it goes to. */
export interface WorkloadEvent {
  readonly stream: string;
  readonly event: DomainEvent;
}

type Activation = EventOf<'CoinActivated'>['data'];

const REAL_TICKERS = ['ETH', 'BNB', 'MATIC', 'AVAX', 'FTM', 'ONE', 'GLMR', 'ETC', 'ARB', 'OP', 'BASE', 'CRO', 'KAVA', 'CELO', 'MOVR', 'HT'];
/** Concurrent activations; each slot owns its own tickers, so no coin has two activations at once. */
const SLOTS = 16;
const TICKERS_PER_SLOT = 4;

/**
 * An endless, deterministic stream of realistic events: {@link SLOTS} activations in flight at
 * once, their events interleaved. Most are `task::enable_eth` runs (TaskCreated,
 * ActivationRequested, progress, CoinActivated with platform and token balances, TaskSucceeded);
 * some fail (ActivationFailed, TaskFailed), some wait for a hardware PIN (UserActionRequired,
 * HardwarePinEntered), some are plain `enable_eth_with_tokens`, and finished tasks are forgotten
 * now and then. Every event but HardwarePinEntered changes one status key.
 */
export class ActivationWorkload {
  readonly #rand: () => number;
  readonly #slots: WorkloadEvent[][] = [];
  readonly #tickers: string[];
  #nextTaskId = 0;
  #slot = 0;
  #flows = 0;
  #block = 19_000_000;
  #forgettable: number[] = [];

  constructor(seed = 1) {
    this.#rand = mulberry32(seed);
    this.#tickers = Array.from({ length: SLOTS * TICKERS_PER_SLOT }, (_, i) => REAL_TICKERS[i] ?? `EVM${i}`);
    for (let s = 0; s < SLOTS; s++) this.#slots.push([]);
  }

  /** The next event, round-robin over the activations in flight. */
  next(): WorkloadEvent {
    const slot = this.#slot;
    this.#slot = (this.#slot + 1) % SLOTS;
    const queue = this.#slots[slot]!;
    if (queue.length === 0) queue.push(...this.#flow(slot));
    return queue.shift()!;
  }

  #flow(slot: number): WorkloadEvent[] {
    const n = this.#flows++;
    const ticker = this.#tickers[slot + SLOTS * (n % TICKERS_PER_SLOT)]!;
    const tokens = Array.from({ length: 1 + Math.floor(this.#rand() * 3) }, (_, i) => `${ticker}-TOKEN${i + 1}`);
    const r = this.#rand();
    const coin = (event: DomainEvent): WorkloadEvent => ({ stream: coinStream(ticker), event });
    if (r < 0.15) {
      // enable_eth_with_tokens: no task.
      return [
        coin({ type: 'ActivationRequested', data: { ticker, family: 'evm', via: 'enable_eth_with_tokens', tokens, getBalances: true, attempt: 1 } }),
        coin({ type: 'CoinActivated', data: this.#activation(ticker, tokens) }),
      ];
    }
    const taskId = this.#nextTaskId++;
    const task = (event: DomainEvent): WorkloadEvent => ({ stream: taskStream(taskId), event });
    const hardware = r > 0.9;
    const fails = r >= 0.15 && r < 0.25;
    const out: WorkloadEvent[] = [
      task({ type: 'TaskCreated', data: { taskId, ticker, tokens, keyPolicy: hardware ? 'Hardware' : 'ContextPrivKey', getBalances: true } }),
    ];
    if (hardware) {
      out.push(
        task({ type: 'TaskProgressed', data: { taskId, status: 'UserActionRequired', details: 'EnterHardwarePin' } }),
        task({ type: 'HardwarePinEntered', data: { taskId } }),
      );
    }
    out.push(coin({ type: 'ActivationRequested', data: { ticker, family: 'evm', via: 'task::enable_eth', tokens, getBalances: true, attempt: 1 } }));
    if (fails) {
      const error = { errorType: 'Transport', message: 'all nodes down', data: 'all nodes down' };
      out.push(coin({ type: 'ActivationFailed', data: { ticker, error, attempt: 1 } }), task({ type: 'TaskFailed', data: { taskId, error } }));
    } else {
      const activation = this.#activation(ticker, tokens, hardware);
      out.push(
        task({ type: 'TaskProgressed', data: { taskId, status: 'InProgress', details: 'RequestingWalletBalance' } }),
        coin({ type: 'CoinActivated', data: activation }),
        task({ type: 'TaskProgressed', data: { taskId, status: 'InProgress', details: 'Finishing' } }),
        task({ type: 'TaskSucceeded', data: { taskId, activation } }),
      );
    }
    this.#forgettable.push(taskId);
    if (this.#forgettable.length > 4 * SLOTS) {
      const old = this.#forgettable.shift()!;
      out.push({ stream: taskStream(old), event: { type: 'TaskForgotten', data: { taskId: old } } });
    }
    return out;
  }

  #activation(ticker: string, tokens: readonly string[], hardware = false): Activation {
    this.#block += 1 + Math.floor(this.#rand() * 12);
    const amount = () => (this.#rand() * 1000).toFixed(1 + Math.floor(this.#rand() * 17));
    const address = `0x${Math.floor(this.#rand() * 2 ** 48).toString(16).padStart(40, '0')}`;
    return {
      ticker,
      family: 'evm',
      address,
      pubkey: `04${Math.floor(this.#rand() * 2 ** 48).toString(16).padStart(128, 'c')}`,
      derivationMethod: hardware ? 'HDWallet' : 'Iguana',
      currentBlock: this.#block,
      balance: { spendable: amount(), unspendable: '0' },
      tokens: tokens.map((t, i) => ({
        ticker: t,
        contractAddress: `0x${String(i + 1).padStart(40, '0')}`,
        decimals: i === 0 ? 6 : 18,
        balance: { spendable: amount(), unspendable: '0' },
      })),
      attempt: 1,
      ...(hardware ? { derivationPath: "m/44'/60'/0'/0/0" } : {}),
    };
  }
}
