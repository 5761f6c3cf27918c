// A report pack's send (issue 34; activities/packs): one activity renders the pack and mails it,
// retried by Temporal when the mail server cannot be reached (PACK_SEND_ATTEMPTS attempts over
// about 40 s), then recorded failed in the pack's history. The workflow id is the send's key
// (common/temporal.ts workflowIds.packSend), started with REJECT_DUPLICATE by the api for a lock,
// so the same trigger never runs twice; the activity's record keeps it to one mail even across retries.
// packScheduleWorkflow is what a pack's Temporal schedule starts every day: on the pack's Nth
// working day it sends the previous month's pack once (key working-day-<month>).
import { ActivityFailure, ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PackSendInput, PackSendOutput } from '../activities/packs';
import { failureMessage, NON_RETRYABLE_TYPES } from '../common/failures';
import { shortCall } from './profiles';

/** How often a send is tried while the mail server cannot be reached: 5 times over about 40 s (1, 3, 9, 27 s apart). */
export const PACK_SEND_ATTEMPTS = 5;
const sender = (attempts: number) =>
  proxyActivities<Activities>({
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: '1 second', backoffCoefficient: 3, maximumInterval: '1 minute', maximumAttempts: attempts, nonRetryableErrorTypes: NON_RETRYABLE_TYPES },
  }).sendReportPack;
const { markPackSendFailed, packWorkingDayDue } = proxyActivities<Activities>(shortCall);

export async function packSendWorkflow(input: PackSendInput & { attempts?: number }): Promise<PackSendOutput> {
  try {
    const { attempts, ...send } = input;
    return await sender(attempts ?? PACK_SEND_ATTEMPTS)(send);
  } catch (e) {
    const error = failureMessage(e);
    await markPackSendFailed({ packId: input.packId, key: input.key, error });
    if (e instanceof ActivityFailure) throw ApplicationFailure.nonRetryable(`The pack was not sent: ${error}`, 'PackNotSent');
    throw e;
  }
}

export interface PackScheduleInput {
  orgId: string;
  packId: string;
}

export async function packScheduleWorkflow(input: PackScheduleInput): Promise<PackSendOutput> {
  // The schedule's fire time (deterministic: the workflow's clock), as a UTC day.
  const today = new Date(workflowInfo().startTime).toISOString().slice(0, 10);
  const due = await packWorkingDayDue({ packId: input.packId, today });
  if (!due.due) return { status: 'skipped', reason: `${today} is not the pack's working day` };
  return packSendWorkflow({ orgId: input.orgId, packId: input.packId, trigger: 'working-day', key: due.key, period: due.period, requestedBy: 'Schedule' });
}
