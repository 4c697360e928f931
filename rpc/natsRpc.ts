import { headers, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { rpcSubject } from '../events/jetstream/subjects.ts';
import type { Dispatcher, DispatchResult } from './dispatcher.ts';
import { consoleLog, type Log } from '../kernel/log.ts';
import { resultText } from './json.ts';
import { bodyTooLarge, decodeUtf8, DEFAULT_MAX_BODY_BYTES, NOT_UTF8 } from './limits.ts';

/** Header carrying the HTTP status the same request would get over HTTP. */
export const RPC_STATUS_HEADER = 'Rpc-Status';

/**
 * The lockout identity of a NATS caller: its reply inbox prefix (`_INBOX.<nuid>`), which is one
 * per client connection, as an IP address is one per HTTP client.
 */
export function natsClientId(reply: string | undefined): string {
  if (reply === undefined) return 'nats:no-reply';
  return `nats:${reply.split('.').slice(0, 2).join('.')}`;
}

export interface NatsRpcOptions {
  readonly nc: NatsConnection;
  readonly nodeId: string;
  readonly dispatcher: Dispatcher;
  readonly log?: Log;
  /**
   * Largest accepted body, as over HTTP; larger ones get 413 without being parsed.
   * @default 1 MiB ({@link DEFAULT_MAX_BODY_BYTES})
   */
  readonly maxBodyBytes?: number;
}

/**
 * RPC over NATS request-reply on `activation.rpc.<node_id>`: the same JSON bodies and answers as
 * HTTP (userpass included, the same body bounds), the HTTP status in the `Rpc-Status` header, so
 * an engine never needs HTTP. Requests are answered concurrently, like HTTP requests.
 */
export function serveRpcOverNats(options: NatsRpcOptions): {
  readonly subject: string;
  stop(): Promise<void>;
} {
  const log = options.log ?? consoleLog;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const subject = rpcSubject(options.nodeId);
  const sub = options.nc.subscribe(subject, {
    callback: (error, msg) => {
      if (error) return log.warn('nats rpc subscription error', { error: error.message });
      answer(msg);
    },
  });
  const answer = (msg: Msg): void => {
    if (msg.reply === undefined) return; // nothing to answer to
    const respond = (result: DispatchResult): void => {
      const out = resultText(result, (e) => log.error('nats rpc response is not serialisable', { error: String(e) }));
      const h = headers();
      h.set(RPC_STATUS_HEADER, String(out.status));
      msg.respond(out.text, { headers: h });
    };
    if (msg.data.length > maxBodyBytes) return respond({ status: 413, body: bodyTooLarge(maxBodyBytes) });
    const text = decodeUtf8(msg.data);
    if (text === undefined) return respond(NOT_UTF8);
    const result = options.dispatcher.handle(text, { clientId: natsClientId(msg.reply) });
    if (result instanceof Promise) result.then(respond, (e: unknown) => log.error('nats rpc failed', { error: String(e) }));
    else respond(result);
  };
  log.info('rpc listening on nats', { subject });
  return {
    subject,
    async stop() {
      await sub.drain();
    },
  };
}
