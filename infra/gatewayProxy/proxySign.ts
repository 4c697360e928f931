/**
 * The authentication a gateway proxy expects from a node marked `gateway_proxy: true`
 * (docs/compatibility.md §7), built as the reference builds it: a `ProxySign` JSON object holding
 * the request's URI and body size, the signer's public key and an expiry, the ed25519 signature of
 * those, and the signer's peer id. Over HTTP it travels in the `X-Auth-Payload` header; over a
 * WebSocket, as a `proxy_sign` member of each JSON-RPC call (a socket message has no headers).
 */
import type { Clock } from '../../kernel/clock.ts';
import type { ProxyIdentity } from '../../actors/ports/keyProvider.ts';

/** The HTTP header that carries the signed payload. */
export const X_AUTH_PAYLOAD = 'X-Auth-Payload';

/**
 * Seconds a signature stays valid, the reference's value; proxies refuse one that expires more than
 * 15 s ahead or has expired.
 * @default 15
 */
export const PROXY_SIGN_LIFETIME_S = 15;

/** The signed payload in the reference's JSON form (byte arrays as arrays of numbers). */
export interface ProxySign {
  readonly signature_bytes: number[];
  readonly address: string;
  readonly raw_message: {
    readonly uri: string;
    readonly body_size: number;
    readonly public_key_encoded: number[];
    readonly expires_at: number;
  };
}

/** Signs requests to gateway-proxy nodes. */
export interface ProxySigner {
  /** The payload for one request of `bodySize` bytes to `url`, valid for 15 s from now. */
  sign(url: string, bodySize: number): ProxySign;
}

const PREFIX = new TextEncoder().encode('Encoded Message for KDP\n');

/** A signer with `identity`, its expiry on `clock`. */
export function proxySigner(identity: ProxyIdentity, clock: Clock): ProxySigner {
  const publicKey = identity.publicKeyEncoded;
  return {
    sign(url, bodySize) {
      // The reference signs its parsed `http::Uri`, which writes "/" for an empty path, as does `href`.
      const uri = new URL(url).href;
      const expiresAt = Math.floor(clock.now() / 1000) + PROXY_SIGN_LIFETIME_S;
      const signature = identity.sign(signedBytes(publicKey, uri, bodySize, expiresAt));
      return {
        signature_bytes: [...signature],
        address: identity.peerId,
        raw_message: { uri, body_size: bodySize, public_key_encoded: [...publicKey], expires_at: expiresAt },
      };
    },
  };
}

/**
 * What is signed: the prefix, the public key, the URI, then the body size and the expiry as 64-bit
 * little-endian integers (the reference's `usize`/`i64` in native order on its 64-bit targets).
 */
function signedBytes(publicKey: Uint8Array, uri: string, bodySize: number, expiresAt: number): Uint8Array {
  const uriBytes = new TextEncoder().encode(uri);
  const numbers = new DataView(new ArrayBuffer(16));
  numbers.setBigUint64(0, BigInt(bodySize), true);
  numbers.setBigInt64(8, BigInt(expiresAt), true);
  const bytes = new Uint8Array(PREFIX.length + publicKey.length + uriBytes.length + 16);
  bytes.set(PREFIX, 0);
  bytes.set(publicKey, PREFIX.length);
  bytes.set(uriBytes, PREFIX.length + publicKey.length);
  bytes.set(new Uint8Array(numbers.buffer), bytes.length - 16);
  return bytes;
}
