/**
 * The coins walk: every entry of a coins file through every activation method that fits it
 * (walkRequests.ts). For each entry and method it records
 * - the plan: the service's own checks run in-process on the request (`ActivationService.plan`),
 *   `accepted` or the refusal's error type and sentence;
 * - the activation over RPC against the walk's peers: the derived address and the outcome. A
 *   refused plan is sent too, and must be refused with the same error in the method's own form
 *   (`refused HTTP <status>`; anything else is recorded as `UNLIKE PLAN`).
 * Platform methods activate each platform once with every token whose own plan was accepted.
 */
import type { Stack } from '../testing/stack.ts';
import { untilFinished } from '../testing/tasks.ts';
import { isActivationError } from '../../spec/errors.ts';
import type { CoinEntry } from '../../spec/coins.ts';
import type { CompiledSchema } from '../../spec/validate.ts';
import type { TSchema, Static } from '@sinclair/typebox';
import { legacyElectrumParams } from '../../spec/legacyElectrum.ts';
import { legacyEnableParams } from '../../spec/legacyEnable.ts';
import { enableEthWithTokensParams } from '../../spec/enableEthWithTokens.ts';
import { enableEthTaskInitParams } from '../../spec/enableEthTask.ts';
import { toElectrumCommand } from '../../rpc/methods/legacyElectrum.ts';
import { toEnableCommand } from '../../rpc/methods/legacyEnable.ts';
import { toPlatformCommand } from '../../rpc/methods/enableEthWithTokens.ts';
import type { ActivationCommand } from '../../actors/ports/chainFamily.ts';
import { legacyRequest, platformRequest, walkMethods, WalkMethod, type WalkEndpoints } from './walkRequests.ts';

/** One line of the table: an entry walked through one method. */
export interface WalkRow {
  readonly coin: string;
  /** The entry's `protocol.type` as written (`-` when absent). */
  readonly protocol: string;
  readonly method: WalkMethod;
  /** `accepted`, or `<ErrorType>: <sentence>`. */
  readonly plan: string;
  /** The address the activation answered, `-` without one. */
  readonly address: string;
  /** `ok <what it answered>`, `failed …`, `refused HTTP <status>` or `UNLIKE PLAN …`. */
  readonly activation: string;
}

export const ACCEPTED = 'accepted';
export const UNLIKE_PLAN = 'UNLIKE PLAN';

type Plan = { readonly accepted: true } | { readonly accepted: false; readonly errorType: string; readonly message: string };
type Outcome = { readonly address: string; readonly activation: string };
type Answer = { readonly ok: true; readonly body: any } | { readonly ok: false; readonly status: number; readonly errorType?: string; readonly error: string };

interface Pair {
  readonly entry: CoinEntry;
  readonly method: WalkMethod;
  readonly params: Record<string, unknown>;
  readonly plan: Plan;
}

export interface WalkOptions {
  /** One service per method, each loaded with `entries` as its coins file. */
  readonly stacks: Readonly<Record<WalkMethod, Stack>>;
  readonly endpoints: WalkEndpoints;
  /** Requests in flight at once (default 16). */
  readonly concurrency?: number;
}

/** Walks `entries`; rows in table order (ticker, then method as `walkMethods` lists them). */
export async function walkCoins(entries: readonly CoinEntry[], options: WalkOptions): Promise<WalkRow[]> {
  const byTicker = new Map(entries.map((e) => [e.coin, e]));
  const find = (ticker: string) => byTicker.get(ticker);
  const pairs = entries.flatMap((entry) =>
    walkMethods(entry).map((method): Pair => {
      const params = isLegacy(method) ? legacyRequest(method, entry, options.endpoints) : platformRequest(entry, find, options.endpoints);
      return { entry, method, params, plan: planOf(options.stacks[method], method, params) };
    }),
  );
  const outcomes = new Map<Pair, Outcome>();
  const limit = options.concurrency ?? 16;
  // Refusals first: once a platform is active, its admission would refuse before its plan.
  await forEachBounded(pairs.filter((p) => !p.plan.accepted), limit, async (pair) => {
    outcomes.set(pair, refusedOutcome(pair.plan, await send(options.stacks[pair.method], pair.method, pair.params)));
  });
  await forEachBounded(pairs.filter((p) => p.plan.accepted && isLegacy(p.method)), limit, async (pair) => {
    outcomes.set(pair, legacyOutcome(await send(options.stacks[pair.method], pair.method, pair.params)));
  });
  await forEachBounded(platformGroups(pairs), limit, async (group) => {
    const tokens = group.pairs.filter((p) => p.entry.coin !== group.platform).map((p) => p.entry.coin);
    const params = platformRequest(find(group.platform) ?? group.pairs[0]!.entry, find, options.endpoints, tokens);
    const answer = await send(options.stacks[group.method], group.method, params);
    for (const pair of group.pairs) outcomes.set(pair, platformOutcome(answer, pair.entry.coin, group.platform));
  });
  return pairs
    .map((pair): WalkRow => {
      const outcome = outcomes.get(pair) ?? { address: '-', activation: 'not sent' };
      return {
        coin: pair.entry.coin,
        protocol: pair.entry.protocol?.type ?? '-',
        method: pair.method,
        plan: pair.plan.accepted ? ACCEPTED : `${pair.plan.errorType}: ${pair.plan.message}`,
        ...outcome,
      };
    })
    .sort(compareRows);
}

/** Table order: ticker by code point (locale-free), then method in `walkMethods` order. */
export function compareRows(a: WalkRow, b: WalkRow): number {
  if (a.coin !== b.coin) return a.coin < b.coin ? -1 : 1;
  return METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method);
}
const METHOD_ORDER: readonly WalkMethod[] = [WalkMethod.Electrum, WalkMethod.Enable, WalkMethod.EnableEthWithTokens, WalkMethod.EnableEthTask];

