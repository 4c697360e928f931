/** Turns whatever a provider throws into a JSON-RPC error object shaped like geth's. */

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  /** Revert data (`0x…`) when the error is an EVM revert. */
  data?: string;
}

/** Codes used when the thrown value carries none. */
export const FALLBACK_ERROR_CODES = {
  /** geth's code for `execution reverted` (with the revert data in `data`). */
  executionReverted: 3,
  internal: -32603,
} as const;

const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

/**
 * Maps a thrown value to `{ code, message, data? }`. Hardhat's ProviderErrors keep their code;
 * its Solidity revert errors have no code and become code 3 with the revert data, as geth answers.
 * Non-hex `data` (hardhat echoes the request there) is dropped.
 */
export function toJsonRpcError(thrown: unknown): JsonRpcErrorObject {
  const fields = typeof thrown === 'object' && thrown !== null ? (thrown as { code?: unknown; message?: unknown; data?: unknown }) : {};
  const message = typeof fields.message === 'string' ? fields.message : String(thrown);
  const data = revertData(fields.data);
  const code = Number.isInteger(fields.code)
    ? (fields.code as number)
    : data !== undefined
      ? FALLBACK_ERROR_CODES.executionReverted
      : FALLBACK_ERROR_CODES.internal;
  return data === undefined ? { code, message } : { code, message, data };
}

function revertData(data: unknown): string | undefined {
  if (typeof data === 'string') return HEX_DATA.test(data) ? data : undefined;
  if (typeof data === 'object' && data !== null && 'data' in data) return revertData((data as { data: unknown }).data);
  return undefined;
}
