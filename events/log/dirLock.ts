import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Takes an exclusive lock on `dir` (a `LOCK` file holding our pid) so two processes never append to
 * one log. A lock left by a process that no longer runs (crash, kill -9) is taken over.
 * Resolves with the release function.
 */
export async function acquireDirLock(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(path, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      return async () => {
        await rm(path, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new Error(`${dir} is in use by another running service (pid ${holder})`);
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