const isLegacy = (method: WalkMethod): method is typeof WalkMethod.Electrum | typeof WalkMethod.Enable =>
  method === WalkMethod.Electrum || method === WalkMethod.Enable;

/** The request as the RPC layer would decode it (defaults filled in); a walk request that does not fit is a walk bug. */
function decoded<T extends TSchema>(schema: CompiledSchema<T>, params: Record<string, unknown>): Static<T> {
  const result = schema.decode(structuredClone(params));
  if (!result.ok) throw new Error(`walk request does not fit its schema: ${result.problem.field}: ${result.problem.message}`);
  return result.value;
}

/** The request as a domain command, through the RPC layer's own mapping. */
function commandOf(method: WalkMethod, params: Record<string, unknown>): ActivationCommand {
  switch (method) {
    case WalkMethod.Electrum:
      return toElectrumCommand(decoded(legacyElectrumParams, params));
    case WalkMethod.Enable:
      return toEnableCommand(decoded(legacyEnableParams, params));
    case WalkMethod.EnableEthWithTokens:
      return toPlatformCommand(decoded(enableEthWithTokensParams, params), method);
    case WalkMethod.EnableEthTask:
      return toPlatformCommand(decoded(enableEthTaskInitParams, params), method);
    default:
      throw new Error(`the coins walk does not send ${method}`);
  }
}

/** The service's checks of the request, in-process: nothing is activated or registered. */
function planOf(stack: Stack, method: WalkMethod, params: Record<string, unknown>): Plan {
  try {
    const mm2 = typeof params['mm2'] === 'number' ? params['mm2'] : undefined;
    stack.service.service.plan(commandOf(method, params), mm2);
    return { accepted: true };
  } catch (error) {
    if (!isActivationError(error)) throw error;
    return { accepted: false, errorType: error.errorType, message: oneLine(error.message) };
  }
}

/** Sends the request over RPC; a task is started and followed until it finishes. */
async function send(stack: Stack, method: WalkMethod, params: Record<string, unknown>): Promise<Answer> {
  if (isLegacy(method)) {
    const { status, body } = await stack.legacy(method, params);
    return status === 200 ? { ok: true, body } : { ok: false, status, error: oneLine(String(body?.error)) };
  }
  const v2Method = method === WalkMethod.EnableEthTask ? 'task::enable_eth::init' : method;
  const { status, body } = await stack.v2(v2Method, params);
  if (status !== 200) return { ok: false, status, errorType: body?.error_type, error: oneLine(String(body?.error)) };
  if (method !== WalkMethod.EnableEthTask) return { ok: true, body: body.result };
  const { result } = await untilFinished(stack, body.result.task_id, { timeoutMs: 60_000, intervalMs: 10 });
  if (result.status === 'Ok') return { ok: true, body: result.details };
  return { ok: false, status: 200, errorType: result.details?.error_type, error: oneLine(String(result.details?.error)) };
}

function refusedOutcome(plan: Plan, answer: Answer): Outcome {
  if (plan.accepted) throw new Error('refusedOutcome of an accepted plan');
  const same = !answer.ok && answer.error === plan.message && (answer.errorType === undefined || answer.errorType === plan.errorType);
  if (same) return { address: '-', activation: `refused HTTP ${answer.status}` };
  return { address: '-', activation: `${UNLIKE_PLAN}: ${describe(answer)}` };
}

function legacyOutcome(answer: Answer): Outcome {
  if (!answer.ok) return { address: '-', activation: `failed ${describe(answer)}` };
  const { result: _r, address, coin: _c, ...rest } = answer.body as Record<string, unknown>;
  return { address: String(address), activation: `ok ${Object.entries(rest).map(([k, v]) => `${k}=${String(v)}`).join(' ')}` };
}

/** The row of `ticker` (the platform or one of its tokens) in an Iguana v2 platform result. */
function platformOutcome(answer: Answer, ticker: string, platform: string): Outcome {
  if (!answer.ok) return { address: '-', activation: `failed ${describe(answer)}` };
  const [address, info] = Object.entries(answer.body.eth_addresses_infos ?? {})[0] ?? [];
  if (address === undefined) return { address: '-', activation: `failed: no address in ${JSON.stringify(answer.body).slice(0, 200)}` };
  const balances = ticker === platform ? (info as any)?.balances : answer.body.erc20_addresses_infos?.[address]?.balances?.[ticker];
  if (balances === undefined) return { address, activation: `failed: no balance of ${ticker} in the result` };
  return { address, activation: `ok balance=${balances.spendable} unspendable=${balances.unspendable}` };
}

function describe(answer: Answer): string {
  if (answer.ok) return `HTTP 200 ${oneLine(JSON.stringify(answer.body)).slice(0, 300)}`;
  return `HTTP ${answer.status}${answer.errorType === undefined ? '' : ` ${answer.errorType}`}: ${answer.error}`;
}

/** Accepted pairs of the v2 methods by method and platform. */
function platformGroups(pairs: readonly Pair[]): { method: WalkMethod; platform: string; pairs: Pair[] }[] {
  const groups = new Map<string, { method: WalkMethod; platform: string; pairs: Pair[] }>();
  for (const pair of pairs) {
    if (!pair.plan.accepted || isLegacy(pair.method)) continue;
    const platform = String(pair.params['ticker']);
    const key = `${pair.method} ${platform}`;
    const group = groups.get(key) ?? { method: pair.method, platform, pairs: [] };
    group.pairs.push(pair);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** Table cells hold one line: tabs and line breaks become spaces. */
export function oneLine(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ');
}

/** Runs `work` on every item, at most `limit` at a time; rejects with the first failure. */
async function forEachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
