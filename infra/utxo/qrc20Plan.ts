/**
 * The QRC20 part of legacy `electrum` and native `enable` (spec 4.6, 4.7; docs/compatibility.md
 * §9): the swap contracts the request must give, the token contract of the coins file, and which
 * daemon config a native token reads.
 */
import type { CoinsCatalog } from '../../actors/ports/coinsCatalog.ts';
import type { CoinEntry, CoinProtocol } from '../../spec/coins.ts';
import { ErrorType, errorSentence, invalidRequest } from '../../spec/errors.ts';

/** A QRC20 token as planned: its contract and the swap contracts of the request (40 hex digits, lower case, no `0x`). */
export interface Qrc20PlanParams {
  readonly contract: string;
  readonly swapContract: string;
  readonly fallbackSwapContract?: string;
}

type SwapContracts = Pick<Qrc20PlanParams, 'swapContract' | 'fallbackSwapContract'>;

const HEX40 = /^(?:0x)?([0-9a-fA-F]{40})$/;

/**
 * Checks the request's swap contracts as the reference reads them (an `H160`, then an
 * `Option<H160>`, both before anything else of a QRC20 request): `swap_contract_address` is
 * required, `fallback_swap_contract` may be omitted or `null`. The reasons are serde's for an
 * `H160` (a `0x`-prefixed hex string of length 40), after the field's name.
 */
export function planQrc20SwapContracts(request: { readonly swapContractAddress?: string | null; readonly fallbackSwapContract?: string | null }): SwapContracts {
  const swapContract = h160('swap_contract_address', request.swapContractAddress);
  const fallback = request.fallbackSwapContract;
  return fallback === undefined || fallback === null ? { swapContract } : { swapContract, fallbackSwapContract: h160('fallback_swap_contract', fallback) };
}

function h160(field: string, value: string | null | undefined): string {
  const refuse = (reason: string) => invalidRequest(`${field}: ${reason}`);
  const expected = 'a 0x-prefixed hex string with length of 40';
  if (value === undefined || value === null) throw refuse(`invalid type: null, expected ${expected}`);
  if (!value.startsWith('0x')) throw refuse('0x prefix is missing');
  if (value.length !== 42) throw refuse(`invalid length ${value.length - 2}, expected ${expected}`);
  const bad = /[^0-9a-fA-F]/.exec(value.slice(2));
  if (bad !== null) throw refuse(`invalid hex character: ${bad[0]}, at ${bad.index + 2}`);
  return value.slice(2).toLowerCase();
}

/**
 * The planned token once the rest of the request passed: the coins file's contract (`0x`
 * optional; else a `CoinProtocolParseError`) with the swap contracts. `undefined` for a coin.
 */
export function planQrc20Token(ticker: string, protocol: CoinProtocol, swapContracts: SwapContracts | undefined): Qrc20PlanParams | undefined {
  if (protocol.type !== 'QRC20' || swapContracts === undefined) return undefined;
  const contract = HEX40.exec(protocol.contractAddress)?.[1]?.toLowerCase();
  if (contract === undefined) throw errorSentence(ErrorType.CoinProtocolParseError, `${ticker}: QRC20 contract_address must be 40 hex digits`);
  return { ...swapContracts, contract };
}

/**
 * The coins entry a native QRC20 token's daemon is found by: its platform's (the QTUM daemon
 * serves its tokens), unless the token sets its own `confpath` or `rpcport`, which win as in the
 * reference. A platform missing from the coins file is looked for as the reference does, under
 * its ticker in lower case (`~/.qtum/qtum.conf`).
 */
export function qrc20DaemonEntry(token: CoinEntry, platform: string, coins: CoinsCatalog): CoinEntry {
  const base: CoinEntry = coins.find(platform) ?? { coin: platform, name: platform.toLowerCase() };
  return {
    ...base,
    ...(token.confpath === undefined ? {} : { confpath: token.confpath }),
    ...(token.rpcport === undefined ? {} : { rpcport: token.rpcport }),
  };
}
