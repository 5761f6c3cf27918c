// The consolidation on demand (id consolidate-<orgId>, one at a time per organization): one
// long-running activity on the worker, for all periods or a range. Pipeline runs consolidate
// too, as their last pipeline (activities/datafactory). Deterministic: activities only through
// proxyActivities.
import { defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ConsolidateOutput } from '../activities/warehouse/consolidate';

export type { ConsolidateOutput } from '../activities/warehouse/consolidate';
import { failureMessage } from '../common/failures';
import { PROGRESS_QUERY } from '../common/temporal';
import { longRunning } from './profiles';

// Heartbeats go out month by month (well under a second each): a lost worker is noticed within 10 s.
const { consolidate } = proxyActivities<Activities>({ ...longRunning, heartbeatTimeout: '10 seconds' });

export interface ConsolidationInput {
  orgId: string;
  from?: string;
  to?: string;
  startedBy?: { userId?: string; name?: string };
}

export interface ConsolidationProgress {
  status: 'running' | 'succeeded' | 'failed';
  from?: string;
  to?: string;
  result?: ConsolidateOutput;
  error?: string;
}

export const consolidationProgressQuery = defineQuery<ConsolidationProgress>(PROGRESS_QUERY);

export async function consolidationWorkflow(input: ConsolidationInput): Promise<ConsolidateOutput> {
  const progress: ConsolidationProgress = { status: 'running', from: input.from, to: input.to };
  setHandler(consolidationProgressQuery, () => progress);
  try {
    progress.result = await consolidate({ orgId: input.orgId, runId: workflowInfo().runId, from: input.from, to: input.to, startedBy: input.startedBy });
    progress.status = 'succeeded';
    return progress.result;
  } catch (e) {
    progress.status = 'failed';
    progress.error = failureMessage(e);
    throw e;
  }
}
