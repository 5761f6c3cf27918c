// Names shared by the api (which starts and queries workflows) and the worker.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { SyncProvider } from './contract/connections';

/** Search attribute registered on the dev server (`--search-attribute OrganizationId=Keyword`). */
export const ORGANIZATION_ID = defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD);

/** A connector's sync of one connection: sync-<provider>-<accountId> (a schedule appends its time). */
const sync = (provider: SyncProvider, accountId: string) => `sync-${provider}-${accountId}`;
/** A connector's connect attempt: <provider>-connect-<the single-use state's or pending credentials' id>. */
const connect = (provider: SyncProvider, attemptId: string) => `${provider}-connect-${attemptId}`;

/** Workflow IDs derive from the business key so a repeated request finds the running one. */
export const workflowIds = {
  onboarding: (orgId: string) => `onboard-${orgId}`,
  onboardingStep: (step: string, orgId: string) => `onboard-${step}-${orgId}`,
  csvSave: (orgId: string, uploadId: string) => `csv-${orgId}-${uploadId}`,
  pipelineRun: (orgId: string) => `pipelines-${orgId}`,
  consolidation: (orgId: string) => `consolidate-${orgId}`,
  sync,
  /** A connection's sync schedule (api/lib/schedules.ts creates it; auto-pause pauses it). */
  syncSchedule: (provider: SyncProvider, accountId: string) => `sync-schedule-${provider}-${accountId}`,
  quickbooksSync: (accountId: string) => sync('quickbooks', accountId),
  sageSync: (accountId: string) => sync('sage', accountId),
  netsuiteSync: (accountId: string) => sync('netsuite', accountId),
  connect,
  quickbooksConnect: (stateId: string) => connect('quickbooks', stateId),
  sageConnect: (pendingId: string) => connect('sage', pendingId),
  netsuiteConnect: (pendingId: string) => connect('netsuite', pendingId),
  /** A connector's webhook event about one document of one connection (Xero): <provider>-change-<accountId>-<resourceId>. */
  change: (provider: SyncProvider, accountId: string, resourceId: string) => `${provider}-change-${accountId}-${resourceId}`,
  /** Table names compare without case in the warehouse: a delete of Sales finds one of sales running. */
  tableDelete: (orgId: string, tableName: string) => `table-delete-${orgId}-${tableName.toLowerCase()}`,
  organizationDelete: (orgId: string) => `organization-delete-${orgId}`,
  /**
   * An organization's changes on their way through trial_balance and the consolidation: finished
   * syncs (signal-with-start by each) and sources' notifications (the QuickBooks and Sage Intacct
   * webhooks signal it; it syncs the connections they name). One per organization.
   */
  organizationChanges: (orgId: string) => `organization-changes-${orgId}`,
  /** One send of a report pack, by its key (now-<id>, locked-<YYYY-MM>): the same trigger never starts a second one. */
  packSend: (packId: string, key: string) => `pack-send-${packId}-${key}`,
  /** A report pack's working-day schedule (Temporal appends the fire time to each run's id). */
  packSchedule: (packId: string) => `pack-schedule-${packId}`,
};

/** The query every product workflow answers with its live state (current step, each step's result or error). */
export const PROGRESS_QUERY = 'progress';

/** The signal a CSV load sends its save workflow as it reads (rows and bytes so far). */
export const CSV_PROGRESS_SIGNAL = 'csvLoadProgress';
