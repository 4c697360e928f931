/**
 * Reads a TRON account the way docs/compatibility.md §11 describe (`getnowblock`, `getaccount`,
 * `triggerconstantcontract` `balanceOf(address)`), every call issued at once: one round trip of
 * wall time however many tokens. With a multicall contract (`route`) the token calls go out as
 * `aggregate3` chunks instead (tronMulticall.ts), falling back to one request per call.
 */
import type { PlannedToken } from '../../actors/platformPlan.ts';
import type { PlatformRead } from '../../actors/platformRead.ts';
import type { AddressRead } from '../../actors/hdScan.ts';
import { settleRoundTrip, TokenReadError } from '../failover/tokenReadError.ts';
import { evmToTronBase58 } from '../keys/tronAddress.ts';
import { int64, TronNodeError, type TronHttp, type TronJson } from './tronHttp.ts';
import { multicallWords, type ConstantAnswer, type TronMulticallRoute } from './tronMulticall.ts';

/** java-tron result codes that mean the node, not the contract, failed. */
const NODE_FAILURE_CODES = new Set(['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'OTHER_ERROR']);

/** The token functions read, by TRON `function_selector` and by 4-byte selector (for `aggregate3`). */
const TOKEN_FUNCTIONS = {
  balanceOf: { signature: 'balanceOf(address)', selector: '0x70a08231' },
  decimals: { signature: 'decimals()', selector: '0x313ce567' },
} as const;

/** One token call: `fn` of `token`, as `owner` (EVM form), with `parameter` (hex, no `0x`). */
interface TokenCall {
  readonly token: PlannedToken;
  readonly fn: keyof typeof TOKEN_FUNCTIONS;
  readonly owner: string;
  readonly parameter: string;
}

/**
 * The words of `calls`, each as its own promise: through the multicall `route` when given (one
 * request per chunk), else, or for any call the multicall could not answer, one request per call.
 */
function readWords(http: TronHttp, calls: readonly TokenCall[], route: TronMulticallRoute | undefined, signal: AbortSignal): Promise<bigint>[] {
  const plain = (call: TokenCall) =>
    constantCall(http, call.token, {
      owner_address: evmToTronBase58(call.owner),
      contract_address: call.token.contractAddress,
      function_selector: TOKEN_FUNCTIONS[call.fn].signature,
      parameter: call.parameter,
      visible: true,
    }, signal);
  if (route === undefined || calls.length === 0) return calls.map(plain);
  const items = calls.map((call) => ({ target: call.token.contractAddress, callData: `${TOKEN_FUNCTIONS[call.fn].selector}${call.parameter}` }));
  const words = multicallWords(http, items, evmToTronBase58(calls[0]!.owner), route, checkConstantAnswer, signal);
  return calls.map((call, i) => words.then((all) => all[i] ?? plain(call)));
}

/** balanceOf's argument: the owner's 20 bytes, left-padded to 32. */
const ownerWord = (owner: string) => owner.slice(2).toLowerCase().padStart(64, '0');

/**
 * Block height, TRX balance and every token balance of `owner` (an EVM-form 20-byte address), all
 * requested concurrently. Without `withBalances` only the block (and unknown decimals) is read. A
 * node failure is reported before a token failure, so failover tries the next node.
 */
export async function readTronAccount(
  http: TronHttp,
  owner: string,
  tokens: readonly PlannedToken[],
  withBalances: boolean,
  signal: AbortSignal,
  route?: TronMulticallRoute,
): Promise<PlatformRead> {
  const address = evmToTronBase58(owner);
  const block = http.post('/wallet/getnowblock', {}, signal).then(blockNumber);
  const native = withBalances ? http.post('/wallet/getaccount', { address, visible: true }, signal).then(accountBalance) : undefined;
  const calls = tokens.flatMap((token): TokenCall[] => [
    ...(withBalances ? [{ token, fn: 'balanceOf' as const, owner, parameter: ownerWord(owner) }] : []),
    ...(token.decimals === undefined ? [{ token, fn: 'decimals' as const, owner, parameter: '' }] : []),
  ]);
  const words = readWords(http, calls, route, signal);
  const wordOf = (token: PlannedToken, fn: TokenCall['fn']) => {
    const index = calls.findIndex((c) => c.token === token && c.fn === fn);
    return index < 0 ? undefined : words[index];
  };
  const tokenReads = tokens.map((token) => ({ token, balance: wordOf(token, 'balanceOf'), decimals: wordOf(token, 'decimals') }));
  await settleRoundTrip([block, native, ...tokenReads.flatMap((r) => [r.balance, r.decimals])]);
  return {
    currentBlock: await block,
    native: await native,
    tokens: await Promise.all(
      tokenReads.map(async ({ token, balance, decimals }) => {
        const value = decimals === undefined ? token.decimals! : Number(await decimals);
        if (value > 255) throw new TokenReadError(token.ticker, `decimals() returned ${value}`);
        return { ticker: token.ticker, decimals: value, balance: await balance };
      }),
    ),
  };
}

/**
 * An HD scan's read: the block, unknown decimals, and for every address (EVM form) whether the
 * account exists on chain (an activated TRON account has had a transaction), its TRX and token
 * balances; every call at once.
 */
export async function readTronAddresses(
  http: TronHttp,
  owners: readonly string[],
  tokens: readonly PlannedToken[],
  signal: AbortSignal,
  route?: TronMulticallRoute,
): Promise<{ currentBlock: number; decimals: number[]; addresses: AddressRead[] }> {
  const block = http.post('/wallet/getnowblock', {}, signal).then(blockNumber);
  const first = owners[0] ?? '0x0000000000000000000000000000000000000000';
  const unknownDecimals = tokens.filter((t) => t.decimals === undefined).map((token): TokenCall => ({ token, fn: 'decimals', owner: first, parameter: '' }));
  const balanceCalls = owners.flatMap((owner) => tokens.map((token): TokenCall => ({ token, fn: 'balanceOf', owner, parameter: ownerWord(owner) })));
  const words = readWords(http, [...unknownDecimals, ...balanceCalls], route, signal);
  const decimals = tokens.map((t) => (t.decimals === undefined ? words[unknownDecimals.findIndex((c) => c.token === t)]! : Promise.resolve(BigInt(t.decimals))));
  const balances = words.slice(unknownDecimals.length);
  const perAddress = owners.map((owner, o) => ({
    account: http.post('/wallet/getaccount', { address: evmToTronBase58(owner), visible: true }, signal),
    tokens: tokens.map((_, t) => balances[o * tokens.length + t]!),
  }));
  await settleRoundTrip([block, ...decimals, ...perAddress.flatMap((a) => [a.account, ...a.tokens])]);
  return {
    currentBlock: await block,
    decimals: (await Promise.all(decimals)).map(Number),
    addresses: await Promise.all(
      perAddress.map(async (a) => {
        const account = await a.account;
        return { txCount: Object.keys(account).length > 0 ? 1n : 0n, native: accountBalance(account), tokens: await Promise.all(a.tokens) };
      }),
    ),
  };
}

function blockNumber(answer: TronJson): number {
  const header = answer['block_header'] as { raw_data?: { number?: unknown } } | undefined;
  const number = int64(header?.raw_data?.number);
  if (number === undefined || number < 0n) throw new TronNodeError('getnowblock: no block_header.raw_data.number');
  return Number(number);
}

/** `getaccount`'s `balance` in SUN; `{}` is a never-activated account and a missing `balance` is zero (protobuf JSON). */
export function accountBalance(answer: TronJson): bigint {
  const balance = answer['balance'] === undefined ? 0n : int64(answer['balance']);
  if (balance === undefined || balance < 0n) throw new TronNodeError('getaccount: balance is not an integer');
  return balance;
}

/** One `triggerconstantcontract` whose result is a single 32-byte word. */
async function constantCall(http: TronHttp, token: PlannedToken, body: Record<string, unknown>, signal: AbortSignal): Promise<bigint> {
  const fn = String(body['function_selector']);
  const result = checkConstantAnswer(await http.post('/wallet/triggerconstantcontract', body, signal));
  if ('why' in result) throw new TokenReadError(token.ticker, `${fn} failed at ${token.contractAddress}: ${result.why}`);
  if (!/^[0-9a-fA-F]{64}/.test(result.hex)) {
    throw new TokenReadError(token.ticker, `${fn} returned no 32-byte value at ${token.contractAddress}`);
  }
  return BigInt(`0x${result.hex.slice(0, 64)}`);
}

/**
 * A `triggerconstantcontract` answer: `constant_result[0]` (hex, possibly empty), or why the
 * contract failed. A result code that means the node failed throws a `TronNodeError`.
 */
const checkConstantAnswer: ConstantAnswer = (answer) => {
  const result = (answer['result'] ?? {}) as { result?: unknown; code?: unknown; message?: unknown };
  const message = typeof result.message === 'string' ? hexText(result.message) : undefined;
  if (typeof result.code === 'string' && NODE_FAILURE_CODES.has(result.code)) {
    // java-tron's SERVER_BUSY says "ask later", as HTTP 429 does.
    const busy = result.code === 'SERVER_BUSY' ? { busy: {} } : {};
    throw new TronNodeError(`triggerconstantcontract: ${result.code}${message ? ` ${message}` : ''}`, busy);
  }
  if (result.result !== true || message !== undefined) return { why: message ?? (typeof result.code === 'string' ? result.code : 'no result') };
  const word = (answer['constant_result'] as unknown[] | undefined)?.[0];
  return { hex: typeof word === 'string' ? word : '' };
};

/** java-tron prints `bytes` fields (such as `result.message`) as hex; plain text passes through. */
function hexText(value: string): string {
  const text = /^(?:[0-9a-fA-F]{2})+$/.test(value) ? Buffer.from(value, 'hex').toString('utf8') : value;
  return text.replace(/[^\x20-\x7e]/g, '').slice(0, 200);
}
