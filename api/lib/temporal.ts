// The api's one connection to Temporal. Calls retry briefly (about a second) instead of the
// SDK's ~15 s default, so that while Temporal is down a request gets a quick 503 with the
// reason (errorHandler, via temporalUnavailable) instead of hanging until the client gives up.
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type WorkflowHandle } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Config } from '../../common/config';
import { ORGANIZATION_ID, PROGRESS_QUERY } from '../../common/temporal';

export const TEMPORAL_UNAVAILABLE = 'The workflow service (Temporal) cannot be reached right now: nothing was started or changed. Try again in a minute.';

/** gRPC status codes that mean "Temporal is not there" (not "your request was wrong"). */
const UNAVAILABLE_CODES = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */]);

/** True when the error (or one of its causes) says the Temporal frontend could not be reached. */
export function temporalUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && UNAVAILABLE_CODES.has(code)) return true;
  }
  return false;
}

/** A lazy connection (the api starts even while Temporal is still starting) with short call retries. */
export function createTemporalClient(cfg: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>): { client: Client; connection: Connection } {
  const connection = Connection.lazy({
    address: cfg.TEMPORAL_ADDRESS,
    connectTimeout: '2 seconds',
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 5, initialIntervalMs: () => 100, maxIntervalMs: () => 500 }))],
  });
  return { connection, client: new Client({ connection, namespace: cfg.TEMPORAL_NAMESPACE }) };
}

/**
 * The start options of every workflow the api starts: the product's task queue, the id from
 * the business key (common/temporal.ts workflowIds), the organization search attribute. A
 * repeated request joins the running workflow ('join'), or is refused ('fail': the caller
 * answers 409); a finished one may run again.
 */
export function workflowStart(cfg: Pick<Config, 'TEMPORAL_TASK_QUEUE'>, workflowId: string, orgId: string, conflict: 'join' | 'fail' = 'join') {
  return {
    workflowId,
    taskQueue: cfg.TEMPORAL_TASK_QUEUE,
    workflowIdConflictPolicy: conflict === 'join' ? ('USE_EXISTING' as const) : ('FAIL' as const),
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const,
    typedSearchAttributes: new TypedSearchAttributes([{ key: ORGANIZATION_ID, value: orgId }]),
  };
}

export const STILL_RUNNING = Symbol('still running');

/** The promise's value, or STILL_RUNNING after `ms` (the work goes on; an answer must not wait longer). */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof STILL_RUNNING> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<typeof STILL_RUNNING>((r) => (timer = setTimeout(() => r(STILL_RUNNING), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A workflow's progress query, or null when no worker answers within `ms` (or it has ended
 * without one). An unanswered query is aborted, so no call outlives the answer.
 */
export async function queryProgress<P>(client: Client, handle: WorkflowHandle, ms = 3000): Promise<P | null> {
  const abort = new AbortController();
  try {
    const answer = await within(client.withAbortSignal(abort.signal, () => handle.query<P>(PROGRESS_QUERY)).catch(() => null), ms);
    return answer === STILL_RUNNING ? null : answer;
  } finally {
    abort.abort();
  }
}

/**
 * A workflow's result, or STILL_RUNNING after `ms`. The wait for the result is then aborted, so
 * no long poll outlives the answer (an abandoned one would go on until the workflow ends).
 */
export async function resultWithin<T>(client: Client, handle: { result(): Promise<T> }, ms: number): Promise<T | typeof STILL_RUNNING> {
  const abort = new AbortController();
  try {
    return await within(
      client.withAbortSignal(abort.signal, () => handle.result()),
      ms,
    );
  } finally {
    abort.abort();
  }
}

export function temporalUiUrl(cfg: Config, workflowId: string, runId?: string): string {
  return `${cfg.TEMPORAL_UI_URL}/namespaces/${encodeURIComponent(cfg.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}${runId ? `/${encodeURIComponent(runId)}/history` : ''}`;
}
