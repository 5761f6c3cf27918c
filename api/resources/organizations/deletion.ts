// Deleting an organization (admin): refused while its work runs, marked 'deleting' at once (no
// list or read shows it from then on, its users' sessions end), then removed by the
// organization-delete workflow (workflows/organization-delete.ts), which a repeated request joins.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../../../common/config';
import { CONNECTOR_LIST, CONNECTORS } from '../../../common/connectors';
import { DEMO_ORGANIZATION_REMOVED, setAppSettingOnce, type DemoRemoved } from '../../../common/models/app-setting';
import { Organization, type OrganizationDoc } from '../../../common/models/organization';
import type { SyncProvider } from '../../../common/models/sync-run';
import { withRunStore } from '../../../warehouse/records/run-store';
import { User, type UserDoc } from '../../../common/models/user';
import { workflowIds } from '../../../common/temporal';
import { consolidationWorkflow } from '../../../workflows/consolidation';
import { csvSaveWorkflow } from '../../../workflows/csv-save';
import { createContainerWorkflow, createDatabaseWorkflow, createDataFactoryWorkflow, importDataFactoryWorkflow, onboardOrganizationWorkflow } from '../../../workflows/onboarding';
import { organizationDeleteWorkflow } from '../../../workflows/organization-delete';
import { pipelineRunWorkflow } from '../../../workflows/pipelines';
import { audit } from '../../lib/audit';
import { ApiError, notFound } from '../../lib/errors';
import { ORGANIZATION_NOT_FOUND } from '../../lib/organization';
import { workflowStart } from '../../lib/temporal';

/** The deletion's workflow id: one per organization, so a repeated request finds the running one. */
export const organizationDeleteWorkflowId = workflowIds.organizationDelete;

const SYNC_TYPES: Record<string, SyncProvider> = Object.fromEntries(CONNECTOR_LIST.map((c) => [c.syncWorkflow, c.key]));
const ONBOARDING_TYPES = new Set([onboardOrganizationWorkflow, createContainerWorkflow, createDatabaseWorkflow, createDataFactoryWorkflow, importDataFactoryWorkflow].map((w) => w.name));

const PIPELINE_RUN = 'a pipeline run';
const CONSOLIDATION = 'a consolidation';
const ONBOARDING = 'onboarding';
const CSV_SAVE = 'a CSV save';
const syncOf = (provider: SyncProvider) => `a ${CONNECTORS[provider].displayName} sync`;

/** What a running workflow of the organization is, in the admin's words; null for work a deletion may stop. */
function workOf(workflowType: string): string | null {
  if (workflowType === pipelineRunWorkflow.name) return PIPELINE_RUN;
  if (workflowType === consolidationWorkflow.name) return CONSOLIDATION;
  if (ONBOARDING_TYPES.has(workflowType)) return ONBOARDING;
  // A save writes into the database the deletion removes.
  if (workflowType === csvSaveWorkflow.name) return CSV_SAVE;
  const provider = SYNC_TYPES[workflowType];
  return provider ? syncOf(provider) : null;
}

/** True while the workflow (its latest run, or the given one) runs. */
async function running(temporal: Client, workflowId: string, runId?: string): Promise<boolean> {
  try {
    return (await temporal.workflow.getHandle(workflowId, runId).describe()).status.name === 'RUNNING';
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return false;
    throw e;
  }
}

/**
 * The organization's work in progress that a deletion must not cut short: pipeline runs, syncs,
 * onboarding, consolidations (and CSV saves). Three sources, because each misses something: the
 * workflows under their known ids (authoritative; a scheduled sync's id carries its time), the run
 * records still 'running' (checked against their workflow: a record left behind by a killed run
 * does not count), and Temporal's list of the organization's running workflows (search attribute
 * OrganizationId; it may lag a moment behind a start).
 */
