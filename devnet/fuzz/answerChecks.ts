/**
 * What every answer to a fuzz case must satisfy (docs/rpc.md, docs/compatibility.md §1–§3): JSON
 * in the request's own form, the documented key order and status of each error type, the error
 * type the order of checks predicts, never `InternalError`, and nothing that should stay inside
 * the service: no stack trace, no absolute path, no secret.
 */
import { ErrorType, HTTP_STATUS } from '../../spec/errors.ts';
import type { Expected, FuzzCase } from './fuzzRequests.ts';

/** What must never appear in an answer or an event. */
export interface LeakRules {
  /** Secret values (the rpc password, the passphrase, key material). */
  readonly secrets: readonly string[];
  /** Paths of this machine (home, temp and working directories). */
  readonly paths: readonly string[];
}

const V2_ERROR_KEYS = ['mmrpc', 'error', 'error_path', 'error_trace', 'error_type', 'error_data', 'id'];
const LEGACY_ERROR_KEYS = new Set(['error', 'orders', 'active_swaps']);
const STACK_TRACE = [/\n\s+at /, /\(\S+:\d+:\d+\)/, /node:internal/, /\.(?:ts|js|mjs|cjs):\d+/];
const KNOWN_TYPES = new Set<string>(Object.values(ErrorType));

/** Secrets, paths and stack traces found in `text`, each as a sentence. */
export function leaksIn(text: string, rules: LeakRules): string[] {
  const found: string[] = [];
  rules.secrets.forEach((s, i) => s !== '' && text.includes(s) && found.push(`secret #${i} appears`));
  for (const p of rules.paths) if (p !== '' && text.includes(p)) found.push(`the path ${p} appears`);
  for (const re of STACK_TRACE) if (re.test(text)) found.push(`a stack trace (${re})`);
  return found;
}

/** Every way the answer (`status`, raw `text`) breaks what `fuzzCase` expects. */
/**
 * Types the docs list with another status on some methods, beside their usual one: 404 on
 * `cancel` and `coin_status`, and 400 for `NoSuchCoin` on `account_balance` and
 * `task::account_balance::init` (docs/compatibility.md §21, as the reference).
 */
const OTHER_DOCUMENTED_STATUS = new Map<string, readonly number[]>([
  [ErrorType.NoSuchTask, [404]],
  [ErrorType.NoSuchCoin, [404, 400]],
]);

export function checkAnswer(fuzzCase: FuzzCase, status: number, text: string, rules: LeakRules): string[] {
  const problems = leaksIn(text, rules);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `the answer is not JSON (HTTP ${status})`];
  }
  const { expected } = fuzzCase;
  if ('status' in expected) {
    const ok = status === expected.status && isObject(body) && Object.keys(body).join() === 'error' && typeof body.error === 'string';
    return ok ? problems : [...problems, `expected HTTP ${expected.status} {"error": …}, got HTTP ${status} ${text.slice(0, 200)}`];
  }
  if (!fuzzCase.batch) return [...problems, ...checkOne(expected[0]!, status, body)];
  if (status !== 200 || !Array.isArray(body) || body.length !== expected.length) {
    return [...problems, `expected HTTP 200 with ${expected.length} answers, got HTTP ${status} ${text.slice(0, 200)}`];
  }
  return [...problems, ...expected.flatMap((e, i) => checkOne(e, undefined, body[i]).map((p) => `[${i}] ${p}`))];
}

/** Whether an answer (one element) is a success. */
export function isSuccess(answer: unknown): boolean {
  return isObject(answer) && (answer.mmrpc === '2.0' ? 'result' in answer : !('error' in answer));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One request's answer; `status` is unknown for a batch element. */
function checkOne(e: Expected, status: number | undefined, answer: unknown): string[] {
  const got = `HTTP ${status ?? '-'} ${JSON.stringify(answer).slice(0, 300)}`;
  if (!isObject(answer)) return [`not an object: ${got}`];
  const problems: string[] = [];
  const fail = (why: string) => problems.push(`${why}: ${got}`);
  if (e.form === 'legacy') {
    if ('mmrpc' in answer) fail('a v2 answer to a legacy request');
    else if ('error' in answer) {
      if (status !== undefined && status !== 500) fail('a legacy error not on HTTP 500');
      if (typeof answer.error !== 'string' || !Object.keys(answer).every((k) => LEGACY_ERROR_KEYS.has(k))) fail('not a legacy error');
      if (answer.error === 'Internal error') fail('an internal error');
      if (e.legacyError !== undefined && !e.legacyError.test(String(answer.error))) fail(`the legacy error does not match ${e.legacyError}`);
    } else if (e.mustFail || (status !== undefined && status !== 200)) fail('a success to a request that must fail');
    return problems;
  }
  if (answer.mmrpc !== '2.0') return [`a legacy answer to a v2 request: ${got}`];
  if (answer.id !== e.id) fail(`id ${JSON.stringify(answer.id)}, expected ${e.id}`);
  if ('result' in answer) {
    if (Object.keys(answer).join() !== 'mmrpc,result,id') fail('v2 success keys');
    if (e.mustFail || (status !== undefined && status !== 200)) fail('a success to a request that must fail');
    return problems;
  }
  const keys = Object.keys(answer);
  if (keys.join() !== V2_ERROR_KEYS.filter((k) => k !== 'error_data' || 'error_data' in answer).join()) fail('v2 error keys or their order');
  const type = String(answer.error_type);
  if (!KNOWN_TYPES.has(type)) fail('an unknown error type');
  if (type === ErrorType.InternalError && !(e.internalError?.test(String(answer.error)) ?? false)) fail('an internal error');
  if (e.errorTypes !== undefined && !e.errorTypes.includes(type)) fail(`expected ${e.errorTypes.join(' or ')}`);
  const documented = HTTP_STATUS[type as ErrorType];
  if (status !== undefined && status !== documented && !(OTHER_DOCUMENTED_STATUS.get(type)?.includes(status) ?? false)) fail(`HTTP ${status}, documented ${documented}`);
  if (!/^rpc\.[A-Za-z0-9_.:-]+$/.test(String(answer.error_path)) || !/^[A-Za-z0-9_.:-]+\]$/.test(String(answer.error_trace))) fail('error_path or error_trace');
  return problems;
}
