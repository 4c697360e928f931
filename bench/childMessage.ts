import type { ChildProcess } from 'node:child_process';

/**
 * The next IPC message from a bench's child process; rejects if the child exits first (named
 * `name` in the error). Either way both listeners are removed, so a later wait sees later messages.
 */
export function nextMessage<T>(child: ChildProcess, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: unknown) => {
      child.off('exit', onExit);
      resolve(message as T);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`${name} exited (${code})`));
    };
    child.once('message', onMessage);
    child.once('exit', onExit);
  });
}
