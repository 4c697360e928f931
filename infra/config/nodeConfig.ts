/**
 * Turns the parsed `MM2.json` value into a typed {@link NodeSettings}: schema with defaults
 * (spec/config.ts), the `rpcip` address check and the password policy. Pure; secrets are wrapped
 * in {@link Secret} and never appear in an error message.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { NodeConfigFileSchema, nodeConfigFileValidator } from '../../spec/config.ts';
import type { SchemaProblem } from '../../spec/validate.ts';
import { ConfigError } from './configError.ts';
import { deepFreeze } from './deepFreeze.ts';
import { describePasswordViolations, passwordViolations } from './passwordPolicy.ts';
import { Secret } from './secret.ts';

/** The node settings from `MM2.json`, with defaults applied (coins excluded). */
export interface NodeSettings {
  readonly rpcPassword: Secret;
  readonly passphrase: Secret | undefined;
  readonly enableHd: boolean;
  readonly rpcip: string;
  readonly rpcport: number;
  /** Absolute path: `dbdir` resolved against the working directory. */
  readonly dbdir: string;
  readonly gui: string | undefined;
  readonly netid: number | undefined;
  readonly allowWeakPassword: boolean;
  /** Hardware-wallet transport (emulator-protocol UDP) and the waits of a hardware task. */
  readonly hardwareWallet: {
    readonly udpHost: string;
    readonly udpPort: number;
    readonly connectTimeoutMs: number;
    readonly pinTimeoutMs: number;
  };
  /** The inline `coins` array, when MM2.json has one (it then replaces the coins file). */
  readonly inlineCoins: readonly unknown[] | undefined;
  /** Keys this schema does not know, verbatim and frozen, for later features (`nats`, `node_id`, …). */
  readonly extras: Readonly<Record<string, unknown>>;
}

const KNOWN_KEYS = new Set(Object.keys(NodeConfigFileSchema.properties));

/** `must be <description>` for a top-level key, else the validator's own message. */
function explain(problem: SchemaProblem): string {
  const top = problem.field.split(/[.[]/)[0] ?? '';
  const schema = (NodeConfigFileSchema.properties as Record<string, { description?: string }>)[top];
  const expected = top === problem.field ? schema?.description : undefined;
  if (problem.message === 'Expected required property') return `is missing; must be ${expected ?? 'set'}`;
  return expected === undefined ? problem.message : `must be ${expected}`;
}

/**
 * Validates the parsed `MM2.json` value. `label` names the file in messages (e.g. `MM2.json`);
 * `cwd` resolves `dbdir`. Throws a one-line {@link ConfigError} on the first problem.
 */
export function parseNodeSettings(value: unknown, label: string, cwd: string): NodeSettings {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError('(root)', `${label}: must be a JSON object`);
  }
  const decoded = nodeConfigFileValidator.decode(value);
  if (!decoded.ok) {
    const { field } = decoded.problem;
    throw new ConfigError(field, `${label}: ${field}: ${explain(decoded.problem)}`);
  }
  const file = decoded.value;
  if (isIP(file.rpcip) === 0) {
    throw new ConfigError('rpcip', `${label}: rpcip: must be an IPv4 or IPv6 address`);
  }
  if (!file.allow_weak_password) {
    const violations = passwordViolations(file.rpc_password);
    if (violations.length > 0) {
      throw new ConfigError(
        'rpc_password',
        `${label}: rpc_password: ${describePasswordViolations(violations)}` +
          ' (or set "allow_weak_password": true to accept a weak password)',
      );
    }
  }
  const extras: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(file)) if (!KNOWN_KEYS.has(key)) extras[key] = v;
  return {
    rpcPassword: new Secret(file.rpc_password),
    passphrase: file.passphrase === undefined ? undefined : new Secret(file.passphrase),
    enableHd: file.enable_hd,
    rpcip: file.rpcip,
    rpcport: file.rpcport,
    dbdir: resolve(cwd, file.dbdir),
    gui: file.gui,
    netid: file.netid,
    allowWeakPassword: file.allow_weak_password,
    hardwareWallet: {
      udpHost: file.hardware_wallet.udp_host,
      udpPort: file.hardware_wallet.udp_port,
      connectTimeoutMs: Math.round(file.hardware_wallet.connect_timeout_s * 1000),
      pinTimeoutMs: Math.round(file.hardware_wallet.pin_timeout_s * 1000),
    },
    inlineCoins: file.coins,
    extras: deepFreeze(extras),
  };
}
