import useSWR from 'swr';
import { apiRequest, fetchData, query } from '../../../lib/api-client';

/** A QuickBooks or Sage connection as the api answers it (publicQuickBooksAccount / publicSageAccount). */
export interface Connection {
  id: string;
  status: string;
  last_synced?: string | null;
  organization_id: string;
  companyName?: string;
  realmId?: string;
  sageCompanyID?: string;
  lastError?: string | null;
  reconnectNeeded?: boolean;
  sageUserID?: string;
}

export interface SageInput {
  sageUserID: string;
  sageUserPassword: string;
  sageSenderID: string;
  sageSenderPassword: string;
  sageCompanyID: string;
}

const cid = (c: Connection) => c.id;

export const quickbooksKey = (orgId: string) => [`/quickbooks/accounts${query({ organization_id: orgId })}`, 'Failed to fetch QuickBooks accounts'] as const;
export const sageKey = (orgId: string) => [`/sage${query({ organization_id: orgId })}`, 'Failed to fetch Sage accounts'] as const;

/** GET /quickbooks/accounts?organization_id= -> data.accounts */
export function useQuickbooksAccounts(orgId: string) {
  const swr = useSWR(orgId ? quickbooksKey(orgId) : null, fetchData<{ accounts: Connection[] }>, {
    refreshInterval: (d) => (d?.accounts?.some((a) => a.status === 'syncing') ? 2000 : 0),
  });
  return { ...swr, accounts: swr.data?.accounts ?? [] };
}

/** GET /sage?organization_id= -> data (a list, or { accounts }) */
export function useSageAccounts(orgId: string) {
  const swr = useSWR(orgId ? sageKey(orgId) : null, fetchData<Connection[] | { accounts: Connection[] }>, {
    refreshInterval: (d) => ((Array.isArray(d) ? d : (d?.accounts ?? [])).some((a) => a.status === 'syncing') ? 2000 : 0),
  });
  const d = swr.data;
  return { ...swr, accounts: Array.isArray(d) ? d : (d?.accounts ?? []) };
}

/** PUT /quickbooks/status/{id} { accountStatus } */
export async function setQuickbooksStatus(c: Connection, accountStatus: string): Promise<void> {
  await apiRequest('PUT', `/quickbooks/status/${encodeURIComponent(cid(c))}`, { accountStatus }, 'Failed to update status');
}

export async function setSageStatus(c: Connection, accountStatus: string): Promise<void> {
  await apiRequest('PUT', `/sage/status/${encodeURIComponent(cid(c))}`, { accountStatus }, 'Failed to update Sage account status');
}

/** POST /quickbooks { id, organization_id }: sync now. */
export async function syncQuickbooks(orgId: string, c: Connection): Promise<string> {
  const res = await apiRequest('POST', '/quickbooks', { id: cid(c), organization_id: orgId }, 'Failed to sync QuickBooks account');
  return res.message ?? 'QuickBooks sync finished';
}

/** GET /sage/data?id=: sync now. */
export async function syncSage(c: Connection): Promise<string> {
  const res = await apiRequest('GET', `/sage/data${query({ id: cid(c) })}`, undefined, 'Failed to sync Sage account');
  return res.message ?? 'Sage sync finished';
}

/** POST /sage: checks the credentials with Intacct, then stores them (encrypted). */
export async function createSageAccount(orgId: string, input: SageInput): Promise<string> {
  const res = await apiRequest('POST', '/sage', { ...input, organization_id: orgId }, 'Failed to create Sage account');
  return res.message ?? 'Sage account connected successfully';
}

/** Step 1 of QuickBooks OAuth: the api builds Intuit's authorize URL with a state bound to the user and organization. */
export async function quickbooksAuthorizeUrl(orgId: string): Promise<string> {
  const res = await apiRequest<{ authorizeUrl?: string }>('GET', `/quickbooks/connect${query({ organization_id: orgId })}`, undefined, 'Failed to add QuickBooks account!');
  const url = res.data?.authorizeUrl;
  if (!url) throw new Error('Failed to add QuickBooks account!');
  return url;
}

/** Step 2: Intuit sent the browser back with code, state and realmId; our server exchanges the code. */
export async function exchangeQuickbooksCode(params: { code: string; state: string; realmId: string }): Promise<string> {
  const res = await apiRequest<{ accountMessage?: string }>('POST', '/quickbooks/token-exchange', params, 'Failed to add QuickBooks account!');
  return res.data?.accountMessage ?? 'QuickBooks account added successfully!';
}

export interface SyncRun {
  id: string;
  trigger?: string;
  status: string;
  startedAt: string;
  finishedAt?: string | null;
  rowsTotal?: number;
  periods?: string[];
  error?: string | null;
}

/** Each sync's history (start, end, rows, error). */
export function useSyncRuns(kind: 'quickbooks' | 'sage', id: string | null) {
  const swr = useSWR(id ? [`/${kind}/sync-runs${query({ id, limit: 20 })}`, 'Failed to load the sync history'] as const : null, fetchData<{ runs: SyncRun[] }>, {
    refreshInterval: (d) => (d?.runs?.some((r) => r.status === 'running') ? 2000 : 0),
  });
  return { ...swr, runs: swr.data?.runs ?? [] };
}

export { cid as connectionId };
