import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog } from './embeddedEventLog.ts';
import { eventLogContract } from '../../devnet/testkits/eventLogContract.ts';

eventLogContract('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'log-contract-'));
  const open = () => EmbeddedEventLog.open({ dir, sessionId: randomUUID(), nodeId: 'contract-node', fsync: false });
  return {
    log: await open(),
    reopen: open,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
