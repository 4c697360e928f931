/**
 * `withdraw` (v2 and legacy flat), `task::withdraw::*` (v2) and legacy `send_raw_transaction`
 * (issue 25, docs/compatibility.md §23). Withdrawing builds and signs, never broadcasts;
 * `send_raw_transaction` broadcasts, as the reference and its client do.
 */
import { sendRawTransactionParams, withdrawParams, withdrawTaskInitParams } from '../../spec/withdraw.ts';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { renderWithdrawResult } from '../../spec/render/withdrawResult.ts';
import { TaskKind, taskMethod } from '../../spec/taskKind.ts';
import type { WireNames } from '../../spec/wireNames.ts';
import type { ActivationTasks } from '../../actors/activationTasks.ts';
import type { WithdrawService } from '../../actors/withdrawService.ts';
import { defineMethod, RpcVersion, type MethodDef } from '../methods.ts';
import { taskStatusMethods, taskUserActionMethod } from './taskMethods.ts';
import { withdrawCommandOf } from './withdrawParams.ts';

/** How long a `withdraw` or a broadcast may take before it is abandoned (node reads, signing with the service's key). */
const WITHDRAW_TIMEOUT_MS = 60_000;

/** Runs `work` with a signal that aborts after {@link WITHDRAW_TIMEOUT_MS}: then `Timeout {secs, nanos}` (408), as the reference's. */
async function bounded<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(WITHDRAW_TIMEOUT_MS);
  try {
    return await work(signal);
  } catch (error) {
    if (!signal.aborted) throw error;
    throw new ActivationError(ErrorType.Timeout, `${what} timed out after ${WITHDRAW_TIMEOUT_MS / 1000} s`, { secs: WITHDRAW_TIMEOUT_MS / 1000, nanos: 0 });
  }
}

async function signed(withdrawals: WithdrawService, params: Parameters<typeof withdrawCommandOf>[0]) {
  const command = withdrawCommandOf(params);
  return renderWithdrawResult(await bounded('withdraw', (signal) => withdrawals.withdraw(command, signal)));
}

/** v2 `withdraw` (in `methods`) and its legacy flat form (in `legacyMethods`): the same request, the result flat in legacy. */
export function withdrawMethods(withdrawals: WithdrawService): { v2: MethodDef<any>; legacy: MethodDef<any> } {
  return {
    v2: defineMethod({ version: RpcVersion.V2, params: withdrawParams, handle: (params) => signed(withdrawals, params) }),
    legacy: defineMethod({ version: RpcVersion.Legacy, params: withdrawParams, handle: (params) => signed(withdrawals, params) }),
  };
}

/** Legacy `send_raw_transaction`: the coin's family broadcasts `tx_hex`; answers `{"tx_hash"}` flat. */
export function sendRawTransactionMethod(withdrawals: WithdrawService): MethodDef<any> {
  return defineMethod({
    version: RpcVersion.Legacy,
    params: sendRawTransactionParams,
    handle: async ({ coin, tx_hex }) => ({ tx_hash: (await bounded('send_raw_transaction', (signal) => withdrawals.broadcast(coin, tx_hex, signal))).txHash }),
  });
}

/** `task::withdraw::init|status|user_action|cancel` (v2) on the one task machine. */
export function withdrawTaskMethods(tasks: ActivationTasks, names: WireNames): Record<string, MethodDef<any>> {
  return {
    [`${taskMethod(TaskKind.Withdraw)}::init`]: defineMethod({
      version: RpcVersion.V2,
      params: withdrawTaskInitParams,
      handle: async (params) => ({ task_id: await tasks.initWithdraw(withdrawCommandOf(params), params.client_id) }),
    }),
    ...taskStatusMethods(tasks, names, TaskKind.Withdraw),
    ...taskUserActionMethod(tasks, TaskKind.Withdraw),
  };
}
