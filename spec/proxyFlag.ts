/**
 * The gateway-proxy flag of a node and of an NFT provider (spec 2.2 CoinNode `gateway_proxy`;
 * docs/compatibility.md §7, §17), under each name clients send it: `gateway_proxy` (the spec),
 * `komodo_proxy` (the reference) and `gui_auth` (the reference before its rename, still sent by its SDK).
 */
import { Type, type TBoolean, type TOptional } from '@sinclair/typebox';
import { invalidRequest } from './errors.ts';
import { acceptedNames } from './wireNames.ts';

/** Every name of the flag, the spec's first. */
const FLAG_NAMES = acceptedNames('proxyFlag', ['gateway_proxy']);

/**
 * The flag's fields for an object schema, each an optional boolean: sign each request with the
 * node's gateway-proxy identity (`X-Auth-Payload`). @default false
 */
export const ProxyFlagFields = Object.fromEntries(FLAG_NAMES.map((name) => [name, Type.Optional(Type.Boolean())])) as Record<
  'gateway_proxy' | 'komodo_proxy' | 'gui_auth',
  TOptional<TBoolean>
>;

/**
 * The flag as given under any of its names, or `undefined` when none is given. Names that
 * disagree are refused naming both, since either reading would drop what the other says.
 * @param path the object as the request names it, e.g. `params.nodes[0]`
 */
export function readProxyFlag(node: Readonly<Partial<Record<string, unknown>>>, path: string): boolean | undefined {
  const given = FLAG_NAMES.filter((name) => typeof node[name] === 'boolean');
  const [first] = given;
  if (first === undefined) return undefined;
  const value = node[first] as boolean;
  const other = given.find((name) => node[name] !== value);
  if (other !== undefined) {
    throw invalidRequest(`${path}.${other} (${String(node[other])}) disagrees with ${path}.${first} (${String(value)}): they name the same gateway-proxy flag; give one value`);
  }
  return value;
}
