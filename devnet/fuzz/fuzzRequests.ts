/**
 * A seeded stream of bad requests for the whole RPC: every method of the table in legacy and v2
 * form, mutated params (see `mutations.ts`), broken envelopes, batches and bodies that are not
 * requests at all. Each case carries what docs/rpc.md says its answer must be, worked out here
 * from the documented order of checks: body → `mmrpc` version → nesting → envelope → password →
 * method lookup → params.
 */
import type { SeededRandom } from '../testing/seededRandom.ts';
import { deepPlaceholder, toJsonText } from './deepNesting.ts';
import { expectation, type Expected, type MethodSpec } from './expectations.ts';
import { PROTOTYPE_KEYS, mutate } from './mutations.ts';
import { sitesOf, validInstance, type StringFor } from './schemaValues.ts';

export type { Expected, MethodSpec } from './expectations.ts';

/** One body to send, and what must come back. */
export interface FuzzCase {
  readonly label: string;
  readonly body: string | Uint8Array;
  /** Per request (one for a single request, one per element for a batch), or a body-level failure. */
  readonly expected: readonly Expected[] | { readonly status: 413 | 500 };
  readonly batch: boolean;
  /** Cannot travel over NATS (larger than its `max_payload`). */
  readonly httpOnly?: boolean;
}

export interface FuzzRequestOptions {
  readonly rand: SeededRandom;
  readonly methods: readonly MethodSpec[];
  readonly password: string;
  readonly stringFor: StringFor;
  /** Largest body the service reads (413 beyond). */
  readonly maxBodyBytes: number;
}

const UNKNOWN_NAMES = ['nope', '', 'ENABLE', 'enable ', ...PROTOTYPE_KEYS];
const GARBAGE = ['', '{', '{"mmrpc":"2.0",}', 'nul', '{"method":"enable","coin":"KMD"', '\u0000', '[1,]', '{"a":1}{"b":2}'];

/** A body of one request. */
function single(one: { text: string; expected: Expected }): FuzzCase {
  return { label: one.expected.label, body: one.text, expected: [one.expected], batch: false };
}

export class FuzzRequests {
  readonly #o: FuzzRequestOptions;
  /** A wrong password was sent last: never two in a row, so the caller is never locked out. */
  #wrongLast = false;

  constructor(options: FuzzRequestOptions) {
    this.#o = options;
  }

