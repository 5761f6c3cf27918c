// Deleting an organization (workflow ID organization-delete-<orgId>, started by DELETE
// /organization/:id once the organization is marked 'deleting'). Each step is an idempotent
// activity (activities/organization-delete.ts) retried by Temporal; when one fails for good the
// organization is marked 'failed' with the error, and a new DELETE runs the workflow again,
// whose steps find what is already gone. Deterministic: activities only through proxyActivities.
import { ApplicationFailure, defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { failureMessage } from '../common/failures';
import { PROGRESS_QUERY } from '../common/temporal';
import { shortCall } from './profiles';

const {
  prepareOrganizationDeletion,
  deleteOrganizationSchedules,
  stopOrganizationWorkflows,
  deleteOrganizationConnections,
  deleteOrganizationFiles,
  deleteOrganizationRuns,
  deleteOrganizationUsers,
  finishOrganizationDeletion,
  markOrganizationDeletionFailed,
} = proxyActivities<Activities>(shortCall);
// Azure SQL deletes a database as a long-running operation (polled until done).
const { deleteOrganizationDatabase } = proxyActivities<Activities>({ ...shortCall, startToCloseTimeout: '15 minutes' });

export interface OrganizationDeleteInput {
  orgId: string;
}

export interface OrganizationDeleteOutput {
  orgId: string;
  /** false when the organization was gone already (the workflow run again after it finished). */
  deleted: boolean;
  organizationName?: string;
}

export type DeleteStepStatus = 'pending' | 'running' | 'done' | 'failed';

export interface OrganizationDeleteProgress {
  status: 'running' | 'succeeded' | 'failed';
  currentStep?: string;
  steps: { name: string; label: string; status: DeleteStepStatus; result?: unknown; error?: string }[];
  error?: string;
}

export const organizationDeleteProgressQuery = defineQuery<OrganizationDeleteProgress>(PROGRESS_QUERY);

/** The steps in order, with what the admin reads when one fails. */
const STEPS = [
  { name: 'schedules', label: 'Removing the sync schedules' },
  { name: 'workflows', label: "Stopping the organization's workflows" },
  { name: 'connections', label: 'Removing the connections' },
  { name: 'files', label: 'Removing the files and the storage container' },
  { name: 'database', label: 'Removing the SQL database' },
  { name: 'runs', label: 'Removing the pipeline and sync runs' },
  { name: 'users', label: 'Removing the users' },
  { name: 'organization', label: 'Removing the organization' },
] as const;
type StepName = (typeof STEPS)[number]['name'];

export async function organizationDeleteWorkflow({ orgId }: OrganizationDeleteInput): Promise<OrganizationDeleteOutput> {
  const progress: OrganizationDeleteProgress = { status: 'running', steps: STEPS.map((s) => ({ ...s, status: 'pending' })) };
  setHandler(organizationDeleteProgressQuery, () => progress);

  /** A step failed for good (its retries spent): the organization shows again, failed, with the error. */
  const failed = async (label: string, e: unknown): Promise<never> => {
    progress.status = 'failed';
    progress.error = `${label} failed: ${failureMessage(e)}`;
    // Only an organization still marked 'deleting' is changed (none for a workflow started by hand).
    await markOrganizationDeletionFailed({ orgId, error: progress.error });
    throw ApplicationFailure.nonRetryable(progress.error, 'OrganizationDeleteFailed');
  };

  // Not marked for deletion (a workflow started by hand) or already gone: nothing is touched.
  let prepared: Awaited<ReturnType<typeof prepareOrganizationDeletion>>;
  try {
    prepared = await prepareOrganizationDeletion({ orgId });
  } catch (e) {
    return failed('Preparing the deletion', e);
  }
  if (!prepared.found) {
    progress.status = 'succeeded';
    progress.steps.forEach((s) => (s.status = 'done'));
    return { orgId, deleted: false };
  }

  const workflowId = workflowInfo().workflowId;
  const run: Record<StepName, () => Promise<unknown>> = {
    schedules: () => deleteOrganizationSchedules({ orgId }),
    workflows: () => stopOrganizationWorkflows({ orgId, exceptWorkflowId: workflowId }),
    connections: () => deleteOrganizationConnections({ orgId }),
    files: () => deleteOrganizationFiles({ orgId }),
    database: () => deleteOrganizationDatabase({ orgId }),
    runs: () => deleteOrganizationRuns({ orgId }),
    users: () => deleteOrganizationUsers({ orgId }),
    organization: () => finishOrganizationDeletion({ orgId }),
  };
  for (const step of progress.steps) {
    progress.currentStep = step.name;
    step.status = 'running';
    try {
      step.result = await run[step.name as StepName]();
      step.status = 'done';
    } catch (e) {
      step.status = 'failed';
      step.error = failureMessage(e);
      return failed(step.label, e);
    }
  }
  progress.status = 'succeeded';
  progress.currentStep = undefined;
  return { orgId, deleted: true, organizationName: prepared.organizationName };
}
