// What every connector's routes share (api/resources/connectors/router.ts builds them; a
// connector's own routes use these too): the organization a request is for, the connection a
// request names (tenant-checked), its schedule, credentials checked by the worker before they
// are stored, a sync run now (started or joined, waited on briefly) and the sync history.
import type { Client } from '@temporalio/client';
import type { ConnectorDefinition } from '../../common/connectors';
import type { Config } from '../../common/config';
import { encryptSecret } from '../../common/crypto';
import { failureMessage, failureTypeOf, httpStatusOf } from '../../common/failures';
import { logger } from '../../common/logger';
import type { ConnectorAccountDoc } from '../../common/models/connector-account';
import { PendingConnection } from '../../common/models/pending-connection';
import { publicSyncRun, type SyncProvider } from '../../common/models/sync-run';
import type { UserDoc } from '../../common/models/user';
import { withRunStore } from '../../warehouse/records/run-store';
import { workflowIds } from '../../common/temporal';
import * as connectWorkflows from '../../workflows/connectors';
import type { SyncResult } from '../../workflows/sync';
import { assertOrgAccess } from './auth';
import { resolveOrgId } from './connection-schemas';
import { ApiError, notFound } from './errors';
import { assertOrganizationExists } from './organization';
import { SYNC_WORKFLOWS, upsertSyncSchedule } from './schedules';
import { resultWithin, STILL_RUNNING, workflowStart } from './temporal';

/** Checking credentials is answered when the ledger has (a few quick retries when it cannot be reached). */
const CONNECT_WAIT_MS = 60000;
/** Pending credentials are never read after this (checked in code: FerretDB has no TTL indexes). */
const PENDING_TTL_MS = 5 * 60_000;

/** As resolveOrgId, for requests that create something for the organization: it must exist. */
export async function resolveExistingOrgId(user: UserDoc, named: string | undefined): Promise<string> {
  const orgId = resolveOrgId(user, named);
  await assertOrganizationExists(orgId);
  return orgId;
}

/** The connection, when the user may reach its organization. */
export async function loadAccount(c: ConnectorDefinition, user: UserDoc, id: string): Promise<ConnectorAccountDoc> {
  const account = await c.model.findById(id).lean<ConnectorAccountDoc>();
  if (!account) throw notFound(`${c.displayName} account not found`);
  assertOrgAccess(user, String(account.organization_id));
  return account;
}

/** Creates the connection's sync schedule, or brings it to the account's interval and state. */
export function scheduleSync(temporal: Client, cfg: Pick<Config, 'TEMPORAL_TASK_QUEUE'>, provider: SyncProvider, a: ConnectorAccountDoc, paused: boolean): Promise<void> {
  return upsertSyncSchedule(temporal, { provider, accountId: String(a._id), orgId: String(a.organization_id), intervalHours: a.syncIntervalHours, paused, taskQueue: cfg.TEMPORAL_TASK_QUEUE });
}

/**
 * Has the connector's connect workflow check credentials with the ledger (the api never calls
 * it): they wait encrypted on a PendingConnection, and only its id travels through Temporal.
 * Throws the user's failure ("Failed to connect <displayName> account" with the ledger's reason).
 */
export async function verifyCredentials(temporal: Client, cfg: Config, c: ConnectorDefinition, orgId: string, secret: Record<string, string>): Promise<void> {
  const failed = `Failed to connect ${c.displayName} account`;
  const pending = await PendingConnection.create({ provider: c.key, secretEnc: encryptSecret(JSON.stringify(secret), cfg.ENCRYPTION_KEY), expiresAt: new Date(Date.now() + PENDING_TTL_MS) });
  try {
    const pendingId = String(pending._id);
    const workflow = connectWorkflows[c.connectWorkflow] as typeof connectWorkflows.sageConnectWorkflow;
    const handle = await temporal.workflow.start(workflow, { ...workflowStart(cfg, workflowIds.connect(c.key, pendingId), orgId), args: [{ pendingId }] });
    if ((await resultWithin(temporal, handle, CONNECT_WAIT_MS)) === STILL_RUNNING) throw new ApiError(504, failed, `${failed}: ${c.ledgerName} did not answer in time`);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    logger.warn({ err: failureMessage(e), provider: c.key }, 'Credentials not verified');
    throw new ApiError(httpStatusOf(failureTypeOf(e)), failed, failureMessage(e));
  } finally {
    await PendingConnection.deleteOne({ _id: pending._id }).catch(() => undefined);
  }
}

export type SyncOutcome = { done: true; result: SyncResult } | { done: false; workflowId: string };

/** Starts (or joins) the account's sync workflow and waits a little for its end. */
export async function runSyncNow(temporal: Client, cfg: Config, provider: SyncProvider, accountId: string, orgId: string, full = false): Promise<SyncOutcome> {
  const workflowId = workflowIds.sync(provider, accountId);
  // Sync now reads what changed since the last successful sync (where the source can say); full: the whole window.
  const handle = await temporal.workflow.start(SYNC_WORKFLOWS[provider], { ...workflowStart(cfg, workflowId, orgId), args: [{ accountId, trigger: 'manual', ...(full ? { full: true } : {}) }] });
  const result = await resultWithin(temporal, handle, cfg.SYNC_NOW_WAIT_MS);
  return result === STILL_RUNNING ? { done: false, workflowId } : { done: true, result };
}

/** The account's sync runs, newest first (kept in its organization's database). */
export async function syncHistory(cfg: Config, orgId: string, provider: SyncProvider, accountId: string, limit: number) {
  const runs = (await withRunStore(cfg, orgId, (s) => s.syncHistory(provider, accountId, limit))) ?? [];
  return runs.map(publicSyncRun);
}
