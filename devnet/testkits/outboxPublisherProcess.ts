/**
 * A process that only publishes an outbox (for tests that kill it mid-pipeline): opens the log in
 * `argv[3]` as node `argv[4]`, publishes to the nats-server at `argv[2]`, saves its mark often,
 * prints `publishing` once started, and runs until killed.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { EmbeddedEventLog } from '../../events/log/embeddedEventLog.ts';
import { startOutboxPublisher } from '../../events/outbox/outboxPublisher.ts';

const [url, dir, nodeId] = process.argv.slice(2) as [string, string, string];
const outbox = await EmbeddedEventLog.open({ dir, sessionId: randomUUID(), nodeId });
const nc = await connect({ servers: url, noAsyncTraces: true });
await startOutboxPublisher({ outbox, nc, nodeId, markFile: join(dir, 'published.seq'), markBatching: { everyEvents: 50, everyMs: 10 }, maxInFlight: 64 });
process.stdout.write('publishing\n');
