/**
 * Entry point (`npm start`). With an MM2.json (path from `MM_CONF_PATH`, default `./MM2.json`) it
 * runs the service from it; with none at the default path it runs dev mode: a local devnet and a
 * generated config, all on 127.0.0.1. A bad config prints one line and exits non-zero; so does dev
 * mode on a production install (`npm ci --omit=dev`), which lacks the dev wing's packages.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, formatStartupError, isConfigError, loadNodeConfig } from './infra/config/index.ts';
import { missingDevPackages } from './scripts/devPackages.mjs';
import { startService } from './service.ts';

async function main(): Promise<void> {
  const explicitConf = process.env.MM_CONF_PATH !== undefined && process.env.MM_CONF_PATH !== '';
  const devMode = !explicitConf && !existsSync(resolve('MM2.json'));
  let stop: (signal: string) => Promise<void>;
  if (devMode) {
    const missing = missingDevPackages(import.meta.dirname);
    if (missing.length > 0) {
      const message = `no MM2.json here and MM_CONF_PATH is not set; dev mode needs the development packages, which a production install (npm ci --omit=dev) leaves out (missing: ${missing.join(', ')}): run npm ci for dev mode, or give the service an MM2.json`;
      throw new ConfigError('MM2.json', message);
    }
    const { startDevMode } = await import('./devnet/devMode/devMode.ts'); // the dev wing loads only here
    const dev = await startDevMode({ dir: resolve('.devnet') });
    process.stdout.write(dev.banner);
    stop = dev.stop;
  } else {
    const config = await loadNodeConfig();
    const service = await startService({ config });
    process.stdout.write(`coin-activation listening on ${service.url} (session ${service.sessionId})\n`);
    stop = service.stop;
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping\n`);
    stop(signal).then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`error while stopping: ${formatStartupError(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGQUIT', () => shutdown('SIGQUIT')); // as the reference, which stops on SIGINT, SIGTERM and SIGQUIT
}

main().catch((error: unknown) => {
  process.stderr.write(`coin-activation: ${formatStartupError(error)}\n`);
  process.exit(isConfigError(error) ? 2 : 1);
});
