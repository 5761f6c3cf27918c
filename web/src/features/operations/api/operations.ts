// The Operations page's api (GET /operations, its version, resume): types as the api answers
// them (api/resources/operations/service.ts), SWR keys, and the live check.
import { useEffect } from 'react';
import useSWR, { mutate } from 'swr';
import { apiRequest, fetchData, query } from '../../../lib/api-client';

export type OpsState = 'active' | 'syncing' | 'failing' | 'reconnect_needed' | 'paused' | 'inactive';
export const OPS_STATES: OpsState[] = ['failing', 'reconnect_needed', 'paused', 'syncing', 'active', 'inactive'];

export interface OpsConnection {
  provider: string;
  accountId: string;
  organizationId: string;
  organizationName: string;
  name: string;
  state: OpsState;
  failingSince: string | null;
  consecutiveFailures: number;
  pausedAt: string | null;
  pauseReason: string | null;
  lastSynced: string | null;
  changeAt: string | null;
  consolidatedAt: string | null;
  lastError: string | null;
}
export interface OpsWorkflow {
  workflowId: string;
  runId: string;
  organizationId: string;
  organizationName: string;
  what: string;
  status: 'retrying' | 'failed' | 'running';
  startedAt: string | null;
  closedAt: string | null;
  activity: string | null;
  attempt: number | null;
  lastFailure: string | null;
  temporalUrl: string;
}
export interface OpsBlocked {
  organizationId: string;
  organizationName: string;
  months: { period: string; reason: string }[];
  since: string;
}
export interface OperationsAnswer {
  version: string;
  builtAt: string;
  connections: { rows: OpsConnection[]; total: number; page: number; pages: number; counts: Record<OpsState, number> };
  workflows: OpsWorkflow[];
  onboardings: OpsWorkflow[];
  blocked: OpsBlocked[];
}
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
