import useSWR from 'swr';
import { apiRequest, fetchData, query } from '../../../lib/api-client';
import type { SyncRunAnswer } from '../../../../../common/contract/connections';
import type { FreshnessAnswer } from '../../../../../common/contract/freshness';
import { APPS } from '../connectors/registry';
import type { App, Connection } from '../connectors/types';

// The Apps screen's calls, the same for every connector (the api's generic connector routes,
// api/resources/connectors/router.ts): the paths from the connector's key, the answer shapes from
// its `answers` (spec section 7: 'wrapped' GET /<key>/accounts -> data.accounts, sync now POST
// /<key> { id }; 'bare' GET /<key> -> data, sync now GET /<key>/data?id=).
export type { Connection };
export type SyncRun = SyncRunAnswer;

/** The outside system refused the stored authorization or certificate: the connection must be made again. */
export const needsReconnect = (c: Connection) => c.reconnectNeeded === true;

const cid = (c: Connection) => c.id;
export { cid as connectionId };

/** One connector's connections, or why they could not be read. */
export interface AppConnections {
  accounts: Connection[];
  error?: Error;
}

async function listOf(app: App, orgId: string): Promise<Connection[]> {
  const failed = `Failed to fetch ${app.appName} ${app.noun}s`;
  if (app.answers === 'wrapped') return (await fetchData<{ accounts?: Connection[] }>([`/${app.key}/accounts${query({ organization_id: orgId })}`, failed])).accounts ?? [];
  const d = await fetchData<Connection[] | { accounts?: Connection[] }>([`/${app.key}${query({ organization_id: orgId })}`, failed]);
  return Array.isArray(d) ? d : (d?.accounts ?? []);
}

/** Every connector's connections (GET /<key>/accounts or /<key>?organization_id=), each list with its own error. */
export function useConnections(orgId: string) {
  const swr = useSWR(orgId ? (['apps-connections', orgId] as const) : null, async ([, org]: readonly [string, string]) => {
    const lists = await Promise.allSettled(APPS.map((a) => listOf(a, org)));
    return Object.fromEntries(APPS.map((a, i) => {
      const r = lists[i]!;
      return [a.key, r.status === 'fulfilled' ? { accounts: r.value } : { accounts: [], error: r.reason as Error }];
    })) as Record<string, AppConnections>;
  });
  return { ...swr, lists: swr.data ?? {} };
}

/** GET /<key>/availability for each oauth2-code connector: whether this server has its app settings (unknown until answered). */
export function useAvailability() {
  const oauth = APPS.filter((a) => a.auth === 'oauth2-code');
  const swr = useSWR(['apps-availability', ...oauth.map((a) => a.key)] as const, async () => {
    const answers = await Promise.allSettled(oauth.map((a) => fetchData<{ available: boolean }>([`/${a.key}/availability`, `Failed to check ${a.appName}`])));
    return Object.fromEntries(oauth.map((a, i) => [a.key, answers[i]!.status === 'fulfilled' ? Boolean((answers[i] as PromiseFulfilledResult<{ available: boolean }>).value?.available) : false]));
  });
  /** Whether a connector can be chosen: a credentials one always, an oauth2-code one once its server said so. */
  const available = (app: App) => app.auth !== 'oauth2-code' || swr.data?.[app.key] === true;
  const known = (app: App) => app.auth !== 'oauth2-code' || swr.data !== undefined;
  return { available, known };
}

/** PUT /<key>/status/{id} { accountStatus } */
export async function setStatus(app: App, c: Connection, accountStatus: string): Promise<void> {
  await apiRequest('PUT', `/${app.key}/status/${encodeURIComponent(cid(c))}`, { accountStatus }, `Failed to update ${app.appName} ${app.noun} status`);
}

/** What Sync now answered: what the sync read (when it ended within the answer's wait), and the change id its way into the reports is followed by. */
export interface SyncAnswer {
  message: string;
  rowsTotal?: number;
  periods?: string[];
  changeId?: string;
  /** incremental: only the months the source changed were read; full: the whole window. */
  mode?: 'incremental' | 'full';
  /** Still going on in the background (202). */
  running?: boolean;
}
type SyncData = { rowsTotal?: number; periods?: string[]; changeId?: string; mode?: 'incremental' | 'full'; running?: boolean };
const syncAnswer = (res: { message?: string; data?: SyncData }, fallback: string): SyncAnswer => ({ message: res.message ?? fallback, ...(res.data ?? {}) });

