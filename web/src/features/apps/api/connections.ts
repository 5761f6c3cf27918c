import useSWR from 'swr';
import { apiRequest, fetchData, query } from '../../../lib/api-client';
import type { NetSuiteAccountAnswer, QuickBooksAccountAnswer, SageAccountAnswer, SyncRunAnswer } from '../../../../../common/contract/connections';
import type { XeroAccountAnswer, XeroGrantAnswer } from '../../../../../common/contract/xero';
import type { FreshnessAnswer } from '../../../../../common/contract/freshness';

// The connections and their sync runs as the api answers them: types inferred from the shared contract's schemas.
export type QuickBooksConnection = QuickBooksAccountAnswer;
export type SageConnection = SageAccountAnswer;
export type NetSuiteConnection = NetSuiteAccountAnswer;
export type XeroConnection = XeroAccountAnswer;
export type XeroGrant = XeroGrantAnswer;
/** A QuickBooks, Sage, NetSuite or Xero connection. */
export type Connection = QuickBooksConnection | SageConnection | NetSuiteConnection | XeroConnection;
export type SyncRun = SyncRunAnswer;

/** What a connection is shown as: the QuickBooks company (or realm), the Sage company, the NetSuite account ID. */
export const connectionName = (c: Connection) =>
  'realmId' in c ? c.companyName || c.realmId : 'sageCompanyID' in c ? c.sageCompanyID : 'tenantName' in c ? c.tenantName || 'Xero organisation' : c.accountId;
/** The outside system refused the stored authorization (QuickBooks) or certificate (NetSuite): the connection must be made again. */
export const needsReconnect = (c: Connection) => 'reconnectNeeded' in c && c.reconnectNeeded;

export interface SageInput {
  sageUserID: string;
  sageUserPassword: string;
  sageSenderID: string;
  sageSenderPassword: string;
  sageCompanyID: string;
}

export interface NetSuiteInput {
  accountId: string;
  clientId: string;
  certificateId: string;
  /** The certificate's private key, PEM text read from the chosen file. */
  privateKey: string;
}

const cid = (c: Connection) => c.id;

export const quickbooksKey = (orgId: string) => [`/quickbooks/accounts${query({ organization_id: orgId })}`, 'Failed to fetch QuickBooks accounts'] as const;
export const sageKey = (orgId: string) => [`/sage${query({ organization_id: orgId })}`, 'Failed to fetch Sage accounts'] as const;
export const xeroKey = (orgId: string) => [`/xero${query({ organization_id: orgId })}`, 'Failed to fetch Xero organisations'] as const;
export const netsuiteKey = (orgId: string) => [`/netsuite${query({ organization_id: orgId })}`, 'Failed to fetch NetSuite accounts'] as const;

/** GET /quickbooks/accounts?organization_id= -> data.accounts */
export function useQuickbooksAccounts(orgId: string) {
  const swr = useSWR(orgId ? quickbooksKey(orgId) : null, fetchData<{ accounts: QuickBooksConnection[] }>);
  return { ...swr, accounts: swr.data?.accounts ?? [] };
}

/** GET /sage?organization_id= -> data (a list, or { accounts }) */
export function useSageAccounts(orgId: string) {
  const swr = useSWR(orgId ? sageKey(orgId) : null, fetchData<SageConnection[] | { accounts: SageConnection[] }>);
  const d = swr.data;
  return { ...swr, accounts: Array.isArray(d) ? d : (d?.accounts ?? []) };
}

/** GET /netsuite?organization_id= -> data (a list) */
export function useNetSuiteAccounts(orgId: string) {
  const swr = useSWR(orgId ? netsuiteKey(orgId) : null, fetchData<NetSuiteConnection[]>);
  return { ...swr, accounts: swr.data ?? [] };
}

/** GET /xero?organization_id= -> data (a list) */
export function useXeroAccounts(orgId: string) {
  const swr = useSWR(orgId ? xeroKey(orgId) : null, fetchData<XeroConnection[]>);
  return { ...swr, accounts: swr.data ?? [] };
}

export async function setXeroStatus(c: Connection, accountStatus: string): Promise<void> {
  await apiRequest('PUT', `/xero/status/${encodeURIComponent(cid(c))}`, { accountStatus }, 'Failed to update Xero account status');
}

/** GET /xero/data?id=: sync now (202 while it goes on in the background). */
export async function syncXero(c: Connection): Promise<SyncAnswer> {
  return syncAnswer(await apiRequest<SyncData>('GET', `/xero/data${query({ id: cid(c) })}`, undefined, 'Failed to sync Xero account'), 'Xero sync finished');
}

/** Step 1 of Xero OAuth: the api builds Xero's authorize URL with a state bound to the user and organization. */
export async function xeroAuthorizeUrl(orgId: string): Promise<string> {
  const res = await apiRequest<{ authorizeUrl?: string }>('GET', `/xero/connect${query({ organization_id: orgId })}`, undefined, 'Failed to connect Xero');
  const url = res.data?.authorizeUrl;
  if (!url) throw new Error('Failed to connect Xero');
  return url;
}

