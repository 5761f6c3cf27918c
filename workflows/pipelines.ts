// Pipeline runs: all of an organization's pipelines as ONE workflow (id pipelines-<orgId>),
// in the template's dependency order. Deterministic: activities only through proxyActivities.
import { CancellationScope, defineQuery, isCancellation, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { PROGRESS_QUERY } from '../common/temporal';
import type { Activities } from '../activities';
import { longRunning, shortCall } from './profiles';
import { failureMessage } from '../common/failures';

const { startPipelineRun, finishPipelineRun } = proxyActivities<Activities>(shortCall);
// A shorter heartbeat timeout than the profile's: heartbeats are throttled to 80% of it, and a
// cancellation reaches the activity (and the Azure run) only with a heartbeat.
const { runFactoryPipeline } = proxyActivities<Activities>({ ...longRunning, heartbeatTimeout: '10 seconds' });

export type PipelineOutcomeStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';
export interface PipelineOutcome {
  name: string;
  status: PipelineOutcomeStatus;
  rowsMoved: number;
  error?: string;
}
export type PipelineRunStatus = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'no_files';
export interface PipelineRunProgress {
  runId: string;
  status: PipelineRunStatus;
  currentPipeline?: string;
  fileCount?: number;
  pipelines: PipelineOutcome[];
}

export const pipelineProgressQuery = defineQuery<PipelineRunProgress>(PROGRESS_QUERY);

export interface PipelineRunInput {
  orgId: string;
  startedBy?: { userId?: string; name?: string; email?: string };
}
export interface PipelineRunOutput {
  runId: string;
  status: PipelineRunStatus;
  fileCount: number;
  rowsMoved: number;
  pipelines: PipelineOutcome[];
}

export async function pipelineRunWorkflow(input: PipelineRunInput): Promise<PipelineRunOutput> {
  const info = workflowInfo();
  const progress: PipelineRunProgress = { runId: info.runId, status: 'running', pipelines: [] };
  setHandler(pipelineProgressQuery, () => progress);
  const finish = (status: PipelineRunStatus, extra: { error?: string; unstarted?: 'skipped' | 'cancelled' } = {}) =>
    // Recorded even when the run is being cancelled.
    CancellationScope.nonCancellable(() => finishPipelineRun({ orgId: input.orgId, runId: info.runId, status, ...extra, outcomes: progress.pipelines }));

  const start = await startPipelineRun({ orgId: input.orgId, workflowId: info.workflowId, runId: info.runId, startedAt: info.startTime.toISOString(), startedBy: input.startedBy });
  progress.fileCount = start.fileCount;
  progress.pipelines = start.pipelines.map((p) => ({ name: p.name, status: 'pending', rowsMoved: 0 }));
  const result = (): PipelineRunOutput => ({
    runId: info.runId,
    status: progress.status,
    fileCount: start.fileCount,
    rowsMoved: progress.pipelines.reduce((n, p) => n + p.rowsMoved, 0),
    pipelines: progress.pipelines,
  });
  if (start.fileCount === 0) {
    progress.status = 'no_files';
    for (const p of progress.pipelines) p.status = 'skipped';
    await finish('no_files', { unstarted: 'skipped' });
    return result();
  }

  try {
    for (const [i, ref] of start.pipelines.entries()) {
      const outcome = progress.pipelines[i]!;
      const blocked = ref.dependsOn.find((d) => progress.pipelines.find((p) => p.name === d)?.status !== 'succeeded');
      if (blocked) {
        outcome.status = 'skipped';
        outcome.error = `skipped: ${blocked} did not succeed`;
        continue;
      }
      progress.currentPipeline = ref.name;
      outcome.status = 'running';
      try {
        const res = await runFactoryPipeline({ orgId: input.orgId, runId: info.runId, pipelineName: ref.name });
        outcome.status = res.status;
        outcome.rowsMoved = res.rowsMoved;
        outcome.error = res.error;
      } catch (e) {
        if (isCancellation(e)) throw e;
        outcome.status = 'failed';
        outcome.error = failureMessage(e);
      }
    }
  } catch (e) {
    if (!isCancellation(e)) throw e;
    progress.status = 'cancelled';
    for (const p of progress.pipelines) {
      if (p.status !== 'pending' && p.status !== 'running') continue;
      p.status = 'cancelled';
      p.error = 'Cancelled';
    }
    await finish('cancelled', { error: 'Cancelled', unstarted: 'cancelled' });
    throw e;
  }
  progress.currentPipeline = undefined;
  progress.status = progress.pipelines.every((p) => p.status === 'succeeded') ? 'succeeded' : 'failed';
  await finish(progress.status, { unstarted: 'skipped' });
  return result();
}
