/**
 * The node list of an EVM platform request (docs/compatibility.md §7): at least one node, each
 * `url` `http(s)://` or `ws(s)://`, a `ws_url` `ws(s)://`. The reference reads only `url`, so every
 * node's `url` is tried first, in request order; the `ws_url`s follow, in the same order, as more
 * endpoints of their nodes. A node's `gateway_proxy` applies to both of its endpoints.
 */
import type { PlatformActivationCommand } from '../../actors/ports/chainFamily.ts';
import { hasScheme, planNodeUrls } from '../../actors/platformPlan.ts';
import { urlLabel } from '../../kernel/urlLabel.ts';
import { invalidRequest } from '../../spec/errors.ts';
import type { CoinEntry } from '../../spec/coins.ts';
import type { EvmEndpoint } from './evmNodes.ts';

/** URL schemes of EVM nodes: JSON-RPC over HTTP or over a WebSocket. */
export const EVM_NODE_SCHEMES = ['http', 'https', 'ws', 'wss'] as const;
const WEBSOCKET_SCHEMES = ['ws', 'wss'] as const;

/** The endpoints to try, in order; the first bad node is `InvalidRequest`, named by index and origin. */
export function planEvmNodes(command: PlatformActivationCommand): EvmEndpoint[] {
  const urls = planNodeUrls(command, EVM_NODE_SCHEMES, 'expected an http(s):// or ws(s):// URL');
  const wsUrls = command.nodes.flatMap((node, index) => {
    if (node.wsUrl === undefined) return [];
    if (!hasScheme(node.wsUrl, WEBSOCKET_SCHEMES)) throw invalidRequest(`nodes[${index}].ws_url ${urlLabel(node.wsUrl)}: expected a ws:// or wss:// URL`);
    return [{ url: node.wsUrl, gatewayProxy: node.gatewayProxy === true }];
  });
  return [...urls.map((url, index) => ({ url, gatewayProxy: command.nodes[index]!.gatewayProxy === true })), ...wsUrls];
}

/** The endpoints, each reading balances through the platform entry's `multicall_address` when it sets one. */
export function withMulticall(endpoints: readonly EvmEndpoint[], platform: CoinEntry): EvmEndpoint[] {
  const address = platform.multicall_address;
  return address === undefined ? [...endpoints] : endpoints.map((endpoint) => ({ ...endpoint, multicall: address }));
}
