import { parseArgs } from 'node:util';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { openStatusKv } from '../events/projector/statusKv.ts';
import { canonicalJson } from '../events/projections/canonicalJson.ts';
import { embeddedLogSource, jetStreamSource, replay, type ReplaySource } from '../events/replay/replay.ts';
import { formatHistoryLine, history, type HistorySubject } from '../events/replay/replayHistory.ts';
import { kvDigest, writeStateToKv } from '../events/replay/replayKv.ts';
import { progressPrinter, rate, type ProgressOutput } from '../events/replay/replayProgress.ts';

/** Usage of `npm run replay`. */
export const REPLAY_USAGE = `usage: npm run replay -- (--nats <url> | --dbdir <path>) [options]

Rebuilds every status projection from sequence 1 and prints its digest (sha256 of the whole
state as sorted-key JSON): two replays of the same events print the same digest.

  --nats <url>            read the stream ACTIVATION_EVENTS (and use the KV bucket there)
  --dbdir <path>          read the embedded event log in <path> instead (read-only, no lock)
  --node <id>             only this node's events (and the node id of log events without one)
  --check-kv              compare with the KV bucket ACTIVATION_STATUS (exit 1 if it differs)
  --write-kv              rewrite the KV bucket from the replay (keys newer than it are kept)
  --state                 print the whole replayed state as JSON
  --history coin <TICKER> print one coin's full history, one line per event:
  --history task <id>       <seq> <time> <node> <type> <data JSON>`;

/** Where the CLI writes: results on `stdout`, progress and summaries on `stderr`. */
export interface CliIo {
  readonly stdout: ProgressOutput;
  readonly stderr: ProgressOutput;
}

/** Runs the replay CLI with `argv` (without `node script`); resolves with the exit code. */
export async function runReplayCli(argv: readonly string[], io: CliIo): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${REPLAY_USAGE}\n`);
    return 2;
  }
  const nc = args.nats === undefined ? undefined : await connect({ servers: args.nats, name: 'replay', timeout: 5_000 });
  try {
    const source = args.dbdir !== undefined ? await embeddedLogSource(args.dbdir, { node: args.node }) : await jetStreamSource(nc!, { node: args.node });
    if (args.history !== undefined) return await printHistory(source, args.history, io);
    return await rebuild(source, nc, args, io);
  } finally {
    await nc?.close();
  }
}

async function rebuild(source: ReplaySource, nc: NatsConnection | undefined, args: ReturnType<typeof parse>, io: CliIo): Promise<number> {
  const progress = progressPrinter(io.stderr);
  const result = await replay(source, { node: args.node, onProgress: (p) => progress.update(p) });
  progress.finish();
  io.stderr.write(`replayed ${result.events} events in ${(result.elapsedMs / 1000).toFixed(2)} s (${rate(result.events, result.elapsedMs)} events/s)\n`);
  const out = (label: string, value: string | number) => io.stdout.write(`${label.padEnd(8)}${value}\n`);
  out('source', source.description);
  out('events', result.events);
  if (result.refused > 0) out('refused', result.refused);
  out('keys', result.state.size);
  out('digest', result.digest);
  if (args.state) io.stdout.write(`${canonicalJson(result.state.toObject())}\n`);
  if (nc === undefined) return 0;
  const kv = await openStatusKv(nc);
  if (args.writeKv) {
    const nodes = args.node !== undefined ? [args.node] : args.dbdir !== undefined ? nodesOf(result.state) : undefined;
    const r = await writeStateToKv(kv, result.state, nodes === undefined ? {} : { nodes });
    out('kv', `written ${r.written}, unchanged ${r.unchanged}, deleted ${r.deleted}, kept ${r.kept}`);
  }
  if (args.checkKv) {
    const digest = await kvDigest(kv, args.node === undefined ? {} : { node: args.node });
    out('kv', `${digest} (${digest === result.digest ? 'matches' : 'DIFFERS'})`);
    if (digest !== result.digest) return 1;
  }
  return 0;
}

async function printHistory(source: ReplaySource, subject: HistorySubject, io: CliIo): Promise<number> {
  let lines = 0;
  for await (const entry of history(source, subject)) {
    io.stdout.write(`${formatHistoryLine(entry)}\n`);
    lines++;
  }
  const what = subject.kind === 'coin' ? `coin ${subject.ticker}` : `task ${subject.taskId}`;
  io.stderr.write(`${lines} events of ${what}\n`);
  return 0;
}

function nodesOf(state: { entries(): [string, { nodeId: string }][] }): string[] {
  return [...new Set(state.entries().map(([, v]) => v.nodeId))];
}

function parse(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      nats: { type: 'string' },
      dbdir: { type: 'string' },
      node: { type: 'string' },
      history: { type: 'string' },
      'write-kv': { type: 'boolean', default: false },
      'check-kv': { type: 'boolean', default: false },
      state: { type: 'boolean', default: false },
    },
  });
  if (values.nats === undefined && values.dbdir === undefined) throw new Error('give --nats <url> or --dbdir <path>');
  if ((values['write-kv'] || values['check-kv']) && values.nats === undefined) throw new Error('--write-kv and --check-kv need --nats <url>');
  const node = values.node;
  let subject: HistorySubject | undefined;
  if (values.history !== undefined) {
    const id = positionals[0];
    if (positionals.length !== 1 || id === undefined) throw new Error('--history coin <TICKER> | --history task <id>');
    if (values.history === 'coin') subject = { kind: 'coin', ticker: id, ...(node === undefined ? {} : { node }) };
    else if (values.history === 'task' && /^\d+$/.test(id)) subject = { kind: 'task', taskId: Number(id), ...(node === undefined ? {} : { node }) };
    else throw new Error('--history coin <TICKER> | --history task <id>');
  } else if (positionals.length > 0) {
    throw new Error(`unexpected argument ${positionals[0]}`);
  }
  return {
    nats: values.nats,
    dbdir: values.dbdir,
    node,
    history: subject,
    writeKv: values['write-kv'] === true,
    checkKv: values['check-kv'] === true,
    state: values.state === true,
  };
}
