// The local pipeline engine: what "data factory" means on the embedded provider. The
// template's pipelines are stored on the organization by "import"; each local step runs here,
// inside a Temporal activity, against Azurite and the organization's SQLite file.
import type { BlobServiceClient } from '@azure/storage-blob';
import { ApplicationFailure } from '@temporalio/common';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { runInThisContext } from 'node:vm';
import { TABLE_NAME_RE } from '../../common/validation';
import { planTrialBalance, type SchemaSnapshot, type TrialBalancePlan } from '../warehouse/transforms/trial-balance';
import { failure } from '../../common/failures';

/** The table a CSV blob loads into when no upload record says otherwise: its normalised base name. */
export function tableNameForBlob(blobName: string): string {
  const base = (blobName.split('/').pop() ?? blobName).replace(/\.[^.]*$/, '');
  let name = base
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  // Nothing usable left (e.g. only non-ASCII letters): a stable name from the blob's own name.
  if (!name) return `csv_${createHash('sha256').update(blobName).digest('hex').slice(0, 8)}`;
  if (!/^[a-z]/.test(name)) name = `t_${name}`;
  name = name.slice(0, 100).replace(/_+$/, '');
  return TABLE_NAME_RE.test(name) ? name : `csv_${createHash('sha256').update(blobName).digest('hex').slice(0, 8)}`;
}

/** A load's id: the same blob content always gets the same id, so a retried load replaces its rows. */
export function pipelineUploadId(blobName: string, etag: string | undefined): string {
  return `pl-${createHash('sha256').update(`${blobName}\n${etag ?? ''}`).digest('hex').slice(0, 24)}`;
}

export interface ContainerFile {
  name: string;
  etag?: string;
  size?: number;
  lastModified?: Date;
  metadata?: Record<string, string>;
}

/** Every blob of the container, by name (a flat listing: uploads may sit under folders), with its metadata. */
export async function listContainerFiles(blobService: BlobServiceClient, containerName: string, limit = Infinity): Promise<ContainerFile[]> {
  const out: ContainerFile[] = [];
  for await (const b of blobService.getContainerClient(containerName).listBlobsFlat({ includeMetadata: true })) {
    out.push({ name: b.name, etag: b.properties.etag, size: b.properties.contentLength, lastModified: b.properties.lastModified, metadata: b.metadata });
    if (out.length >= limit) break;
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** What a table of the organization's database holds now: missing, not made from a CSV, or one load (upload id, time). */
export type TableHolding = { kind: 'missing' } | { kind: 'not_csv' } | { kind: 'csv'; uploadId: string | null; loadedAt: string | null };

export function localTableHolding(file: string, table: string): TableHolding {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const exists = db.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(table);
    if (!exists) return { kind: 'missing' };
    if (!columnsOf(db, table).has('_upload_id')) return { kind: 'not_csv' };
    const row = db.prepare(`select _upload_id as id, _loaded_at as at from ${q(table)} limit 1`).get() as { id: string; at: string } | undefined;
    return { kind: 'csv', uploadId: row?.id ?? null, loadedAt: row?.at ?? null };
  } finally {
    db.close();
  }
}

// ---- rebuild of the reporting tables (docs/data-model.md section 3) ----
// The transform itself is defined once, for SQLite and T-SQL, in warehouse/transforms.

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

function columnsOf(db: Database.Database, table: string): Set<string> {
  return new Set((db.prepare(`pragma table_info(${q(table)})`).all() as { name: string }[]).map((c) => c.name.toLowerCase()));
}

export { csvTrialBalanceSql } from '../warehouse/transforms/trial-balance';
export type { TrialBalanceSource } from '../warehouse/transforms/trial-balance';

export interface RebuildResult {
  rows: number;
  sources: string[];
  /** Source tables the rebuild could not read (skipped, the rest rebuilt): only when there are some. */
  warnings?: string[];
}

/** The schema the plan reads (table and column names: quick), as the transform takes it. */
export function sqliteSchema(db: Database.Database): SchemaSnapshot {
  const tables = (db.prepare(`select name from sqlite_master where type = 'table'`).all() as { name: string }[]).map((t) => t.name);
  return tables.map((name) => ({ name, columns: [...columnsOf(db, name)] }));
}

/** The rebuild of trial_balance for this SQLite database: the transform's plan, compiled for SQLite. */
export function planTrialBalanceSqlite(db: Database.Database): TrialBalancePlan {
  return planTrialBalance(sqliteSchema(db), 'sqlite');
}

/**
 * Runs a plan (plain JS: the same function runs on the caller's thread and, from its source, in
 * the rebuild's worker thread, see ./rebuild-thread.ts). One transaction: readers see the old
 * trial_balance until the new one is complete, and a re-run gives the same rows. Each source
 * runs in its own savepoint: one the rebuild cannot read (a table that took a connector's
 * name with other columns, a column of the wrong kind: SQLite's SQL errors) is left out with a
 * warning instead of failing the rebuild (and with it every later run). Other errors (busy,
 * read-only, full) end the rebuild: nothing is changed.
 */
export const EXECUTE_PLAN_JS = `function executeTrialBalancePlan(db, plan) {
  const sources = [];
  const warnings = [];
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const c of plan.create) db.exec(c);
    for (const s of plan.sources) {
      db.exec('SAVEPOINT tb_source');
      try {
        db.exec(s.sql);
        db.exec('RELEASE tb_source');
        sources.push(s.label);
      } catch (e) {
        db.exec('ROLLBACK TO tb_source');
        db.exec('RELEASE tb_source');
        const code = e && e.code;
        if (code !== 'SQLITE_ERROR' && code !== 'SQLITE_MISMATCH') throw e;
        warnings.push('Table "' + s.table + '" was left out of trial_balance: it cannot be read as a ' + (s.label.startsWith('csv:') ? 'ledger' : s.label) + ' source (' + String(e.message) + ')');
      }
    }
    for (const c of plan.swap) db.exec(c);
    db.exec('COMMIT');
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw e;
  }
  const rows = db.prepare('SELECT count(*) AS n FROM trial_balance').get().n;
  return warnings.length ? { rows, sources, warnings } : { rows, sources };
}`;

type ExecutePlan = (db: Database.Database, plan: TrialBalancePlan) => RebuildResult;
let executePlanHere: ExecutePlan | undefined;

/** SQLite errors a retry cannot mend, as the rebuild reports them. */
export function rebuildFailure(e: unknown): unknown {
  if (e instanceof ApplicationFailure) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (/no such column|syntax error|datatype mismatch/.test(message)) return failure('PipelineError', `Rebuilding trial_balance failed: ${message}`);
  return e;
}

/**
 * Rebuilds trial_balance on the caller's thread (synchronous; tests and the benchmark's
 * "before"). The pipeline runs it in a worker thread instead: rebuildTrialBalanceInThread.
 */
export function rebuildTrialBalance(file: string): RebuildResult {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    executePlanHere ??= runInThisContext(`(${EXECUTE_PLAN_JS})`) as ExecutePlan;
    return executePlanHere(db, planTrialBalanceSqlite(db));
  } catch (e) {
    throw rebuildFailure(e);
  } finally {
    db.close();
  }
}
