import { Type } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { EnableEthWithTokensParams } from './enableEthWithTokens.ts';
import { acceptedNames } from './wireNames.ts';

const TaskId = Type.Integer({ minimum: 0 });

/**
 * `task::enable_eth::init` params (spec 4.1): those of `enable_eth_with_tokens`, and `client_id`,
 * the `/event-stream?id=` whose connections hear the task's status changes (docs/streaming.md).
 */
export const EnableEthTaskInitParams = Type.Object({
  ...EnableEthWithTokensParams.properties,
  client_id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
});
export const enableEthTaskInitParams = compile(EnableEthTaskInitParams);
/** `init` result. */
export const EnableEthTaskInitResult = Type.Object({ task_id: TaskId });

/** `task::enable_eth::status` params (spec 4.2). */
export const EnableEthTaskStatusParams = Type.Object({
  task_id: TaskId,
  forget_if_finished: Type.Boolean({ default: true }),
});
export const enableEthTaskStatusParams = compile(EnableEthTaskStatusParams);

/** The v2 error object inside a failed task's `details`. */
export const TaskErrorDetails = Type.Object({
  error: Type.String(),
  error_path: Type.String(),
  error_trace: Type.String(),
  error_type: Type.String(),
  error_data: Type.Optional(Type.Unknown()),
});

/** `status` result: InProgress / UserActionRequired (details a string), Ok, Error. */
export const EnableEthTaskStatusResult = Type.Union([
  Type.Object({ status: Type.Literal('InProgress'), details: Type.String() }),
  Type.Object({ status: Type.Literal('UserActionRequired'), details: Type.String() }),
  Type.Object({ status: Type.Literal('Ok'), details: Type.Record(Type.String(), Type.Unknown()) }),
  Type.Object({ status: Type.Literal('Error'), details: TaskErrorDetails }),
]);
export const enableEthTaskStatusResult = compile(EnableEthTaskStatusResult);

/** The user actions a hardware task may be sent (spec 4.3; the reference's names in spec/wireNames.ts). */
export const UserActionType = {
  /** The device PIN (`TrezorPin` in the reference). */
  HardwarePin: 'HardwarePin',
  /** The reference's answer to a device's passphrase request: read, then refused (this service never asks for one). */
  TrezorPassphrase: 'TrezorPassphrase',
} as const;

/**
 * `task::enable_eth::user_action` params (spec 4.3): the PIN as keypad positions 1–9, under
 * `HardwarePin` or the reference's `TrezorPin` (the method requires it there); or the
 * reference's `TrezorPassphrase` with its `passphrase`, which the method refuses by name. One
 * object rather than a union, so that a malformed PIN is reported as `params.user_action.pin`.
 */
export const EnableEthTaskUserActionParams = Type.Object({
  task_id: TaskId,
  user_action: Type.Object({
    action_type: Type.Union(
      [...acceptedNames('userAction', [UserActionType.HardwarePin]), UserActionType.TrezorPassphrase].map((name) => Type.Literal(name)),
    ),
    pin: Type.Optional(Type.String({ pattern: '^[1-9]+$', maxLength: 50 })),
    passphrase: Type.Optional(Type.String()),
  }),
});
export const enableEthTaskUserActionParams = compile(EnableEthTaskUserActionParams);

/** `task::enable_eth::cancel` params (spec 4.4). */
export const EnableEthTaskCancelParams = Type.Object({ task_id: TaskId });
export const enableEthTaskCancelParams = compile(EnableEthTaskCancelParams);
