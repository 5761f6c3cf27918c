// What the accounting connection resources (quickbooks, sage, netsuite) share: the organization a request
// is for, a sync run now (started or joined through the gateway, waited on briefly), and the
// sync history of an account.
import type { Client } from '@temporalio/client';
import type { Config } from '../../common/config';
import { publicSyncRun, type SyncProvider } from '../../common/models/sync-run';
import { withRunStore } from '../../warehouse/records/run-store';
import type { UserDoc } from '../../common/models/user';
import type { SyncResult } from '../../workflows/sync';
import { resolveOrgId } from '../resources/quickbooks/schemas';
import { assertOrganizationExists } from './organization';
import { SYNC_WORKFLOWS } from './schedules';
import { resultWithin, STILL_RUNNING, workflowStart } from './temporal';

/** A sync run now is answered when it ends within this time; otherwise 202 and it goes on. */
const SYNC_WAIT_MS = 25000;

/** As resolveOrgId, for requests that create something for the organization: it must exist. */
export async function resolveExistingOrgId(user: UserDoc, named: string | undefined): Promise<string> {
  const orgId = resolveOrgId(user, named);
  await assertOrganizationExists(orgId);
  return orgId;
}

export type SyncOutcome = { done: true; result: SyncResult } | { done: false; workflowId: string };

/** Starts (or joins) the account's sync workflow and waits a little for its end. */
export async function runSyncNow(temporal: Client, cfg: Config, provider: SyncProvider, accountId: string, orgId: string): Promise<SyncOutcome> {
  const workflowId = SYNC_WORKFLOWS[provider].id(accountId);
  const handle = await temporal.workflow.start(SYNC_WORKFLOWS[provider].type, { ...workflowStart(cfg, workflowId, orgId), args: [{ accountId, trigger: 'manual' }] });
  const result = await resultWithin(temporal, handle as { result(): Promise<SyncResult> }, SYNC_WAIT_MS);
  return result === STILL_RUNNING ? { done: false, workflowId } : { done: true, result };
}

/** The account's sync runs, newest first (kept in its organization's database). */
export async function syncHistory(cfg: Config, orgId: string, provider: SyncProvider, accountId: string, limit: number) {
  const runs = (await withRunStore(cfg, orgId, (s) => s.syncHistory(provider, accountId, limit))) ?? [];
  return runs.map(publicSyncRun);
}
