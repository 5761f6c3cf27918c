// What a pipeline run's steps share, whichever data factory runs them: the organization as
// onboarding left it, the run record's per-pipeline entry, and the activity context (heartbeats,
// cancellation, a cancellable sleep) when there is one (tests call activities directly).
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { loadOrganization } from '../../common/org-resources';
import type { OrganizationDoc } from '../../common/models/organization';
import type { Config } from '../../common/config';
import type { PipelineOfRunRecord, PipelineRunRecord } from '../../common/models/pipeline-run';
import { withRequiredRunStore } from '../../warehouse/records/run-store';
import { fail } from '../../common/failures';

export { cancellationSignal, heartbeat } from '../context';

export type OnboardedOrg = OrganizationDoc & { onboarding: NonNullable<OrganizationDoc['onboarding']> & { containerName: string; databaseName: string; dataFactoryName: string } };

export interface RunPipelineOutput {
  name: string;
  status: 'succeeded' | 'failed';
  rowsMoved: number;
  error?: string;
}

export async function loadOnboardedOrg(orgId: string): Promise<OnboardedOrg> {
  const org = await loadOrganization(orgId);
  const ob = org.onboarding;
  if (!ob?.containerName || !ob.databaseName || !ob.dataFactoryName || !ob.pipelines?.length) {
    throw fail.notOnboarded('This organization has no data factory yet: an admin must onboard it first.');
  }
  return org as never;
}

/** The run's record in the organization's database, or null. */
export function findRun(cfg: Config, orgId: string, runId: string): Promise<PipelineRunRecord | null> {
  return withRequiredRunStore(cfg, orgId, (s) => s.findPipelineRun(runId));
}

/**
 * Writes fields of one pipeline's entry of the run record (read, changed and written back in one
 * transaction). `onlyWhileRunning`: a run already closed is left as it is (false is answered).
 */
export async function setPipeline(cfg: Config, orgId: string, runId: string, name: string, fields: Partial<PipelineOfRunRecord>, { onlyWhileRunning = false } = {}): Promise<boolean> {
  let written = false;
  await withRequiredRunStore(cfg, orgId, (s) =>
    s.updatePipelineRun(runId, (run) => {
      if (onlyWhileRunning && run?.status !== 'running') return null;
      const entry = run?.pipelines.find((p) => p.name === name);
      if (!run || !entry) throw fail.notFound(`Pipeline ${name} is not part of run ${runId}`);
      Object.assign(entry, fields);
      written = true;
      return run;
    }),
  );
  return written;
}

/** The Data Factory run id an earlier attempt heartbeated, if any. */
export function heartbeatRunId(pipelineName: string): string | undefined {
  try {
    const d = Context.current().info.heartbeatDetails as { pipeline?: string; externalRunId?: string } | undefined;
    return d?.pipeline === pipelineName ? d.externalRunId : undefined;
  } catch {
    return undefined;
  }
}
export function cancelled(): boolean {
  try {
    return Context.current().cancellationSignal.aborted;
  } catch {
    return false;
  }
}
export async function sleep(ms: number): Promise<void> {
  try {
    await Context.current().sleep(ms);
  } catch (e) {
    if (e instanceof CancelledFailure) throw e;
    await new Promise((r) => setTimeout(r, ms));
  }
}
