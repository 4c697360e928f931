/** The client's task status loop: `status` polled until `Ok` or an error, every answer kept. */
import { sleep, systemClock } from '../../kernel/clock.ts';
import { taskStatusParams } from './clientBodies.ts';
import { isSdkError, type ReferenceClient } from './sdkClient.ts';

export interface TaskPolling {
  /** `forget_if_finished` as sent; `undefined` leaves it out (QTUM's default). @default false */
  readonly forget?: boolean | undefined;
  readonly intervalMs: number;
  /** @default no limit, as the client has none */
  readonly maxPolls?: number;
  /** Sees each answer before the next poll (a test plugs the device in, enters the PIN). */
  readonly onStatus?: (body: any) => Promise<void> | void;
}

/** Every `status` answer of task `taskId` of `task::<kind>`, the last one `Ok`, an error, or the last allowed. */
export async function pollTask(client: ReferenceClient, kind: string, taskId: number, options: TaskPolling): Promise<any[]> {
  const answers: any[] = [];
  const forget = 'forget' in options ? options.forget : false;
  for (let poll = 0; poll < (options.maxPolls ?? Infinity); poll++) {
    const { body } = await client.v2(`task::${kind}::status`, forget === undefined ? { task_id: taskId } : taskStatusParams(taskId, forget));
    answers.push(body);
    if (isSdkError(body) || body.result.status === 'Ok') break;
    await options.onStatus?.(body);
    await sleep(systemClock, options.intervalMs);
  }
  return answers;
}

/** An answer as `status details` (details only when a string). */
export function statusLabel(body: any): string {
  return `${body.result?.status} ${typeof body.result?.details === 'string' ? body.result.details : ''}`.trim();
}
