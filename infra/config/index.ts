/** Node and coins configuration (docs/compatibility.md §4, §5). */
export { CoinsConfig } from './coinsConfig.ts';
export { ConfigError, formatStartupError, isConfigError } from './configError.ts';
export { loadNodeConfig, type CoinsSource, type LoadNodeConfigOptions, type NodeConfig } from './loadConfig.ts';
export { parseNodeSettings, type NodeSettings } from './nodeConfig.ts';
export {
  PASSWORD_MIN_LENGTH,
  PasswordRule,
  describePasswordViolations,
  isStrongPassword,
  passwordViolations,
} from './passwordPolicy.ts';
export { Secret } from './secret.ts';
