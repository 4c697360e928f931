/** Runs statusLoad.ts in a child process (its own event loop and core) and hands it runs. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nextMessage } from './childMessage.ts';
import type { LoadResult, LoadRun } from './statusLoad.ts';

type Reply = { type: 'ready' } | { type: 'result'; result: LoadResult } | { type: 'failed'; error: string };

export interface LoadGenerator {
  run(run: LoadRun): Promise<LoadResult>;
  stop(): Promise<void>;
}

export async function startLoadGenerator(): Promise<LoadGenerator> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./statusLoad.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () => nextMessage<Reply>(child, 'load generator');
  const ready = await next();
  if (ready.type !== 'ready') throw new Error(`load generator did not start: ${JSON.stringify(ready)}`);
  return {
    async run(run) {
      const reply = next();
      child.send({ type: 'run', run });
      const answer = await reply;
      if (answer.type === 'result') return answer.result;
      throw new Error(`load run failed: ${answer.type === 'failed' ? answer.error : JSON.stringify(answer)}`);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'exit' });
      await exited;
    },
  };
}
