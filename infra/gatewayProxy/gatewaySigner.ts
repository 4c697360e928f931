/** Where a family gets the signer of its gateway-proxy requests, and the rule when it has none. */
import { ErrorType, errorSentence } from '../../spec/errors.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { KeyProvider } from '../../actors/ports/keyProvider.ts';
import { proxySigner, type ProxySigner } from './proxySign.ts';

/**
 * The signer made from the key provider's gateway-proxy identity on first use (an HD identity
 * costs a derivation), or `undefined` when the provider has none (no passphrase configured).
 */
export function gatewaySigner(keys: KeyProvider, clock: Clock): () => ProxySigner | undefined {
  let signer: ProxySigner | undefined;
  return () => {
    if (signer === undefined && keys.proxyIdentity !== undefined) signer = proxySigner(keys.proxyIdentity(), clock);
    return signer;
  };
}

/**
 * Refuses (`PrivKeyNotAllowed`) a node list with a gateway-proxy node when nothing can sign for it.
 * The identity is the service's, from its passphrase, whatever key activates the coin: a hardware
 * wallet's coin signs with it too, and without a passphrase no coin can use a gateway proxy.
 */
export function requireGatewaySigner(nodes: readonly { readonly gatewayProxy?: boolean }[], signer: () => ProxySigner | undefined): void {
  const index = nodes.findIndex((node) => node.gatewayProxy === true);
  if (index < 0 || signer() !== undefined) return;
  const message =
    `nodes[${index}].gateway_proxy: requests to a gateway proxy are signed with the node's identity key, ` +
    'which is derived from the passphrase in MM2.json, and none is configured';
  throw errorSentence(ErrorType.PrivKeyNotAllowed, message);
}
