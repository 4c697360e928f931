/**
 * A TCP relay on loopback in front of a service, whose open connections a test can cut at once:
 * a dropped network as the client sees it (its stream ends mid-way), while new connections still
 * get through.
 */
import net from 'node:net';
import { closeServer, httpUrl, listen, LOOPBACK_HOST } from '../listening.ts';

export interface TcpRelay {
  /** `http://127.0.0.1:<port>` of the relay. */
  readonly url: string;
  /** Destroys every open socket (both sides of each connection); returns how many there were. */
  cut(): number;
  /** Holds new connections (accepted, not relayed) until the returned function is called. */
  hold(): () => void;
  stop(): Promise<void>;
}

/** Relays every connection to `target` (an `http://host:port` URL). */
export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const { hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  let held: net.Socket[] | undefined;
  const relay = (client: net.Socket) => {
    if (client.destroyed) return;
    const upstream = net.connect(Number(port), hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (held === undefined) relay(client);
    else held.push(client);
  });
  const bound = await listen(server, LOOPBACK_HOST, 0);
  const cut = () => {
    const count = open.size;
    for (const socket of open) socket.destroy();
    return count;
  };
  const hold = () => {
    held ??= [];
    return () => {
      const waiting = held ?? [];
      held = undefined;
      for (const client of waiting) relay(client);
    };
  };
  return { url: httpUrl(LOOPBACK_HOST, bound), cut, hold, stop: () => closeServer(server, cut) };
}
