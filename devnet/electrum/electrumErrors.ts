/** Electrum JSON-RPC errors, with ElectrumX's codes and messages. */
import { DaemonRpcError } from '../../infra/utxo/daemonRpc.ts';

/** ElectrumX's application codes (1, 2) and the JSON-RPC 2.0 ones aiorpcx uses. */
export const ELECTRUM_ERROR_CODES = {
  /** ElectrumX BAD_REQUEST: a parameter with a bad value, a rejected transaction. */
  badRequest: 1,
  /** ElectrumX DAEMON_ERROR: the coin daemon refused the call. */
  daemonError: 2,
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const;

/** A JSON-RPC error to send back; `disconnect` closes the connection after the reply (as ElectrumX does after a failed server.version). */
export class ElectrumError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly disconnect = false,
  ) {
    super(message);
    this.name = 'ElectrumError';
  }
}

export const badRequest = (message: string) => new ElectrumError(ELECTRUM_ERROR_CODES.badRequest, message);

/** ElectrumX's wording for a daemon failure: `daemon error: DaemonError({'code': -5, 'message': '…'})`. */
export function daemonError(error: unknown): ElectrumError {
  if (!(error instanceof DaemonRpcError)) return toElectrumError(error);
  const message = error.message.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
  return new ElectrumError(ELECTRUM_ERROR_CODES.daemonError, `daemon error: DaemonError({'code': ${error.code ?? 'None'}, 'message': '${message}'})`);
}

/** Anything thrown by a method, as the error to answer with (unexpected ones become -32603). */
export function toElectrumError(thrown: unknown): ElectrumError {
  if (thrown instanceof ElectrumError) return thrown;
  return new ElectrumError(ELECTRUM_ERROR_CODES.internal, `internal error: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
}

/** Runs a daemon call, turning its failure into {@link daemonError}. */
export async function fromDaemon<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw daemonError(error);
  }
}
