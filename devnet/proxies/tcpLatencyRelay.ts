/**
 * A TCP relay on loopback that adds a fixed latency to every round trip (half each way) and whose
 * open connections a test can cut: an Electrum server "far away" (the history benchmark's 50 ms per
 * round trip) or one that drops mid-sync. Bytes keep their order: each direction delays every chunk
 * by the same time.
 */
import net from 'node:net';
import { closeServer, listen, LOOPBACK_HOST } from '../listening.ts';

export interface TcpLatencyRelay {
  /** `127.0.0.1:<port>`, as an Electrum server's `url`. */
  readonly address: string;
  /** Destroys every open connection (both sides); new ones still get through. Returns how many there were. */
  cut(): number;
  /** Connections accepted since start. */
  connections(): number;
  /** Newline-ended messages sent by clients (an Electrum request or batch each: its round trips). */
  messages(): number;
  stop(): Promise<void>;
}

/** Relays every connection to `target` (`host:port`) with `latencyMs` added per round trip. */
export async function startTcpLatencyRelay(target: string, latencyMs: number): Promise<TcpLatencyRelay> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const open = new Set<net.Socket>();
  let accepted = 0;
  let messages = 0;
  const oneWay = latencyMs / 2;
  const delayed = (from: net.Socket, to: net.Socket) =>
    from.on('data', (chunk) => {
      const send = () => void (!to.destroyed && to.write(chunk));
      if (oneWay <= 0) send();
      else setTimeout(send, oneWay);
    });
  const track = (socket: net.Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    accepted++;
    track(client);
    const upstream = net.connect(port, host);
    track(upstream);
    client.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 0x0a) messages++;
    });
    delayed(client, upstream);
    delayed(upstream, client);
    client.on('close', () => setTimeout(() => upstream.destroy(), oneWay));
    upstream.on('close', () => setTimeout(() => client.destroy(), oneWay));
  });
  const bound = await listen(server, LOOPBACK_HOST, 0);
  const cut = () => {
    const n = open.size;
    for (const socket of [...open]) socket.destroy();
    return n;
  };
  return {
    address: `${LOOPBACK_HOST}:${bound}`,
    cut,
    connections: () => accepted,
    messages: () => messages,
    stop: () => closeServer(server, cut),
  };
}
