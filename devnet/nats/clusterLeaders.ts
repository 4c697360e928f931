import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/** A raft group of the cluster whose leader a test watches: a stream, or a consumer of one. */
export interface RaftGroup {
  readonly stream: string;
  readonly consumer?: string;
}

/** Its leader's `server_name` as the cluster answers now (undefined: no answer or no leader). */
export async function leaderOf(jsm: JetStreamManager, group: RaftGroup): Promise<string | undefined> {
  try {
    const info = group.consumer === undefined ? await jsm.streams.info(group.stream) : await jsm.consumers.info(group.stream, group.consumer);
    return info.cluster?.leader;
  } catch {
    return undefined;
  }
}

/**
 * Resolves with the time (`Date.now()`) at which the cluster first named a leader of `group` other
 * than `lost`: asks every `everyMs` without waiting for earlier questions (each waits at most
 * `answerMs`), so the time is that of the first answer, not of a polling round.
 */
export async function newLeaderAt(nc: NatsConnection, group: RaftGroup, lost: string, options: { everyMs?: number; answerMs?: number; withinMs?: number } = {}): Promise<{ at: number; leader: string }> {
  const jsm = await jetstreamManager(nc, { timeout: options.answerMs ?? 500, checkAPI: false });
  const deadline = Date.now() + (options.withinMs ?? 30_000);
  return new Promise((resolve, reject) => {
    let done = false;
    const ask = async () => {
      while (!done) {
        if (Date.now() > deadline) {
          done = true;
          reject(new Error(`no new leader of ${group.stream}${group.consumer === undefined ? '' : `/${group.consumer}`} within the deadline`));
          return;
        }
        void leaderOf(jsm, group).then((leader) => {
          if (done || leader === undefined || leader === lost) return;
          done = true;
          resolve({ at: Date.now(), leader });
        });
        await sleep(options.everyMs ?? 50);
      }
    };
    void ask();
  });
}

/**
 * Resolves once every replica of `stream` is online and current (a restarted server has caught
 * up): what a read through a new ephemeral consumer, which the server may place on any replica,
 * needs in order to see every message.
 */
export async function untilReplicasCurrent(nc: NatsConnection, stream: string, withinMs = 30_000): Promise<void> {
  const jsm = await jetstreamManager(nc, { timeout: 1_000, checkAPI: false });
  for (const deadline = Date.now() + withinMs; ; ) {
    const info = await jsm.streams.info(stream).catch(() => undefined);
    const replicas = info?.cluster?.replicas;
    const wanted = (info?.config.num_replicas ?? 1) - 1;
    if (info?.cluster?.leader !== undefined && replicas?.length === wanted && replicas.every((r) => r.current && r.offline !== true)) return;
    if (Date.now() > deadline) throw new Error(`the replicas of ${stream} did not catch up: ${JSON.stringify(info?.cluster)}`);
    await sleep(100);
  }
}