/** Step 2: Xero sent the browser back with code and state; our server exchanges the code and lists the organisations granted. */
export async function exchangeXeroCode(params: { code: string; state: string }): Promise<XeroGrant> {
  const res = await apiRequest<XeroGrant>('POST', '/xero/token-exchange', params, 'Failed to connect Xero');
  if (!res.data) throw new Error('Failed to connect Xero');
  return res.data;
}

/** Step 3: the organisations picked become connections. */
export async function linkXeroOrganisations(grantId: string, tenantIds: string[]): Promise<string> {
  const res = await apiRequest('POST', '/xero/link', { grantId, tenantIds }, 'Failed to link Xero organisations');
  return res.message ?? 'Xero organisations linked';
}

/** GET /xero/availability: whether this server has Xero's app settings (false while unknown). */
export function useXeroAvailable() {
  const swr = useSWR(['/xero/availability', 'Failed to check Xero'] as const, fetchData<{ available: boolean }>);
  return { available: swr.data?.available ?? false, known: swr.data !== undefined };
}

/** PUT /quickbooks/status/{id} { accountStatus } */
export async function setQuickbooksStatus(c: Connection, accountStatus: string): Promise<void> {
  await apiRequest('PUT', `/quickbooks/status/${encodeURIComponent(cid(c))}`, { accountStatus }, 'Failed to update status');
}

export async function setSageStatus(c: Connection, accountStatus: string): Promise<void> {
  await apiRequest('PUT', `/sage/status/${encodeURIComponent(cid(c))}`, { accountStatus }, 'Failed to update Sage account status');
}

export async function setNetSuiteStatus(c: Connection, accountStatus: string): Promise<void> {
  await apiRequest('PUT', `/netsuite/status/${encodeURIComponent(cid(c))}`, { accountStatus }, 'Failed to update NetSuite account status');
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

/** POST /quickbooks { id, organization_id, full? }: sync now (what changed; full: a full resync). */
export async function syncQuickbooks(orgId: string, c: Connection, full = false): Promise<SyncAnswer> {
  return syncAnswer(await apiRequest<SyncData>('POST', '/quickbooks', { id: cid(c), organization_id: orgId, ...(full ? { full: true } : {}) }, 'Failed to sync QuickBooks account'), 'QuickBooks sync finished');
}

/** GET /sage/data?id=&full=: sync now (what changed; full: a full resync). */
export async function syncSage(c: Connection, full = false): Promise<SyncAnswer> {
  return syncAnswer(await apiRequest<SyncData>('GET', `/sage/data${query({ id: cid(c), ...(full ? { full: 'true' } : {}) })}`, undefined, 'Failed to sync Sage account'), 'Sage sync finished');
}

/** GET /netsuite/data?id=&full=: sync now (202 while it goes on in the background; full: a full resync). */
export async function syncNetSuite(c: Connection, full = false): Promise<SyncAnswer> {
  return syncAnswer(await apiRequest<SyncData>('GET', `/netsuite/data${query({ id: cid(c), ...(full ? { full: 'true' } : {}) })}`, undefined, 'Failed to sync NetSuite account'), 'NetSuite sync finished');
}

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

/** The chosen private key file's text (FileReader: also where Blob.text is missing). */
export function readKeyFile(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(new Error('The private key file could not be read'));
    reader.readAsText(file);
  });
}

/** POST /netsuite: the worker checks the key and certificate with NetSuite (a token and one query), then the api stores them (the key encrypted). */
export async function createNetSuiteAccount(orgId: string, input: NetSuiteInput): Promise<string> {
  const res = await apiRequest('POST', '/netsuite', { ...input, organization_id: orgId }, 'Failed to connect NetSuite account');
  return res.message ?? 'NetSuite account connected successfully';
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

/** Each sync's history (start, end, rows, error). */
export function useSyncRuns(kind: 'quickbooks' | 'sage' | 'netsuite' | 'xero', id: string | null) {
  const swr = useSWR(id ? [`/${kind}/sync-runs${query({ id, limit: 20 })}`, 'Failed to load the sync history'] as const : null, fetchData<{ runs: SyncRun[] }>, {
    refreshInterval: (d) => (d?.runs?.some((r) => r.status === 'running') ? 2000 : 0),
  });
  return { ...swr, runs: swr.data?.runs ?? [] };
}

export { cid as connectionId };

/** GET /quickbooks/availability: whether this server has Intuit's app settings (false while unknown). */
export function useQuickbooksAvailable() {
  const swr = useSWR(['/quickbooks/availability', 'Failed to check QuickBooks'] as const, fetchData<{ available: boolean }>);
  return { available: swr.data?.available ?? false, known: swr.data !== undefined };
}
