import useSWR, { mutate } from 'swr';
import { ApiRequestError, apiRequest, fetchData, query } from '../../../lib/api-client';

export const PAGE_SIZE = 10;
export const RUN_FAILED = 'An error occurred while running the pipeline';

export interface Pipeline {
  name: string;
  description?: string;
  lastRun?: { status: string; startedAt?: string; endedAt?: string } | null;
  lastRunStatus?: string;
  lastRunAt?: string;
}

export interface PipelineRun {
  id?: string;
  runId?: string;
  workflowId?: string;
  status: string;
  pipelines?: { name: string; status: string; rowsMoved?: number; error?: string }[];
  pipeline?: string;
  startedAt?: string;
  endedAt?: string | null;
  durationMs?: number | null;
  rowsMoved?: number;
  error?: string | null;
  startedBy?: string | { name?: string; fullName?: string; email?: string } | null;
  temporalUrl?: string;
}

export interface RunFilter {
  status?: string;
  pipeline?: string;
  from?: string;
  to?: string;
}

export const runId = (r: PipelineRun) => r.id ?? r.runId ?? r.workflowId ?? '';

export const pipelinesKey = (orgId: string) => [`/pipeline/list-pipelines/${encodeURIComponent(orgId)}`, 'Failed to load pipelines'] as const;
export const runsKey = (orgId: string, f: RunFilter & { page?: number }) =>
  [`/pipeline/runs/${encodeURIComponent(orgId)}${query({ status: f.status, pipeline: f.pipeline, from: f.from, to: f.to, page: f.page })}`, 'Failed to load pipeline runs'] as const;

const isRunning = (r: PipelineRun) => r.status === 'running' || r.status === 'RUNNING' || r.status === 'pending';

/** GET /pipeline/list-pipelines/{organizationId} -> data.pipelines */
export function usePipelines(orgId: string) {
  const swr = useSWR(orgId ? pipelinesKey(orgId) : null, fetchData<{ pipelines: Pipeline[] }>);
  return { ...swr, pipelines: swr.data?.pipelines ?? [] };
}

interface RunsPage {
  runs: PipelineRun[];
  total?: number;
  page?: number;
  pages?: number;
}

/** Running runs: refreshed every second while any runs (live status). */
export function useRunningRuns(orgId: string) {
  const swr = useSWR(orgId ? runsKey(orgId, { status: 'running' }) : null, fetchData<RunsPage>, {
    refreshInterval: (d) => (d?.runs?.some(isRunning) ? 1000 : 0),
  });
  return { ...swr, runs: (swr.data?.runs ?? []).filter(isRunning) };
}

/** Run history with filters, 10 a page; refreshed while a run on the page is running. */
export function useRunHistory(orgId: string, filter: RunFilter, page: number) {
  const swr = useSWR(orgId ? runsKey(orgId, { ...filter, page }) : null, fetchData<RunsPage>, {
    refreshInterval: (d) => (d?.runs?.some(isRunning) ? 2000 : 0),
    keepPreviousData: true,
  });
  const total = swr.data?.total ?? swr.data?.runs?.length ?? 0;
  return { ...swr, runs: swr.data?.runs ?? [], total, pages: swr.data?.pages ?? Math.max(1, Math.ceil(total / PAGE_SIZE)) };
}

function revalidateRuns(orgId: string) {
  return mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && (key[0].startsWith(`/pipeline/runs/${encodeURIComponent(orgId)}`) || key[0].startsWith('/pipeline/list-pipelines/')));
}

/**
 * GET /pipeline/run-pipeline/{id}: runs every pipeline of the organization. Answers the
 * server's message ("All pipelines ran successfully!", "No files found to process.", ...).
 */
export async function runAllPipelines(orgId: string, onStarted?: () => void): Promise<{ ok: boolean; message: string; details?: string[] }> {
  const request = apiRequest<unknown>('GET', `/pipeline/run-pipeline/${encodeURIComponent(orgId)}`, undefined, RUN_FAILED);
  // The run shows up in the running list while the request waits for its outcome: the list is
  // asked again every 400 ms until the outcome arrives (a run can be over in a second, so one
  // look at a guessed moment could miss it); the history once, at the first look.
  let looks = 0;
  const look = setInterval(() => {
    onStarted?.();
    if (looks++ === 0) void revalidateRuns(orgId);
  }, 400);
  try {
    const res = await request;
    return { ok: true, message: res.message ?? 'All pipelines ran successfully!' };
  } catch (err) {
    // "Failed to run some pipelines." comes with each failed pipeline's outcome in errors.
    const body = err instanceof ApiRequestError ? err.body : undefined;
    if (body?.message === 'Failed to run some pipelines.') return { ok: false, message: body.message, details: (body.errors ?? []).map((e) => e.msg ?? '').filter(Boolean) };
    return { ok: false, message: (err as Error).message };
  } finally {
    clearInterval(look);
    await revalidateRuns(orgId);
  }
}

/** Cancels a running run. */
export async function cancelRun(orgId: string, run: PipelineRun): Promise<string> {
  const res = await apiRequest('POST', `/pipeline/runs/${encodeURIComponent(orgId)}/${encodeURIComponent(runId(run))}/cancel`, {}, 'Failed to cancel the run');
  await revalidateRuns(orgId);
  return res.message ?? 'Cancellation requested';
}
