/**
 * spec 2.2 PrivKeyPolicy on input, in every shape clients send (docs/compatibility.md §7, §17): a
 * bare string or `{"type": …}`, with the spec's names or the reference's (`Trezor`,
 * `WalletConnect`, `Metamask`), and a remote wallet's session topic in `data` (spec 2.2),
 * `params.session_topic` (the reference) or `session_topic` (the reference's SDK).
 */
import { Type, type Static } from '@sinclair/typebox';
import { invalidRequest } from './errors.ts';
import { acceptedNames, describeName, neutralName } from './wireNames.ts';

/** The spec's policy types. @default ContextPrivKey */
export const PolicyType = {
  ContextPrivKey: 'ContextPrivKey',
  RemoteWallet: 'RemoteWallet',
  BrowserWallet: 'BrowserWallet',
  Hardware: 'Hardware',
} as const;
export type PolicyType = (typeof PolicyType)[keyof typeof PolicyType];

/** Every accepted `type`: the spec's names and the reference's. */
export const PrivKeyPolicyType = Type.Union(acceptedNames('privKeyPolicy', Object.values(PolicyType)).map((name) => Type.Literal(name)));

/** A remote wallet's session topic (spec 2.2: typed as a list, shown as a string). */
const SessionTopic = Type.Union([Type.String(), Type.Array(Type.String())]);

export const PrivKeyPolicy = Type.Union([
  PrivKeyPolicyType,
  Type.Object({
    type: PrivKeyPolicyType,
    data: Type.Optional(SessionTopic),
    params: Type.Optional(Type.Object({ session_topic: Type.String() })),
    session_topic: Type.Optional(Type.String()),
  }),
]);
export type PrivKeyPolicy = Static<typeof PrivKeyPolicy>;

/** A policy read into the spec's names. */
export interface ReadPolicy {
  readonly type: PolicyType;
  /** The name the client sent, for messages (`Metamask (BrowserWallet)`). */
  readonly spoken: string;
}

/**
 * The policy's neutral type (`ContextPrivKey` when absent). A session topic belongs to a remote
 * wallet only and is given once: in any other policy, or twice, it is refused naming the field.
 * @param path the field as the request names it, e.g. `params.priv_key_policy`
 */
export function readPrivKeyPolicy(policy: PrivKeyPolicy | undefined, path: string): ReadPolicy {
  if (policy === undefined) return { type: PolicyType.ContextPrivKey, spoken: PolicyType.ContextPrivKey };
  const given = typeof policy === 'string' ? policy : policy.type;
  const type = neutralName('privKeyPolicy', given) as PolicyType;
  const spoken = describeName('privKeyPolicy', given);
  if (typeof policy === 'object') {
    const topics = [
      ['data', policy.data],
      ['params.session_topic', policy.params?.session_topic],
      ['session_topic', policy.session_topic],
    ].filter(([, value]) => value !== undefined);
    const [first, second] = topics;
    if (first !== undefined && type !== PolicyType.RemoteWallet) {
      // spec 2.2: the topic is a remote wallet's session, and nothing else has one.
      throw invalidRequest(`${path}.${first[0]}: only the RemoteWallet (WalletConnect) policy takes a session topic; remove it for ${spoken}`);
    }
    if (second !== undefined) {
      throw invalidRequest(`${path}.${second[0]}: the session topic is already given in ${path}.${first![0]}; give it once`);
    }
  }
  return { type, spoken };
}
