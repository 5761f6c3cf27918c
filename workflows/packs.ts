// A report pack's send (issue 34; activities/packs): one activity renders the pack and mails it,
// retried by Temporal when the mail server cannot be reached (a few attempts over about a
// minute), then recorded failed in the pack's history. The workflow id is the send's key
// (common/temporal.ts workflowIds.packSend), started with REJECT_DUPLICATE by the api for a lock,
// so the same trigger never runs twice; the activity's record keeps it to one mail even across retries.
// packScheduleWorkflow is what a pack's Temporal schedule starts every day: on the pack's Nth
// working day it sends the previous month's pack once (key working-day-<month>).
import { ActivityFailure, ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PackSendInput, PackSendOutput } from '../activities/packs';
import { failureMessage, NON_RETRYABLE_TYPES } from '../common/failures';
import { shortCall } from './profiles';

const { sendReportPack } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 4, nonRetryableErrorTypes: NON_RETRYABLE_TYPES },
});
const { markPackSendFailed, packWorkingDayDue } = proxyActivities<Activities>(shortCall);

export async function packSendWorkflow(input: PackSendInput): Promise<PackSendOutput> {
  try {
    return await sendReportPack(input);
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
