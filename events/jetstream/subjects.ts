/**
 * Names on NATS (docs/nats.md): the event stream, its subjects, the status KV bucket and
 * the RPC subject. Any ticker maps to one valid subject token, reversibly.
 */

export const EVENTS_STREAM = 'ACTIVATION_EVENTS';
export const STATUS_BUCKET = 'ACTIVATION_STATUS';
export const EVENTS_SUBJECT_ROOT = 'activation.events';

/** Kept as they are; anything else is escaped (valid in subjects and in KV keys alike). */
const PLAIN = /^[A-Za-z0-9_-]$/u;
const ALL_PLAIN = /^[A-Za-z0-9_-]+$/;

/**
 * Encodes `text` as one token valid both in a subject (no `.`, `*`, `>`, whitespace) and in a KV
 * key (only `[-/_=.A-Za-z0-9]`): every character outside `[A-Za-z0-9_-]` becomes `=XX` per UTF-8
 * byte, so ordinary tickers (`ETH`, `USDT-ERC20`) read as themselves. The empty string is `=`.
 */
export function encodeToken(text: string): string {
  if (text === '') return '=';
  if (ALL_PLAIN.test(text)) return text; // every ticker and task id of a replay: no per-character work
  let out = '';
  for (const ch of text) {
    out += PLAIN.test(ch) ? ch : [...Buffer.from(ch, 'utf8')].map((b) => `=${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** Reverses {@link encodeToken}. */
export function decodeToken(token: string): string {
  if (token === '=') return '';
  return token.replace(/(?:=[0-9A-F]{2})+/g, (run) => Buffer.from(run.replaceAll('=', ''), 'hex').toString('utf8'));
}

/** `coin.<TICKER>` / `task.<id>` / `node` (the log's stream names) → subject suffix tokens. */
function aggregateTokens(stream: string): string {
  const dot = stream.indexOf('.');
  if (dot === -1) return encodeToken(stream);
  return `${encodeToken(stream.slice(0, dot))}.${encodeToken(stream.slice(dot + 1))}`;
}

/** Subject of an aggregate's events: `activation.events.<node_id>.coin.<TICKER>` etc. */
export function eventSubject(nodeId: string, stream: string): string {
  return `${EVENTS_SUBJECT_ROOT}.${encodeToken(nodeId)}.${aggregateTokens(stream)}`;
}

/** Parses an event subject back to its node id and the log's stream name. */
export function parseEventSubject(subject: string): { nodeId: string; stream: string } | undefined {
  const prefix = `${EVENTS_SUBJECT_ROOT}.`;
  if (!subject.startsWith(prefix)) return undefined;
  const [node, kind, id, ...rest] = subject.slice(prefix.length).split('.');
  if (node === undefined || kind === undefined || rest.length > 0) return undefined;
  const nodeId = decodeToken(node);
  return { nodeId, stream: id === undefined ? decodeToken(kind) : `${decodeToken(kind)}.${decodeToken(id)}` };
}

/** KV key of an aggregate's status: `<node_id>.coin.<TICKER>` / `<node_id>.task.<id>`. */
export function statusKey(nodeId: string, stream: string): string {
  return `${encodeToken(nodeId)}.${aggregateTokens(stream)}`;
}

/** Request-reply subject of a node's RPC: `activation.rpc.<node_id>`. */
export function rpcSubject(nodeId: string): string {
  return `activation.rpc.${encodeToken(nodeId)}`;
}
