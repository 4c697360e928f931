/** Checks for "one coin, one activation" tests: the already-activated answer per form, and every list of enabled coins. */
import assert from 'node:assert/strict';
import { StatusState } from '../../events/projections/statusState.ts';
import type { CoinStatus } from '../../events/projections/coinStatus.ts';
import type { Stack } from './stack.ts';

type Answer = { status: number; body: any };

/** How a method answers: legacy `{"error"}`, v2 envelope, or a task `init` (v2, refused at once). */
export const AnswerForm = { Legacy: 'legacy', V2: 'v2' } as const;
export type AnswerForm = (typeof AnswerForm)[keyof typeof AnswerForm];

const V2_ERROR_KEYS = ['mmrpc', 'error', 'error_path', 'error_trace', 'error_type', 'error_data', 'id'];

/**
 * Asserts `answer` is "already activated" naming `ticker` in `form`: legacy HTTP 500 and exactly
 * `{"error":"Coin <T> already initialized"}` (spec 7.2 as the reference words it); v2 HTTP 400
 * `PlatformIsAlreadyActivated` with the bare ticker as `error` and `error_data` (spec 7.1).
 */
export function assertAlreadyActivated(answer: Answer, form: AnswerForm, ticker: string, why = ''): void {
  const seen = `${why}: ${answer.status} ${JSON.stringify(answer.body)}`;
  if (form === AnswerForm.Legacy) {
    assert.equal(answer.status, 500, seen);
    assert.deepEqual(answer.body, { error: `Coin ${ticker} already initialized` }, seen);
    return;
  }
  assert.equal(answer.status, 400, seen);
  assert.deepEqual(Object.keys(answer.body), V2_ERROR_KEYS, seen);
  assert.equal(answer.body.error_type, 'PlatformIsAlreadyActivated', seen);
  assert.equal(answer.body.error, ticker, seen);
  assert.equal(answer.body.error_data, ticker, seen);
}

/** Tickers the status projection (the KV values, rebuilt from the log) shows enabled: coins active or passive, and their tokens. */
async function statusTickers(s: Stack): Promise<string[]> {
  const state = new StatusState();
  for await (const event of s.service.log.read()) state.apply(event, 'node');
  const coins = state
    .entries()
    .map(([, value]) => value)
    .filter((v): v is CoinStatus => 'state' in v && (v.state === 'active' || v.state === 'passive'));
  return coins.flatMap((c) => [c.ticker, ...(c.tokens ?? []).map((t) => t.ticker)]);
}

const duplicates = (tickers: readonly string[]): string[] => tickers.filter((t, i) => tickers.indexOf(t) !== i);

/**
 * Every list of enabled coins (legacy and v2 `get_enabled_coins`, the status projection): asserts
 * none lists a ticker twice and all agree; returns the tickers, sorted, with their legacy address.
 */
export async function enabledEverywhere(s: Stack, why = ''): Promise<{ ticker: string; address: string }[]> {
  const legacy: { ticker: string; address: string }[] = (await s.legacy('get_enabled_coins')).body.result;
  const v2: string[] = (await s.v2('get_enabled_coins')).body.result.coins.map((c: { ticker: string }) => c.ticker);
  const status = await statusTickers(s);
  for (const [name, list] of [['legacy get_enabled_coins', legacy.map((c) => c.ticker)], ['v2 get_enabled_coins', v2], ['status projection', status]] as const) {
    assert.deepEqual(duplicates(list), [], `${why}: ${name} lists a ticker twice: ${list.join(', ')}`);
  }
  const sorted = (list: readonly string[]) => [...list].sort();
  assert.deepEqual(sorted(v2), sorted(legacy.map((c) => c.ticker)), `${why}: v2 and legacy get_enabled_coins differ`);
  assert.deepEqual(sorted(status), sorted(v2), `${why}: the status projection and get_enabled_coins differ`);
  return [...legacy].sort((a, b) => (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0));
}
