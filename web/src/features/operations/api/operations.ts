// The Operations page's api (GET /operations, its version, its event stream, resume): the answer's
// types (common/contract/operations.ts, the api's too), SWR keys, and the live check.
import { useEffect, useState } from 'react';
import useSWR, { mutate } from 'swr';
import type { ConnectionOpsState, OperationsAnswer, OpsConnection } from '../../../../../common/contract/operations';
import { apiRequest, fetchData, query } from '../../../lib/api-client';
import { followEventStream } from '../../../lib/event-stream';

export type { OperationsAnswer, OpsBlocked, OpsConnection, OpsWorkflow } from '../../../../../common/contract/operations';
export type OpsState = ConnectionOpsState;
export const OPS_STATES: OpsState[] = ['failing', 'reconnect_needed', 'paused', 'syncing', 'active', 'inactive'];
export interface OpsFilter {
  state?: OpsState;
  q?: string;
}

/** How often the page asks whether anything changed while its event stream is down (a few bytes); the list is read again only then. */
export const VERSION_POLL_MS = 3000;

const listKey = (f: OpsFilter, page: number) => [`/operations${query({ state: f.state, q: f.q, page, pageSize: 25 })}`, 'Failed to load operations'] as const;

/**
 * The data's version as the api pushes it (GET /operations/events, server-sent events): each new
 * version as it happens, and whether the stream is open.
 */
export function useOperationsEvents() {
  const [state, setState] = useState<{ version?: string; connected: boolean }>({ connected: false });
  useEffect(() => {
    const stream = followEventStream('/operations/events', {
      onEvent: (e) => {
        if (e.event !== 'version') return;
        try {
          const { version } = JSON.parse(e.data) as { version: string };
          setState({ version, connected: true });
        } catch {
          // not an event of ours
        }
      },
      onConnected: (connected) => setState((s) => ({ ...s, connected })),
    });
    return () => stream.close();
  }, []);
  return state;
}

/**
 * The list, re-read when the version moves past the list's own: pushed by the event stream, or
 * (while the stream is down) asked every VERSION_POLL_MS.
 */
export function useOperations(filter: OpsFilter, page: number) {
  const key = listKey(filter, page);
  const list = useSWR(key, fetchData<OperationsAnswer>, { keepPreviousData: true });
  const pushed = useOperationsEvents();
  const polled = useSWR(pushed.connected ? null : (['/operations/version', 'Failed to check for changes'] as const), fetchData<{ version: string }>, { refreshInterval: VERSION_POLL_MS, dedupingInterval: 0 });
  const current = pushed.connected ? pushed.version : (polled.data?.version ?? pushed.version);
  const stale = Boolean(current && list.data && current !== list.data.version && !list.isValidating);
  const { mutate: reread } = list;
  useEffect(() => {
    if (stale) void reread();
  }, [stale, current, reread]);
  return { ...list, live: pushed.connected };
}

/** POST /operations/connections/:provider/:id/resume: active again, schedule running, a sync at once. */
export async function resumeConnection(c: Pick<OpsConnection, 'provider' | 'accountId'>): Promise<string> {
  const answer = await apiRequest<{ workflowId: string }>('POST', `/operations/connections/${c.provider}/${c.accountId}/resume`, undefined, 'Failed to resume the connection');
  await mutate((k) => Array.isArray(k) && typeof k[0] === 'string' && k[0].startsWith('/operations'));
  return answer.message ?? 'Resumed';
}