  next(): FuzzCase {
    const { rand } = this.#o;
    const roll = rand.next();
    if (roll < 0.06) return this.#bodyLevel();
    if (roll < 0.16) {
      const elements = Array.from({ length: rand.int(0, 4) }, () => (rand.chance(0.1) ? this.#notAnObject() : this.#request(2)));
      return { label: `batch of ${elements.length}: ${elements.map((e) => e.expected.label).join(' | ')}`, body: `[${elements.map((e) => e.text).join(',')}]`, expected: elements.map((e) => e.expected), batch: true };
    }
    return single(this.#request(1));
  }

  /** A body that is not a request: not JSON, not UTF-8, too large. */
  #bodyLevel(): FuzzCase {
    const { rand, maxBodyBytes } = this.#o;
    const kind = rand.int(0, 3);
    if (kind === 0) return { label: 'a body larger than the limit', body: JSON.stringify('x'.repeat(maxBodyBytes)), expected: { status: 413 }, batch: false, httpOnly: true };
    if (kind === 1) return { label: 'bytes that are not UTF-8', body: new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), expected: { status: 500 }, batch: false };
    if (kind === 2) {
      const text = rand.pick(GARBAGE);
      return { label: `not JSON: ${JSON.stringify(text)}`, body: text, expected: { status: 500 }, batch: false };
    }
    const invalid: Expected = { label: '', form: 'v2', id: null, errorTypes: ['InvalidRequest'], mustFail: true };
    if (rand.chance(0.3)) {
      // A body of arrays alone is a batch whose one element is no object.
      return { label: 'a body of 40,000 nested arrays', body: toJsonText(deepPlaceholder(40_000)), expected: [{ ...invalid, label: 'deep arrays' }], batch: true };
    }
    if (rand.chance(0.3)) {
      const body = `${'{"a":'.repeat(30_000)}0${'}'.repeat(30_000)}`;
      return { label: 'a body of 30,000 nested objects', body, expected: [{ ...invalid, label: 'deep objects' }], batch: false };
    }
    return single(this.#notAnObject());
  }

  /** A JSON scalar where a request object belongs. */
  #notAnObject(): { text: string; expected: Expected } {
    const value = this.#o.rand.pick<unknown>([null, 5, 'x', true]);
    return { text: JSON.stringify(value), expected: { label: `${JSON.stringify(value)} as a request`, form: 'v2', id: null, errorTypes: ['InvalidRequest'], mustFail: true } };
  }

  /**
   * The deterministic part: every method with every ticker (the request otherwise valid), then a
   * wrong type in every field of every method (each optional field present).
   */
  sweep(tickers: readonly string[]): FuzzCase[] {
    const { rand, methods, stringFor } = this.#o;
    const cases: FuzzCase[] = [];
    for (const method of methods) {
      const legacyBody = method.version === 'legacy';
      for (const ticker of tickers) {
        const withTicker: StringFor = (field, schema) => (field === 'ticker' || field === 'coin' ? ticker : stringFor(field, schema));
        cases.push(single(this.#build(1, method, legacyBody, validInstance(method.schema, '', rand, withTicker), ticker, false)));
      }
      const full = validInstance(method.schema, '', rand, stringFor, 1);
      for (const site of sitesOf(method.schema, full, legacyBody ? 1 : 2)) {
        if (legacyBody && site.path.length === 0) continue;
        const { root, label } = mutate(structuredClone(full), site, rand, 'wrongType');
        cases.push(single(this.#build(1, method, legacyBody, root, label, false)));
      }
    }
    return cases;
  }

  /** One random request object at `level` (1: the body; 2: a batch element). */
  #request(level: number): { text: string; expected: Expected } {
    const { rand, methods, stringFor } = this.#o;
    const method = rand.pick(methods);
    const legacyBody = method.version === 'legacy' ? rand.chance(0.8) : rand.chance(0.1);
    const paramsLevel = legacyBody ? level : level + 1;
    let params = validInstance(method.schema, '', rand, stringFor);
    const mutations: string[] = [];
    for (let n = rand.chance(0.15) ? 0 : rand.int(1, 2); n > 0; n--) {
      const sites = sitesOf(method.schema, params, paramsLevel).filter((s) => !legacyBody || s.path.length > 0);
      if (sites.length === 0) break;
      const done = mutate(params, rand.pick(sites), rand);
      params = done.root;
      mutations.push(done.label);
    }
    return this.#build(level, method, legacyBody, params, mutations.join(', ') || 'unchanged', true);
  }

  /** The request object around `params`, its envelope intact or (`hostileEnvelope`) sometimes broken. */
  #build(level: number, method: MethodSpec, legacyBody: boolean, params: unknown, what: string, hostileEnvelope: boolean): { text: string; expected: Expected } {
    const { rand, methods, password } = this.#o;
    const chance = (p: number) => hostileEnvelope && rand.chance(p);
    const body: Record<string, unknown> = legacyBody ? {} : { mmrpc: '2.0' };
    const userpass = hostileEnvelope ? this.#userpass() : password;
    if (userpass !== undefined) body.userpass = userpass;
    body.method = chance(0.02) ? rand.pick([5, null, ['enable']]) : chance(0.04) ? rand.pick(UNKNOWN_NAMES) : method.name;
    if (legacyBody) Object.assign(body, params);
    else if (!(chance(0.1) && params !== null && typeof params === 'object' && Object.keys(params).length === 0)) body.params = params;
    if (!legacyBody && chance(0.1)) body.mmrpc = rand.pick(['1.0', 2, '', true, '2.0 ', null]);
    if (!legacyBody && chance(0.1) && body.mmrpc === '2.0') delete body.mmrpc; // a v2 name without mmrpc
    if (chance(0.4)) body.id = rand.pick([0, 7, 2 ** 53 + 10, -1, 1.5, '3', null, []]);
    if (chance(0.06)) Object.defineProperty(body, rand.pick(['x_extra', ...PROTOTYPE_KEYS]), { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
    const label = `${legacyBody ? 'legacy' : 'v2'} ${JSON.stringify(body.method)} (${what})`;
    return { text: toJsonText(body), expected: expectation(body, { label, level, methods, password }) };
  }

  /** Mostly the password; sometimes none, `null`, a number, or (never twice in a row) a wrong one. */
  #userpass(): unknown {
    const { rand, password } = this.#o;
    const roll = rand.next();
    const wrong = roll < 0.03 && !this.#wrongLast;
    this.#wrongLast = wrong;
    if (wrong) return 'Wrong-pass-123!';
    if (roll < 0.05) return rand.pick([undefined, null, 5]);
    return password;
  }
}

