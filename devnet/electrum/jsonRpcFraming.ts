/**
 * JSON-RPC 2.0 for one received Electrum message, whatever carried it: a request, a notification
 * (no `id`: run, not answered) or a batch (array in, array out, elements run in order).
 */
import { ELECTRUM_ERROR_CODES, ElectrumError, toElectrumError } from './electrumErrors.ts';

/** Runs one method; a throw becomes that call's error object. */
export type MethodRunner = (method: string, params: readonly unknown[]) => Promise<unknown>;

type Id = string | number | null;
type Response = { jsonrpc: '2.0'; id: Id; result: unknown } | { jsonrpc: '2.0'; id: Id; error: { code: number; message: string } };

/** What to send back (nothing for notifications) and whether to close the connection after it. */
export interface Reply {
  text?: string;
  disconnect: boolean;
}

const errorResponse = (id: Id, code: number, message: string): Response => ({ jsonrpc: '2.0', id, error: { code, message } });

/** Answers one message; never throws. */
export async function answerMessage(text: string, run: MethodRunner): Promise<Reply> {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    return { text: JSON.stringify(errorResponse(null, ELECTRUM_ERROR_CODES.parseError, `invalid JSON: ${(error as Error).message}`)), disconnect: false };
  }
  if (!Array.isArray(payload)) {
    const { response, disconnect } = await answerRequest(payload, run);
    return { text: response && JSON.stringify(response), disconnect };
  }
  if (payload.length === 0) return { text: JSON.stringify(errorResponse(null, ELECTRUM_ERROR_CODES.invalidRequest, 'empty batch')), disconnect: false };
  const responses: Response[] = [];
  let disconnect = false;
  for (const element of payload) {
    const answered = await answerRequest(element, run);
    if (answered.response) responses.push(answered.response);
    disconnect ||= answered.disconnect;
  }
  return { text: responses.length > 0 ? JSON.stringify(responses) : undefined, disconnect };
}

/** The method names a message asks for (for `hits`), without running anything. */
export function requestedMethods(text: string): string[] {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return [];
  }
  const requests: unknown[] = Array.isArray(payload) ? payload : [payload];
  return requests.flatMap((r) => (typeof r === 'object' && r !== null && typeof (r as { method?: unknown }).method === 'string' ? [(r as { method: string }).method] : []));
}

/** A server-to-client notification, e.g. `blockchain.headers.subscribe` with the new tip. */
export function notificationText(method: string, params: readonly unknown[]): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params });
}

async function answerRequest(request: unknown, run: MethodRunner): Promise<{ response?: Response; disconnect: boolean }> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return { response: errorResponse(null, ELECTRUM_ERROR_CODES.invalidRequest, 'invalid request: not an object'), disconnect: false };
  }
  const { id, method, params } = request as { id?: unknown; method?: unknown; params?: unknown };
  const isNotification = !('id' in request);
  const replyId: Id = typeof id === 'string' || typeof id === 'number' ? id : null;
  if (!isNotification && replyId === null && id !== null) {
    return { response: errorResponse(null, ELECTRUM_ERROR_CODES.invalidRequest, 'invalid request: id must be a string, number or null'), disconnect: false };
  }
  if (typeof method !== 'string') {
    return { response: errorResponse(replyId, ELECTRUM_ERROR_CODES.invalidRequest, 'invalid request: method must be a string'), disconnect: false };
  }
  let response: Response;
  let disconnect = false;
  try {
    if (params !== undefined && !Array.isArray(params)) {
      // aiorpcx also takes named params; no Electrum client sends them, and no method here names its params.
      throw new ElectrumError(ELECTRUM_ERROR_CODES.invalidParams, 'invalid arguments: params must be an array');
    }
    response = { jsonrpc: '2.0', id: replyId, result: (await run(method, params ?? [])) ?? null };
  } catch (thrown) {
    const error = toElectrumError(thrown);
    disconnect = error.disconnect;
    response = errorResponse(replyId, error.code, error.message);
  }
  return { response: isNotification ? undefined : response, disconnect };
}
