/**
 * `npm run replay`: rebuilds every status projection from sequence 1 (JetStream or the embedded
 * log), prints its digest, and optionally checks or rewrites the KV bucket; `--history` lists one
 * coin's or one task's events. See `--help` (scripts/replayCli.ts).
 */
import { REPLAY_USAGE, runReplayCli } from './replayCli.ts';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`${REPLAY_USAGE}\n`);
} else {
  runReplayCli(argv, { stdout: process.stdout, stderr: process.stderr }).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`replay failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
