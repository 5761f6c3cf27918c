// Run records as tests read and plant them: through the store in the organization's database
// (warehouse/records/run-store.ts), as the api and the worker do.
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import mongoose from 'mongoose';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../common/config';
import { openOrgConnection, type OrgDatabase } from '../../warehouse/connection';
import type { PipelineRunRecord } from '../../common/models/pipeline-run';
import type { SyncRunRecord } from '../../common/models/sync-run';
import { RunStore, withRequiredRunStore, withRunStore } from '../../warehouse/records/run-store';

export const pipelineRunOf = (cfg: Config, orgId: string, runId: string) => withRunStore(cfg, orgId, (s) => s.findPipelineRun(runId));

export const syncRunOf = (cfg: Config, orgId: string, runId: string) => withRunStore(cfg, orgId, (s) => s.findSyncRun(runId));

/** An account's sync runs, newest first. */
export const syncRunsOf = async (cfg: Config, orgId: string, provider: SyncRunRecord['provider'], accountId: string, limit = 100) =>
  (await withRunStore(cfg, orgId, (s) => s.syncHistory(provider, accountId, limit))) ?? [];

export const addPipelineRuns = (cfg: Config, orgId: string, runs: PipelineRunRecord[]) => withRequiredRunStore(cfg, orgId, (s) => s.insertPipelineRuns(runs));

/** A sync run record as the sync workflow writes it (defaults of a finished, succeeded run). */
export function syncRunRecord(fields: Partial<SyncRunRecord> & Pick<SyncRunRecord, 'accountId' | 'organization_id' | 'runId'>): SyncRunRecord {
  return {
    id: new mongoose.Types.ObjectId().toHexString(),
    provider: 'quickbooks',
    workflowId: `sync-${fields.provider ?? 'quickbooks'}-${fields.accountId}`,
    trigger: 'manual',
    status: 'succeeded',
    startedAt: new Date(),
    finishedAt: new Date(),
    rows: {},
    rowsTotal: 0,
    periods: [],
    error: null,
    ...fields,
  };
}

export const addSyncRuns = (cfg: Config, orgId: string, runs: SyncRunRecord[]) => withRequiredRunStore(cfg, orgId, (s) => s.insertSyncRuns(runs));

export const deleteSyncRuns = (cfg: Config, orgId: string) =>
  withRunStore(cfg, orgId, async (s) => {
    await s.db.deleteFrom('_sync_runs').execute();
  });

/** A store on a new SQLite file in its own temp folder, opened as the process-wide handles open it. */
export async function sqliteRunStore(prefix: string): Promise<{ file: string; org: OrgDatabase; store: RunStore }> {
  const file = join(mkdtempSync(join(tmpdir(), prefix)), 'org.sqlite');
  new Database(file).close();
  const org = await openOrgConnection({ dialect: 'sqlite', file });
  await sql`pragma busy_timeout = 20`.execute(org.db);
  const store = new RunStore(org);
  await store.ensureTables();
  return { file, org, store };
}
