import type { ActivationRequest } from '../../actors/coinRequests.ts';
import { isLegacyVia, type ActivationVia } from '../../machines/activation.types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The coin and token tickers of an activation request read from its raw params, before the schema
 * checks them, so "already activated" can come first (docs/compatibility.md §12). The legacy forms
 * name their coin in `coin` and list no tokens; the v2 forms name it in `ticker` and list the
 * string `ticker`s of `erc20_tokens_requests`. Undefined when the coin is not a string: the schema
 * then says why.
 */
export function rawActivationRequest(raw: unknown, via: ActivationVia): ActivationRequest | undefined {
  const legacy = isLegacyVia(via);
  const ticker = isObject(raw) ? raw[legacy ? 'coin' : 'ticker'] : undefined;
  if (!isObject(raw) || typeof ticker !== 'string') return undefined;
  const requests = raw.erc20_tokens_requests;
  const tokens =
    !legacy && Array.isArray(requests) ? requests.flatMap((r: unknown) => (isObject(r) && typeof r.ticker === 'string' ? [r.ticker] : [])) : [];
  return { ticker, via, tokens };
}

/** A method's `admit` for activation form `via`: refuses at once a request whose coin or tokens are already activated. */
export function admitActivation(assertCanActivate: (request: ActivationRequest) => void, via: ActivationVia): (raw: unknown) => void {
  return (raw) => {
    const request = rawActivationRequest(raw, via);
    if (request !== undefined) assertCanActivate(request);
  };
}
