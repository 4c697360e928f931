import { headers, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { rpcSubject } from '../events/jetstream/subjects.ts';
import type { Dispatcher, DispatchResult } from './dispatcher.ts';
import { consoleLog, type Log } from '../kernel/log.ts';

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

/**
 * RPC over NATS request-reply on `activation.rpc.<node_id>`: the same JSON bodies and answers as
 * HTTP (userpass included), the HTTP status in the `Rpc-Status` header, so an engine never needs
 * HTTP. Requests are answered concurrently, like HTTP requests.
 */
export function serveRpcOverNats(options: { nc: NatsConnection; nodeId: string; dispatcher: Dispatcher; log?: Log }): {
  readonly subject: string;
  stop(): Promise<void>;
} {
  const log = options.log ?? consoleLog;
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
      const h = headers();
      h.set(RPC_STATUS_HEADER, String(result.status));
      msg.respond(JSON.stringify(result.body), { headers: h });
    };
    const result = options.dispatcher.handle(msg.string(), { clientId: natsClientId(msg.reply) });
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
