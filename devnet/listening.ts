/** Small helpers shared by the devnet servers: listen, format the URL, close without hanging. */
import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:net';

/** The default interface every devnet server binds to. Only loopback traffic, ever. */
export const LOOPBACK_HOST = '127.0.0.1';

/** Starts `server` on `host:port` (port 0 = any free port) and resolves with the bound port. */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error('server has no TCP address'));
      resolve(address.port);
    });
  });
}

/** `http://host:port`, with brackets around IPv6 literals. */
export function httpUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Stops accepting connections, runs `destroyConnections` (which must end every open socket, e.g.
 * `httpServer.closeAllConnections()`), and resolves once the server is fully closed. Idempotent.
 */
export function closeServer(server: Server, destroyConnections: () => void): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    destroyConnections();
  });
}

/** Reads a request body as UTF-8; rejects once it exceeds `maxBytes` (and drains the rest). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(new Error(`request body exceeds ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