export type Freshness = FreshnessAnswer;
export type ChangeProgress = NonNullable<FreshnessAnswer['change']>;

/** GET /freshness?organization_id=: how fresh each connection's and the organization's figures are (refreshed every 30 s). */
export function useFreshness(orgId: string) {
  const swr = useSWR(orgId ? [`/freshness${query({ organization_id: orgId })}`, 'Failed to load the freshness'] as const : null, fetchData<Freshness>, { refreshInterval: 30_000 });
  return { ...swr, freshness: swr.data };
}

/** GET /freshness?organization_id=&changeId=: one sync's way into the reports. */
export async function fetchChange(orgId: string, changeId: string): Promise<ChangeProgress | undefined> {
  return (await fetchData<Freshness>([`/freshness${query({ organization_id: orgId, changeId })}`, 'Failed to follow the sync'])).change;
}

/** Sync now (full: a full resync): POST /<key> { id, organization_id, full? } (wrapped) or GET /<key>/data?id=&full= (bare); 202 while it goes on in the background. */
export async function syncNow(app: App, orgId: string, c: Connection, full = false): Promise<SyncAnswer> {
  const failed = `Failed to sync ${app.appName} ${app.noun}`;
  const res =
    app.answers === 'wrapped'
      ? await apiRequest<SyncData>('POST', `/${app.key}`, { id: cid(c), organization_id: orgId, ...(full ? { full: true } : {}) }, failed)
      : await apiRequest<SyncData>('GET', `/${app.key}/data${query({ id: cid(c), ...(full ? { full: 'true' } : {}) })}`, undefined, failed);
  return syncAnswer(res, `${app.appName} sync finished`);
}

/** A chosen file's text (FileReader: also where Blob.text is missing); label names it when it cannot be read. */
export function readFileText(file: Blob, label: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(new Error(`The ${label.toLowerCase()} could not be read`));
    reader.readAsText(file);
  });
}

/** POST /<key> (credentials connectors): the worker checks the credentials with the ledger, then the api stores them (encrypted). */
export async function createConnection(app: App, orgId: string, input: Record<string, string>): Promise<string> {
  const res = await apiRequest('POST', `/${app.key}`, { ...input, organization_id: orgId }, `Failed to connect ${app.appName} ${app.noun}`);
  return res.message ?? `${app.appName} ${app.noun} connected successfully`;
}

/** Step 1 of an oauth2-code connector's consent: the api builds the ledger's authorize URL with a state bound to the user and organization. */
export async function authorizeUrl(app: App, orgId: string): Promise<string> {
  const failed = `Failed to connect ${app.appName}`;
  const res = await apiRequest<{ authorizeUrl?: string }>('GET', `/${app.key}/connect${query({ organization_id: orgId })}`, undefined, failed);
  const url = res.data?.authorizeUrl;
  if (!url) throw new Error(failed);
  return url;
}

/** Step 2: the ledger sent the browser back (/apps/<key>/callback) with code, state and what else it adds (Intuit: realmId); our server exchanges the code. */
export async function exchangeCode<T = { accountMessage?: string }>(app: App, params: Record<string, string>): Promise<{ message?: string; data?: T }> {
  return apiRequest<T>('POST', `/${app.key}/token-exchange`, params, `Failed to connect ${app.appName}`);
}

/** Each sync's history (start, end, rows, error). */
export function useSyncRuns(key: string, id: string | null) {
  const swr = useSWR(id ? [`/${key}/sync-runs${query({ id, limit: 20 })}`, 'Failed to load the sync history'] as const : null, fetchData<{ runs: SyncRun[] }>, {
    refreshInterval: (d) => (d?.runs?.some((r) => r.status === 'running') ? 2000 : 0),
  });
  return { ...swr, runs: swr.data?.runs ?? [] };
}
