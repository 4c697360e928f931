/**
 * Reads a TRON account the way docs/compatibility.md §11 describe (`getnowblock`, `getaccount`,
 * `triggerconstantcontract` `balanceOf(address)`), every call issued at once: one round trip of
 * wall time however many tokens.
 */
import type { PlannedToken } from '../../actors/platformPlan.ts';
import type { PlatformRead } from '../../actors/platformRead.ts';
import type { AddressRead } from '../../actors/hdScan.ts';
import { settleRoundTrip, TokenReadError } from '../failover/tokenReadError.ts';
import { evmToTronBase58 } from '../keys/tronAddress.ts';
import { int64, TronNodeError, type TronHttp, type TronJson } from './tronHttp.ts';

/** java-tron result codes that mean the node, not the contract, failed. */
const NODE_FAILURE_CODES = new Set(['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'OTHER_ERROR']);

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
): Promise<PlatformRead> {
  const address = evmToTronBase58(owner);
  const parameter = owner.slice(2).toLowerCase().padStart(64, '0');
  const call = (token: PlannedToken, selector: string, param = '') =>
    constantCall(http, token, { owner_address: address, contract_address: token.contractAddress, function_selector: selector, parameter: param, visible: true }, signal);
  const block = http.post('/wallet/getnowblock', {}, signal).then(blockNumber);
  const native = withBalances ? http.post('/wallet/getaccount', { address, visible: true }, signal).then(accountBalance) : undefined;
  const tokenReads = tokens.map((token) => ({
    token,
    balance: withBalances ? call(token, 'balanceOf(address)', parameter) : undefined,
    decimals: token.decimals === undefined ? call(token, 'decimals()') : undefined,
  }));
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
): Promise<{ currentBlock: number; decimals: number[]; addresses: AddressRead[] }> {
  const call = (token: PlannedToken, owner: string, selector: string, param = '') =>
    constantCall(http, token, { owner_address: evmToTronBase58(owner), contract_address: token.contractAddress, function_selector: selector, parameter: param, visible: true }, signal);
  const block = http.post('/wallet/getnowblock', {}, signal).then(blockNumber);
  const decimals = tokens.map((t) => (t.decimals === undefined ? call(t, owners[0] ?? '0x0000000000000000000000000000000000000000', 'decimals()') : Promise.resolve(BigInt(t.decimals))));
  const perAddress = owners.map((owner) => ({
    account: http.post('/wallet/getaccount', { address: evmToTronBase58(owner), visible: true }, signal),
    tokens: tokens.map((t) => call(t, owner, 'balanceOf(address)', owner.slice(2).toLowerCase().padStart(64, '0'))),
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

/** `balance` in SUN; `{}` is a never-activated account and a missing `balance` is zero (protobuf JSON). */
function accountBalance(answer: TronJson): bigint {
  const balance = answer['balance'] === undefined ? 0n : int64(answer['balance']);
  if (balance === undefined || balance < 0n) throw new TronNodeError('getaccount: balance is not an integer');
  return balance;
}

/** One `triggerconstantcontract` whose result is a single 32-byte word. */
async function constantCall(http: TronHttp, token: PlannedToken, body: Record<string, unknown>, signal: AbortSignal): Promise<bigint> {
  const fn = String(body['function_selector']);
  const answer = await http.post('/wallet/triggerconstantcontract', body, signal);
  const result = (answer['result'] ?? {}) as { result?: unknown; code?: unknown; message?: unknown };
  const message = typeof result.message === 'string' ? hexText(result.message) : undefined;
  if (typeof result.code === 'string' && NODE_FAILURE_CODES.has(result.code)) {
    // java-tron's SERVER_BUSY says "ask later", as HTTP 429 does.
    const busy = result.code === 'SERVER_BUSY' ? { busy: {} } : {};
    throw new TronNodeError(`triggerconstantcontract: ${result.code}${message ? ` ${message}` : ''}`, busy);
  }
  if (result.result !== true || message !== undefined) {
    const why = message ?? (typeof result.code === 'string' ? result.code : 'no result');
    throw new TokenReadError(token.ticker, `${fn} failed at ${token.contractAddress}: ${why}`);
  }
  const word = (answer['constant_result'] as unknown[] | undefined)?.[0];
  if (typeof word !== 'string' || !/^[0-9a-fA-F]{64}/.test(word)) {
    throw new TokenReadError(token.ticker, `${fn} returned no 32-byte value at ${token.contractAddress}`);
  }
  return BigInt(`0x${word.slice(0, 64)}`);
}

/** java-tron prints `bytes` fields (such as `result.message`) as hex; plain text passes through. */
function hexText(value: string): string {
  const text = /^(?:[0-9a-fA-F]{2})+$/.test(value) ? Buffer.from(value, 'hex').toString('utf8') : value;
  return text.replace(/[^\x20-\x7e]/g, '').slice(0, 200);
}
