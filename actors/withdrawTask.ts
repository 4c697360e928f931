/**
 * The invoked work of a `task::withdraw` (issue 25): builds and signs through the coin's family,
 * with the service's key or, for a hardware coin, on the device (its PIN and confirmation steps
 * reported to the task, the PIN received as a `PIN` event). Leaving the task's step aborts it.
 */
import { fromCallback, type AnyEventObject } from 'xstate';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DeviceSessionEvent, WithdrawalReport } from '../machines/activationTask.machine.ts';
import type { HardwareWallet } from './ports/hardwareWallet.ts';
import type { DeviceSigner, WithdrawSigner } from './ports/withdraw.ts';
import { devicePrompts, type DevicePrompts } from './deviceSession.ts';
import type { ResolvedWithdrawal, WithdrawService } from './withdrawService.ts';

/** The device at the sender's path, its prompts wired to the task. */
function deviceSigner(hardware: () => Promise<HardwareWallet>, path: string, prompts: DevicePrompts): DeviceSigner {
  return {
    path,
    async ethereumSignTx(tx, signal) {
      const wallet = await hardware();
      if (wallet.ethereumSignTx === undefined) throw new ActivationError(ErrorType.UnsupportedError, 'the hardware wallet adapter cannot sign EVM transactions', 'the hardware wallet adapter cannot sign EVM transactions');
      return wallet.ethereumSignTx({ path, signal, ...prompts, tx });
    },
  };
}

export function withdrawActor(withdrawals: WithdrawService, hardware: () => Promise<HardwareWallet>, resolved: ResolvedWithdrawal) {
  return fromCallback<AnyEventObject, { taskId: number }>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    const report = (event: WithdrawalReport | DeviceSessionEvent) => {
      if (!controller.signal.aborted) sendBack(event);
    };
    const prompts = devicePrompts(report, receive);
    const path = resolved.order.sender.derivationPath;
    let signer: WithdrawSigner;
    try {
      if (resolved.hardware && path === undefined) throw new ActivationError(ErrorType.InternalError, 'a hardware coin without a key path');
      signer = resolved.hardware ? { kind: 'device', device: deviceSigner(hardware, path!, prompts) } : withdrawals.keySigner(resolved);
    } catch (error) {
      report({ type: 'WITHDRAWAL_FAILED', error });
      return () => controller.abort();
    }
    report({ type: 'GENERATING' });
    withdrawals.sign(resolved, signer, controller.signal, input.taskId).then(
      (withdrawal) => report({ type: 'SIGNED', withdrawal }),
      (error: unknown) => report({ type: 'WITHDRAWAL_FAILED', error }),
    );
    return () => controller.abort(new Error('the task left the withdrawal'));
  });
}
