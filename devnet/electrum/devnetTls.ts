/** The committed test-only TLS material for the devnet Electrum server (see certs/README.md). */
import { readFileSync } from 'node:fs';

/** A PEM private key and its PEM certificate, as `tls.createServer` takes them. */
export interface TlsKeyPair {
  key: string;
  cert: string;
}

export interface DevnetTls {
  /** The test CA: give it to a client as `ca` to trust `trusted`. */
  ca: string;
  /** Signed by `ca`, for IP:127.0.0.1 and DNS:localhost. */
  trusted: TlsKeyPair;
  /** Self-signed for the same names; no CA vouches for it, so verifying clients refuse it. */
  untrusted: TlsKeyPair;
}

const certFile = (name: string) => readFileSync(new URL(`./certs/${name}`, import.meta.url), 'utf8');

let loaded: DevnetTls | undefined;

/** Reads the certificates once (synchronously: they are tiny) and returns the same object after. */
export function devnetTls(): DevnetTls {
  loaded ??= {
    ca: certFile('ca.pem'),
    trusted: { key: certFile('server-key.pem'), cert: certFile('server.pem') },
    untrusted: { key: certFile('untrusted-key.pem'), cert: certFile('untrusted.pem') },
  };
  return loaded;
}
