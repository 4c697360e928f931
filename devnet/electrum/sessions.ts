/** Electrum sessions over any transport: one protocol state per connection, messages answered in order. */
import { answerMessage, notificationText, requestedMethods } from './jsonRpcFraming.ts';
import { newSessionState, type SessionState } from './methodContext.ts';
import type { ConnectionHandler } from './transports.ts';

/** An open session, as the notifier sees it. */
export interface LiveSession {
  readonly state: SessionState;
  /** Sends a notification (dropped while the server is silent). */
  notify(method: string, params: readonly unknown[]): void;
}

export interface SessionHubOptions {
  /** Whether to accept a new TCP connection (false: it is closed at once). */
  admit(): boolean;
  /** While true, messages are recorded but never answered, and no notification is sent. */
  silent(): boolean;
  /** Receives the method name of every request, answered or not. */
  hits: string[];
  /** Receives one entry per message (a batch is one request): its methods, in order. */
  requests?: string[][];
  run(method: string, params: readonly unknown[], session: SessionState): Promise<unknown>;
}

export interface SessionHub extends ConnectionHandler {
  sessions(): Iterable<LiveSession>;
}

export function createSessionHub(options: SessionHubOptions): SessionHub {
  const live = new Set<LiveSession>();
  return {
    admit: options.admit,
    sessions: () => live,
    open(connection) {
      const state = newSessionState();
      const session: LiveSession = {
        state,
        notify: (method, params) => {
          if (!options.silent()) connection.send(notificationText(method, params));
        },
      };
      live.add(session);
      // One message at a time: replies leave in the order requests came (and server.version first).
      let queue = Promise.resolve();
      return {
        message(text) {
          const methods = requestedMethods(text);
          options.hits.push(...methods);
          options.requests?.push(methods);
          if (options.silent()) return;
          queue = queue.then(async () => {
            const reply = await answerMessage(text, (method, params) => options.run(method, params, state));
            if (reply.text !== undefined) connection.send(reply.text);
            if (reply.disconnect) connection.close();
          });
        },
        closed: () => live.delete(session),
      };
    },
  };
}
