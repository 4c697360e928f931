/**
 * The reference client's balance polling (client-requests §6): one `my_balance` per coin every
 * `periodMs`, the coins spread evenly over the period. Records each answer's time and balance, so
 * the delay from a change to the client seeing it can be measured in the same run.
 */
import { performance } from 'node:perf_hooks';

export interface PollAnswer {
  readonly coin: string;
  readonly at: number;
  readonly balance: string;
}

export interface ClientPolling {
  readonly answers: PollAnswer[];
  stop(): void;
}

export function startClientPolling(url: string, password: string, coins: readonly string[], periodMs: number): ClientPolling {
  const answers: PollAnswer[] = [];
  const timers: NodeJS.Timeout[] = [];
  const poll = async (coin: string) => {
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ userpass: password, method: 'my_balance', coin }) });
    const body = (await res.json()) as { balance?: string };
    if (typeof body.balance !== 'string') throw new Error(`my_balance ${coin}: ${JSON.stringify(body)}`);
    answers.push({ coin, at: performance.now(), balance: body.balance });
  };
  coins.forEach((coin, i) => {
    const start = setTimeout(() => {
      void poll(coin);
      timers.push(setInterval(() => void poll(coin), periodMs));
    }, (i * periodMs) / coins.length);
    timers.push(start);
  });
  return { answers, stop: () => timers.forEach((t) => clearTimeout(t)) };
}

/**
 * For each change (`coin` reached `amount` at `at`; balances only grow in the bench), how long
 * until the client's first answer showing at least it; a change never seen is left out.
 */
export function seenAfter(
  answers: readonly PollAnswer[],
  changes: readonly { readonly coin: string; readonly at: number; readonly amount: bigint }[],
  amountOf: (coin: string, balance: string) => bigint,
): number[] {
  const out: number[] = [];
  for (const change of changes) {
    const seen = answers.find((a) => a.coin === change.coin && a.at >= change.at && amountOf(a.coin, a.balance) >= change.amount);
    if (seen !== undefined) out.push(seen.at - change.at);
  }
  return out;
}
