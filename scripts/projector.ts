/**
 * `npm run projector`: the status projector as its own process (a cluster runs one set of them,
 * sharing a durable consumer). Stops cleanly on SIGINT/SIGTERM. See scripts/projectorCli.ts.
 */
import { consoleLog } from '../kernel/log.ts';
import { PROJECTOR_USAGE, parseProjectorArgs, runProjectorProcess } from './projectorCli.ts';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`${PROJECTOR_USAGE}\n`);
} else {
  let options: ReturnType<typeof parseProjectorArgs> | undefined;
  try {
    options = parseProjectorArgs(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${PROJECTOR_USAGE}\n`);
    process.exitCode = 2;
  }
  if (options !== undefined) {
    const stop = new AbortController();
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        consoleLog.info('projector: stopping', { signal: sig });
        stop.abort();
      });
    }
    runProjectorProcess(options, consoleLog, stop.signal).then(
      () => (process.exitCode = 0),
      (error: unknown) => {
        consoleLog.error('projector: failed', { error: String(error) });
        process.exitCode = 1;
      },
    );
  }
}
