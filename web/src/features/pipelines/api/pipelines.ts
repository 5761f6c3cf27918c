import useSWR, { mutate } from 'swr';
import { ApiRequestError, apiRequest, fetchData, query } from '../../../lib/api-client';
import { PAGE_SIZE } from '../../../../../common/constants';
import { pipelineTitle } from '../run-format';
import type { PipelineRun } from './run-types';

export { PAGE_SIZE };
export const RUN_FAILED = 'An error occurred while running the pipeline';

export interface Pipeline {
  name: string;
  description?: string;
  lastRun?: { status: string; startedAt?: string; endedAt?: string } | null;
  lastRunStatus?: string;
  lastRunAt?: string;
}

// The run as the api answers it: types inferred from the shared contract's zod schemas.
export type { PipelineOfRun, PipelineRun, TableOutcome } from './run-types';

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

export const runKey = (orgId: string, id: string) => [`/pipeline/runs/${encodeURIComponent(orgId)}/${encodeURIComponent(id)}`, 'Failed to load the pipeline run'] as const;

export const isRunning = (r: PipelineRun) => r.status === 'running';

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

/** Runs recorded as running when the page looks (no polling: the live run is followed by useRun). */
export function useRunningRuns(orgId: string) {
  const swr = useSWR(orgId ? runsKey(orgId, { status: 'running' }) : null, fetchData<RunsPage>);
  return { ...swr, runs: (swr.data?.runs ?? []).filter(isRunning) };
}

/** GET /pipeline/runs/{orgId}/{runId}; a run whose record is not written yet answers run: undefined. */
async function fetchRun(key: readonly [string, string]): Promise<{ run?: PipelineRun }> {
  try {
    return await fetchData<{ run: PipelineRun }>(key);
  } catch (err) {
    if (err instanceof ApiRequestError && err.status === 404) return {};
    throw err;
  }
}

/**
 * One run, polled every second while it runs (and, for a run just started, until its record
 * is written): the single source of a running run's live state on the page.
 */
export function useRun(orgId: string, id: string | undefined, { justStarted = false } = {}) {
  const swr = useSWR(orgId && id ? runKey(orgId, id) : null, fetchRun, {
    refreshInterval: (d) => (d?.run ? (isRunning(d.run) ? 1000 : 0) : justStarted ? 1000 : 0),
    shouldRetryOnError: false,
  });
  return { ...swr, run: swr.data?.run };
}

/** Run history with filters, 10 per page (a running run on it shows the live run's state). */
export function useRunHistory(orgId: string, filter: RunFilter, page: number) {
  const swr = useSWR(orgId ? runsKey(orgId, { ...filter, page }) : null, fetchData<RunsPage>, { keepPreviousData: true });
  const total = swr.data?.total ?? swr.data?.runs?.length ?? 0;
  return { ...swr, runs: swr.data?.runs ?? [], total, pages: swr.data?.pages ?? Math.max(1, Math.ceil(total / PAGE_SIZE)) };
}

function revalidateRuns(orgId: string) {
  return mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && (key[0].startsWith(`/pipeline/runs/${encodeURIComponent(orgId)}`) || key[0].startsWith('/pipeline/list-pipelines/')));
}

export type RunStart = { run: PipelineRun } | { ok: false; message: string; details?: string[] };

/** A pipeline's outcome as the api words it ("rebuild-reporting-tables: failed: <error>"), with the pipeline named in words. */
function inWords(msg: string): string {
  const m = /^([a-z0-9][a-z0-9_-]*): (failed|cancelled|skipped|pending|running)(?:: ([\s\S]*))?$/.exec(msg);
  return m ? `${pipelineTitle(m[1]!)} ${m[2]}${m[3] ? `: ${m[3]}` : ''}` : msg;
}

/**
 * GET /pipeline/run-pipeline/{id}?wait=false: starts every pipeline of the organization as one
 * run (or joins the running one) and answers at once with the run, followed by useRun.
 */
export async function startRun(orgId: string): Promise<RunStart> {
  try {
    const res = await apiRequest<{ run: PipelineRun }>('GET', `/pipeline/run-pipeline/${encodeURIComponent(orgId)}?wait=false`, undefined, RUN_FAILED);
    if (res.data?.run && runId(res.data.run)) return { run: res.data.run };
    return { ok: false, message: res.message ?? RUN_FAILED };
  } catch (err) {
    // "Failed to run some pipelines." comes with each failed pipeline's outcome in errors.
    const body = err instanceof ApiRequestError ? err.body : undefined;
    if (body?.message === 'Failed to run some pipelines.') return { ok: false, message: body.message, details: (body.errors ?? []).map((e) => inWords(e.msg ?? '')).filter(Boolean) };
    return { ok: false, message: (err as Error).message };
  }
}

export interface RunOutcome {
  intent: 'success' | 'danger' | 'warning' | 'none';
  message: string;
  details?: string[];
}

/** The message a finished run leaves, in the server's words (spec section 5). */
export function runOutcome(run: PipelineRun): RunOutcome | undefined {
  switch (run.status) {
    case 'succeeded':
      return { intent: 'success', message: 'All pipelines ran successfully!' };
    case 'no_files':
      return { intent: 'warning', message: 'No files found to process.' };
    case 'cancelled':
      return { intent: 'none', message: 'The pipeline run was cancelled.' };
    case 'failed': {
      const details = (run.pipelines ?? []).filter((p) => p.status === 'failed').map((p) => `${pipelineTitle(p.name)} failed${p.error ? `: ${p.error}` : ''}`);
      return { intent: 'danger', message: 'Failed to run some pipelines.', details: details.length ? details : run.error ? [run.error] : [] };
    }
    default:
      return undefined;
  }
}

export { revalidateRuns };

/** Cancels a running run. */
export async function cancelRun(orgId: string, run: PipelineRun): Promise<string> {
  const res = await apiRequest('POST', `/pipeline/runs/${encodeURIComponent(orgId)}/${encodeURIComponent(runId(run))}/cancel`, {}, 'Failed to cancel the run');
  await revalidateRuns(orgId);
  return res.message ?? 'Cancellation requested';
}