export async function organizationBusyWith(temporal: Client, cfg: Config, orgId: string): Promise<string[]> {
  const syncs = await Promise.all(
    CONNECTOR_LIST.map(async (c) => (await c.model.find({ organization_id: orgId }, { _id: 1 }).lean()).map((a): [string, string] => [workflowIds.sync(c.key, String(a._id)), syncOf(c.key)])),
  );
  const known: [string, string][] = [
    [workflowIds.pipelineRun(orgId), PIPELINE_RUN],
    [workflowIds.consolidation(orgId), CONSOLIDATION],
    [workflowIds.onboarding(orgId), ONBOARDING],
    ...['container', 'database', 'datafactory', 'import'].map((step): [string, string] => [workflowIds.onboardingStep(step, orgId), ONBOARDING]),
    ...syncs.flat(),
  ];
  // Run records still 'running' (none when the organization has no database).
  const { pipelineRuns, syncRuns } = (await withRunStore(cfg, orgId, async (s) => ({ pipelineRuns: await s.runningPipelineRuns(), syncRuns: await s.runningSyncRuns() }))) ?? { pipelineRuns: [], syncRuns: [] };
  const checks: Promise<string | null>[] = [
    ...known.map(async ([id, what]) => ((await running(temporal, id)) ? what : null)),
    ...pipelineRuns.map(async (r) => ((await running(temporal, r.workflowId, r.runId)) ? PIPELINE_RUN : null)),
    ...syncRuns.map(async (r) => ((await running(temporal, r.workflowId, r.runId)) ? syncOf(r.provider as SyncProvider) : null)),
    (async () => {
      const found: string[] = [];
      for await (const w of temporal.workflow.list({ query: `OrganizationId = '${orgId}' AND ExecutionStatus = 'Running'` })) {
        const what = workOf(w.type);
        if (what) found.push(what);
      }
      return found.join('\n') || null;
    })(),
  ];
  const busy = new Set<string>();
  for (const what of await Promise.all(checks)) for (const w of what?.split('\n') ?? []) busy.add(w);
  return [...busy];
}

const listed = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/** The 409's message: what runs, and what to do. */
export function busyMessage(name: string, busy: string[]): string {
  return `Organization "${name}" cannot be deleted while ${listed(busy)} ${busy.length > 1 ? 'are' : 'is'} in progress: wait for ${busy.length > 1 ? 'them' : 'it'} to finish (or cancel ${busy.length > 1 ? 'them' : 'it'}), then delete the organization again.`;
}

export interface DeletionDeps {
  temporal: Client;
  config: Config;
}

/**
 * DELETE /organization/:id. A first request (or one after a failed deletion) checks that nothing
 * runs, marks the organization, writes the demo marker for the demo organization (before any
 * step, so a restart never brings the demo back), ends its users' sessions and starts the
 * workflow; a request while it is deleting joins the running workflow (same id).
 */
export async function deleteOrganization(deps: DeletionDeps, actor: UserDoc, id: string): Promise<{ workflowId: string; organizationName: string }> {
  const org = await Organization.findById(id).lean<OrganizationDoc>();
  if (!org) throw notFound(ORGANIZATION_NOT_FOUND);
  const workflowId = organizationDeleteWorkflowId(id);
  const first = org.deletion?.status !== 'deleting';
  if (first) {
    const busy = await organizationBusyWith(deps.temporal, deps.config, id);
    if (busy.length) throw new ApiError(409, busyMessage(org.organizationName, busy));
    if (org.demo) {
      const marker: DemoRemoved = { removedAt: new Date(), removedBy: actor.email, organizationId: id, organizationName: org.organizationName };
      await setAppSettingOnce(DEMO_ORGANIZATION_REMOVED, marker);
    }
    const deletion = { requestedAt: new Date(), requestedBy: { userId: actor._id, email: actor.email, name: actor.fullName || actor.email }, status: 'deleting', workflowId, error: null, failedAt: null };
    const marked = await Organization.updateOne({ _id: id }, { $set: { deletion } });
    if (marked.matchedCount === 0) throw notFound(ORGANIZATION_NOT_FOUND);
    // Through the User model: this process's cache of signed-in users forgets them at once.
    await User.updateMany({ organization_id: id, role: 'user' }, { $inc: { tokenVersion: 1 } });
    await audit({ actor, action: 'organization.delete.requested', targetType: 'organization', targetId: id, before: { organizationName: org.organizationName, demo: Boolean(org.demo), retry: org.deletion?.status === 'failed' } });
  }
  try {
    await deps.temporal.workflow.start(organizationDeleteWorkflow, { ...workflowStart(deps.config, workflowId, id), args: [{ orgId: id }] });
  } catch (e) {
    if (!first) throw e;
    // Not started: the organization shows again, as failed, for the admin to retry.
    const error = `The deletion could not be started: ${(e as Error).message}`;
    await Organization.updateOne({ _id: id, 'deletion.status': 'deleting' }, { $set: { 'deletion.status': 'failed', 'deletion.error': error, 'deletion.failedAt': new Date() } });
    throw e;
  }
  return { workflowId, organizationName: org.organizationName };
}
