// The contract of the accounting connections as the api answers them (common/models:
// connector-account.ts and each connector's model, publicSyncRun) and the web app reads them: zod
// schemas, their types inferred for the web app, checked against real answers by
// test/quickbooks.test.ts, test/sage.test.ts and test/netsuite.test.ts; api/openapi.ts shows them for the 200 answers
// that carry connections or sync runs. Pure: zod only.
import { z } from 'zod';
import { CONNECTOR_KEYS } from '../connectors/keys';

/** active/inactive are set by the user; reconnect_needed when the ledger refused the stored credentials. */
export const CONNECTION_STATUSES = ['active', 'inactive', 'reconnect_needed'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
/** reconnect_needed when Intuit refused the refresh token. */
export const QUICKBOOKS_STATUSES = CONNECTION_STATUSES;
export type QuickBooksStatus = (typeof QUICKBOOKS_STATUSES)[number];
/** Sage Intacct connections are never marked reconnect_needed (a refused password fails the sync). */
export const SAGE_STATUSES = ['active', 'inactive'] as const;
export type SageStatus = (typeof SAGE_STATUSES)[number];
/** reconnect_needed when NetSuite refused the stored key or certificate. */
export const NETSUITE_STATUSES = CONNECTION_STATUSES;
export type NetSuiteStatus = (typeof NETSUITE_STATUSES)[number];
/** The connectors' keys (common/connectors/keys.ts, one line per connector). */
export type SyncProvider = (typeof CONNECTOR_KEYS)[number]['key'];
export const SYNC_PROVIDERS = CONNECTOR_KEYS.map((c) => c.key) as [SyncProvider, ...SyncProvider[]];
/** Each connector's ledger as messages name it ("Sage Intacct sync"), beside its key: the warehouse's and the web app's words come from here. */
export const CONNECTOR_NAMES = Object.fromEntries(CONNECTOR_KEYS.map((c) => [c.key, c.ledgerName])) as Readonly<Record<SyncProvider, string>>;
/** The connectors whose connections are authorized by the OAuth 2.0 authorization-code flow (a consent's single-use state names one). */
export const OAUTH_PROVIDERS = CONNECTOR_KEYS.filter((c) => c.auth === 'oauth2-code').map((c) => c.key) as [SyncProvider, ...SyncProvider[]];
/** manual: Sync now; schedule: the connection's schedule; webhook: a source's change notification (QuickBooks webhook, Sage Intacct trigger; synced by workflow organization-changes-<orgId>). */
export const SYNC_TRIGGERS = ['manual', 'schedule', 'webhook'] as const;
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number];
export const SYNC_RUN_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type SyncRunStatus = (typeof SYNC_RUN_STATUSES)[number];

/** Dates travel as ISO text. */
const when = z.string().datetime({ offset: true });
/** Hours between scheduled syncs. */
const syncIntervalHours = z.number().positive();

/**
 * The answer of one connection: the fields every connector answers (id, organization, status,
 * schedule, last sync and error), with the connector's own fields after last_synced. Each
 * connector's answer schema is this factory with its statuses and fields.
 */
export function connectionAnswerSchema<S extends readonly [string, ...string[]], F extends z.ZodRawShape>(statuses: S, own: F) {
  return z.object({
    id: z.string(),
    /** The same id under the name the spec's first clients read. */
    _id: z.string(),
    organization_id: z.string(),
    status: z.enum(statuses as unknown as [S[number], ...S[number][]]),
    /** status is reconnect_needed (always false for a connector that never needs one). */
    reconnectNeeded: z.boolean(),
    last_synced: when.nullable(),
    ...own,
    syncIntervalHours,
    lastError: z.string().nullable(),
  });
}

export const quickBooksAccountSchema = connectionAnswerSchema(QUICKBOOKS_STATUSES, { companyName: z.string(), realmId: z.string() });

export const sageAccountSchema = connectionAnswerSchema(SAGE_STATUSES, { sageCompanyID: z.string(), sageUserID: z.string(), sageSenderID: z.string() });

/** A NetSuite subsidiary as the last sync found it (each is an entity of trial_balance and the consolidation). */
export const netSuiteSubsidiarySchema = z.object({
  id: z.string(),
  name: z.string(),
  currency: z.string().nullable(),
  parent: z.string().nullable(),
  /** Its entity key in trial_balance and the consolidation. */
  entity: z.string(),
});

export const netSuiteAccountSchema = connectionAnswerSchema(NETSUITE_STATUSES, {
  /** The NetSuite account ID (1234567, 1234567_SB1). */
  accountId: z.string(),
  /** The integration record's client ID and the certificate ID of the mapping (the private key is never answered). */
  clientId: z.string(),
  certificateId: z.string(),
  /** How the key signs: PS256 (RSA) or ES256/ES384/ES512 (EC). */
  algorithm: z.string(),
  subsidiaries: z.array(netSuiteSubsidiarySchema),
});

/** One sync of one connection (GET /quickbooks/sync-runs, GET /sage/sync-runs, GET /netsuite/sync-runs). */
export const syncRunSchema = z.object({
  id: z.string(),
  provider: z.enum(SYNC_PROVIDERS),
  accountId: z.string(),
  organization_id: z.string(),
  workflowId: z.string(),
  trigger: z.enum(SYNC_TRIGGERS),
  status: z.enum(SYNC_RUN_STATUSES),
  startedAt: when,
  finishedAt: when.nullable(),
  /** Rows written per table. */
  rows: z.record(z.number().int().min(0)),
  rowsTotal: z.number().int().min(0),
  /** The months synced, YYYY-MM. */
  periods: z.array(z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/)),
  error: z.string().nullable(),
  /** How its data went on into the reports: null until the organization's changes round that applied it has finished. */
  reports: z
    .object({
      appliedAt: when,
      /** The months whose trial_balance rows changed. */
      monthsChanged: z.array(z.string()),
      consolidation: z.enum(['succeeded', 'failed', 'not-configured', 'unchanged']),
      consolidatedAt: when.nullable(),
      error: z.string().nullable(),
    })
    .nullable(),
});

/** GET /quickbooks/accounts. */
export const quickBooksAccountListSchema = z.object({ accounts: z.array(quickBooksAccountSchema) });
/** GET /sage: data is the list itself. */
export const sageAccountListSchema = z.array(sageAccountSchema);
/** GET /netsuite: data is the list itself (as for Sage). */
export const netSuiteAccountListSchema = z.array(netSuiteAccountSchema);
/** GET /quickbooks/sync-runs, GET /sage/sync-runs and GET /netsuite/sync-runs: newest first. */
export const syncHistorySchema = z.object({ runs: z.array(syncRunSchema) });

export type QuickBooksAccountAnswer = z.infer<typeof quickBooksAccountSchema>;
export type SageAccountAnswer = z.infer<typeof sageAccountSchema>;
export type NetSuiteAccountAnswer = z.infer<typeof netSuiteAccountSchema>;
export type SyncRunAnswer = z.infer<typeof syncRunSchema>;
