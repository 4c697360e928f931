/**
 * A stand-in for an ethgasstation-style API (activation and refresh tests): answers every `GET`
 * with a configurable JSON body, or fails on demand (HTTP 500, not JSON, or silence), and counts
 * the requests it got and answered. How it answers can be switched at any time.
 */
import { createServer } from 'node:http';
import { closeServer, httpUrl, listen, LOOPBACK_HOST } from '../listening.ts';

/** How the station answers: the JSON body, HTTP 500, a 200 that is not JSON, or never (holds the request open). */
export const GasStationMode = { Json: 'json', Error: 'error', Garbage: 'garbage', Silent: 'silent' } as const;
export type GasStationMode = (typeof GasStationMode)[keyof typeof GasStationMode];

export interface GasStationOptions {
  /** Answer in `Json` mode (default ethgasstation's shape: `{"fast": 1000, "average": 500}`). */
  readonly body?: unknown;
  readonly mode?: GasStationMode;
  /** Path of {@link GasStation.url} (any path is answered); default `/api/ethgasAPI.json?api-key=devnet-secret`. */
  readonly path?: string;
}

export interface GasStation {
  /** `http://127.0.0.1:<port>` + the path (whose query stands in for an API key). */
  readonly url: string;
  /** Requests received since start. */
  hits(): number;
  /** Requests answered since start (a silent one is not, until the client gives up). */
  answered(): number;
  /** Changes how later requests are answered. */
  answer(mode: GasStationMode, body?: unknown): void;
  /** Closes the listener and open connections. Idempotent. */
  stop(): Promise<void>;
}

/** Starts a gas station on a free loopback port. */
export async function startGasStation(options: GasStationOptions = {}): Promise<GasStation> {
  let mode: GasStationMode = options.mode ?? GasStationMode.Json;
  let body: unknown = options.body ?? { fast: 1000, average: 500 };
  let hits = 0;
  let answered = 0;
  const server = createServer((req, res) => {
    hits += 1;
    req.resume();
    if (mode === GasStationMode.Silent) return;
    answered += 1;
    if (mode === GasStationMode.Error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('station is down');
    } else {
      const text = mode === GasStationMode.Garbage ? '<html>not json' : JSON.stringify(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    }
  });
  const port = await listen(server, LOOPBACK_HOST, 0);
  let stopping: Promise<void> | undefined;
  return {
    url: `${httpUrl(LOOPBACK_HOST, port)}${options.path ?? '/api/ethgasAPI.json?api-key=devnet-secret'}`,
    hits: () => hits,
    answered: () => answered,
    answer(nextMode, nextBody) {
      mode = nextMode;
      if (nextBody !== undefined) body = nextBody;
    },
    stop: () => (stopping ??= closeServer(server, () => server.closeAllConnections())),
  };
}
