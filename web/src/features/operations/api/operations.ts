// The Operations page's api (GET /operations, its version, resume): the answer's types
// (common/contract/operations.ts, the api's too), SWR keys, and the live check.
import { useEffect } from 'react';
import useSWR, { mutate } from 'swr';
import type { ConnectionOpsState, OperationsAnswer, OpsConnection } from '../../../../../common/contract/operations';
import { apiRequest, fetchData, query } from '../../../lib/api-client';

export type { OperationsAnswer, OpsBlocked, OpsConnection, OpsWorkflow } from '../../../../../common/contract/operations';
export type OpsState = ConnectionOpsState;
export const OPS_STATES: OpsState[] = ['failing', 'reconnect_needed', 'paused', 'syncing', 'active', 'inactive'];
export interface OpsFilter {
  state?: OpsState;
  q?: string;
}

/** How often the page asks whether anything changed (a few bytes); the list is read again only then. */
export const VERSION_POLL_MS = 3000;

const listKey = (f: OpsFilter, page: number) => [`/operations${query({ state: f.state, q: f.q, page, pageSize: 25 })}`, 'Failed to load operations'] as const;

/** The list, re-read when the version the api answers moves past the list's own. */
export function useOperations(filter: OpsFilter, page: number) {
  const key = listKey(filter, page);
  const list = useSWR(key, fetchData<OperationsAnswer>, { keepPreviousData: true });
  const version = useSWR(['/operations/version', 'Failed to check for changes'] as const, fetchData<{ version: string }>, { refreshInterval: VERSION_POLL_MS, dedupingInterval: 0 });
  const current = version.data?.version;
  const stale = Boolean(current && list.data && current !== list.data.version && !list.isValidating);
  const { mutate: reread } = list;
  useEffect(() => {
    if (stale) void reread();
  }, [stale, current, reread]);
  return list;
}

/** POST /operations/connections/:provider/:id/resume: active again, schedule running, a sync at once. */
export async function resumeConnection(c: Pick<OpsConnection, 'provider' | 'accountId'>): Promise<string> {
  const answer = await apiRequest<{ workflowId: string }>('POST', `/operations/connections/${c.provider}/${c.accountId}/resume`, undefined, 'Failed to resume the connection');
  await mutate((k) => Array.isArray(k) && typeof k[0] === 'string' && k[0].startsWith('/operations'));
  return answer.message ?? 'Resumed';
}
