/**
 * The wire form of a task's status (`task::<kind>::status`, spec 4.2): the RPC answers it and the
 * event side writes the same value to the status KV, so both render it here.
 */
import { ActivationError, type ErrorType } from '../errors.ts';
import type { AccountBalanceRead, ErrorInfo, EventOf, NewAddressRead, ScannedAddressesRead } from '../events.ts';
import { renderNewAddress, renderScannedAddresses } from './hdAddresses.ts';
import type { HdAccountInfo } from '../activationResult.ts';
import type { Static } from '@sinclair/typebox';

type ActivationSummaryData = Extract<EventOf<'TaskSucceeded'>['data'], { activation: unknown }>['activation'];

/** `task::account_balance` `Ok` details: spec 2.3 WalletAccountInfo (the reference's `HDAccountBalance`). */
export function renderAccountBalance(read: AccountBalanceRead): Static<typeof HdAccountInfo> {
  return {
    account_index: read.accountIndex,
    derivation_path: read.accountPath,
    total_balance: read.totalBalances,
    addresses: read.addresses.map((a) => ({ address: a.address, derivation_path: a.derivationPath, chain: a.chain, balance: a.balances })),
  };
}
import { renderActivationResult, renderStandaloneResult } from './activationResult.ts';
import { TaskKind } from '../taskKind.ts';
import { errorOrigin, renderV2Error } from './envelope.ts';
import { WireNames, wireName } from '../wireNames.ts';
import { renderWithdrawResult } from './withdrawResult.ts';
import type { WithdrawalSummary } from '../withdrawEvents.ts';

/** A task as `task::<kind>::status` answers it, rebuilt from events alone. */
export type TaskView =
  | { readonly state: 'InProgress' | 'UserActionRequired'; readonly details: string }
  | { readonly state: 'Ok'; readonly result: ActivationSummaryData }
  | { readonly state: 'Ok'; readonly accountBalance: AccountBalanceRead }
  | { readonly state: 'Ok'; readonly withdrawal: WithdrawalSummary }
  | { readonly state: 'Ok'; readonly newAddress: NewAddressRead }
  | { readonly state: 'Ok'; readonly scannedAddresses: ScannedAddressesRead }
  | { readonly state: 'Error'; readonly error: ErrorInfo }
  | { readonly state: 'Cancelled' | 'Forgotten' };

/**
 * A task's status as the wire shows it (spec 4.2, docs/compatibility.md §8): the same for every
 * kind but the `Ok` details, which have the shape of the kind's result; its `details` string in
 * the neutral or the reference's names (docs/compatibility.md §17).
 */
export function renderTaskStatus(
  task: { readonly taskId: number; readonly kind: TaskKind; readonly getBalances: boolean; readonly view: TaskView },
  names: WireNames = WireNames.Neutral,
): unknown {
  const view = task.view;
  switch (view.state) {
    case 'InProgress':
    case 'UserActionRequired':
      return { status: view.state, details: wireName('taskDetails', view.details, names) };
    case 'Ok':
      if ('accountBalance' in view) return { status: 'Ok', details: renderAccountBalance(view.accountBalance) };
      if ('withdrawal' in view) return { status: 'Ok', details: renderWithdrawResult(view.withdrawal) };
      if ('newAddress' in view) return { status: 'Ok', details: renderNewAddress(view.newAddress) };
      if ('scannedAddresses' in view) return { status: 'Ok', details: renderScannedAddresses(view.scannedAddresses) };
      return {
        status: 'Ok',
        details: task.kind === TaskKind.EnableEth ? renderActivationResult(view.result, task.getBalances) : renderStandaloneResult(view.result),
      };
    case 'Error': {
      const error = new ActivationError(view.error.errorType as ErrorType, view.error.message, view.error.data);
      const { mmrpc: _m, id: _i, ...details } = renderV2Error(error, null, errorOrigin('task', view.error.errorType));
      return { status: 'Error', details };
    }
    default:
      throw new Error(`task ${task.taskId} is not visible`); // unreachable: filtered by the manager
  }
}

