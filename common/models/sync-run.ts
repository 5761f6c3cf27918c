// One sync of one accounting connection: written by the sync workflow's activities at start and
// end, kept in the organization's own database (warehouse/records/run-store.ts); the Mongo
// collection of earlier versions is only read by the upgrade's move (warehouse/records/run-migration.ts).
import type { SyncProvider, SyncRunAnswer, SyncRunStatus, SyncTrigger } from '../contract/connections';

export { SYNC_PROVIDERS, SYNC_RUN_STATUSES, SYNC_TRIGGERS, type SyncProvider, type SyncRunStatus, type SyncTrigger } from '../contract/connections';

export interface SyncRunRecord {
  /** The id answers carry (an ObjectId's hex, as the Mongo record's _id was). */
  id: string;
  provider: SyncProvider;
  accountId: string;
  organization_id: string;
  workflowId: string;
  /** Temporal run id: a retried start activity finds its own record instead of adding one. */
  runId: string;
  trigger: SyncTrigger;
  status: SyncRunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  /** Rows written per table. */
  rows: Record<string, number>;
  rowsTotal: number;
  periods: string[];
  error: string | null;
  /** How the sync's data went on into the reports (the organization's changes workflow), once it has. */
  reports?: SyncReportsRecord | null;
}

export interface SyncReportsRecord {
  /** When the round that applied it finished. */
  appliedAt: Date;
  /** The months whose trial_balance rows that round changed. */
  monthsChanged: string[];
  consolidation: 'succeeded' | 'failed' | 'not-configured' | 'unchanged';
  /** When the consolidation including it finished (null: none set up, or it failed). */
  consolidatedAt: Date | null;
  error: string | null;
}

/** A sync run as answers carry it (dates as ISO text). */
export function publicSyncRun(r: SyncRunRecord): SyncRunAnswer {
  return {
    id: r.id,
    provider: r.provider,
    accountId: String(r.accountId),
    organization_id: String(r.organization_id),
    workflowId: r.workflowId,
    trigger: r.trigger,
    status: r.status,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt ? r.finishedAt.toISOString() : null,
    rows: { ...(r.rows ?? {}) },
    rowsTotal: r.rowsTotal ?? 0,
    periods: r.periods ?? [],
    error: r.error ?? null,
    reports: r.reports
      ? {
          appliedAt: new Date(r.reports.appliedAt).toISOString(),
          monthsChanged: [...r.reports.monthsChanged],
          consolidation: r.reports.consolidation,
          consolidatedAt: r.reports.consolidatedAt ? new Date(r.reports.consolidatedAt).toISOString() : null,
          error: r.reports.error ?? null,
        }
      : null,
  };
}
