import { FetchRequest, JsonRpcProvider, Network, type GetUrlResponse } from 'ethers';

/** A node transport failure (refused, HTTP error, malformed body): the next node should be tried. */
export class EvmNodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EvmNodeError';
  }
}

export interface EvmProviderOptions {
  readonly url: string;
  readonly chainId: number;
  /** Most JSON-RPC calls in one HTTP request; larger sets go out as concurrent chunks. */
  readonly batchSize: number;
  /** Aborting it aborts every HTTP request of this provider. */
  readonly signal: AbortSignal;
}

/**
 * An ethers v6 `JsonRpcProvider` for one node and one unit of work. Calls sent in the same tick go
 * out as one JSON-RPC batch (`batchStallTime: 0`), the network is static (no `eth_chainId` probe),
 * ethers' own 429 retry loop is off (a throttled node is a failed node; failover decides), and the
 * HTTP layer honours `signal`.
 */
export function createEvmProvider(options: EvmProviderOptions): JsonRpcProvider {
  const request = new FetchRequest(options.url);
  request.timeout = 24 * 60 * 60 * 1000; // the failover's per-node timer governs, not ethers
  request.setThrottleParams({ maxAttempts: 1 });
  request.getUrlFunc = (req) => postJson(req, options.signal);
  return new JsonRpcProvider(request, Network.from(options.chainId), {
    staticNetwork: true,
    batchMaxCount: options.batchSize,
    batchMaxSize: Number.MAX_SAFE_INTEGER,
    batchStallTime: 0,
    polling: false,
    cacheTimeout: -1,
  });
}

async function postJson(req: FetchRequest, signal: AbortSignal): Promise<GetUrlResponse> {
  let response: Response;
  try {
    response = await fetch(req.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: req.body === null ? undefined : Buffer.from(req.body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const code = (error as { cause?: { code?: string } }).cause?.code;
    throw new EvmNodeError(code ? `connection failed (${code})` : 'connection failed', { cause: error });
  }
  const body = new Uint8Array(await response.arrayBuffer());
  if (!response.ok) throw new EvmNodeError(`HTTP ${response.status} ${response.statusText}`.trim());
  return { statusCode: response.status, statusMessage: response.statusText, headers: {}, body };
}
