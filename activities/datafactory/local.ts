// The local pipeline engine: what "data factory" means on the embedded provider. The
// template's pipelines are stored on the organization by "import"; each local step runs here,
// inside a Temporal activity, against Azurite and the organization's SQLite file.
import type { BlobServiceClient } from '@azure/storage-blob';
import { ApplicationFailure } from '@temporalio/common';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { runInThisContext } from 'node:vm';
import { TABLE_NAME_RE } from '../../common/validation';

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

// ---- rebuild of the reporting tables (DATA-MODEL.md section 3) ----

const CONNECTOR_OR_REPORT = /^(quickbooks_|sage_|trial_balance)/;
const pick = (cols: Set<string>, names: string[]) => names.find((n) => cols.has(n));
const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
const num = (col: string) => `coalesce(cast(${q(col)} as real), 0)`;

/** SQL mapping free-text account types onto asset/liability/equity/income/expense. */
function accountTypeSql(expr: string): string {
  return `case
    when lower(${expr}) like 'asset%' or lower(${expr}) in ('bank', 'accounts receivable', 'other current asset', 'fixed asset', 'other asset') then 'asset'
    when lower(${expr}) like 'liabilit%' or lower(${expr}) in ('accounts payable', 'credit card', 'other current liability', 'long term liability') then 'liability'
    when lower(${expr}) like 'equity%' then 'equity'
    when lower(${expr}) like 'income%' or lower(${expr}) like 'revenue%' or lower(${expr}) = 'other income' then 'income'
    when lower(${expr}) like 'expense%' or lower(${expr}) like 'cost%' or lower(${expr}) = 'other expense' then 'expense'
    else null end`;
}

function columnsOf(db: Database.Database, table: string): Set<string> {
  return new Set((db.prepare(`pragma table_info(${q(table)})`).all() as { name: string }[]).map((c) => c.name.toLowerCase()));
}

/** The insert that brings one saved CSV table into trial_balance, or null when its header does not fit. */
export function csvTrialBalanceSql(table: string, cols: Set<string>): string | null {
  const entity = pick(cols, ['entity', 'company', 'entity_id', 'company_id', 'entity_name', 'company_name']);
  const periodCol = pick(cols, ['period', 'month']);
  const dateCol = pick(cols, ['date', 'posting_date', 'transaction_date', 'entry_date', 'gl_date']);
  const account = pick(cols, ['account_code', 'account', 'account_no', 'account_number', 'account_id']);
  const name = pick(cols, ['account_name', 'account_title', 'title', 'name', 'description']);
  const type = pick(cols, ['account_type', 'type', 'classification']);
  const currency = pick(cols, ['currency', 'currency_code']);
  const hasDebitCredit = cols.has('debit') && cols.has('credit');
  const amount = pick(cols, ['amount', 'balance', 'net']);
  if (!entity || !(periodCol || dateCol) || !account || !(hasDebitCredit || amount)) return null;
  const period = `substr(cast(${q((periodCol ?? dateCol)!)} as text), 1, 7)`;
  const debit = hasDebitCredit ? num('debit') : `max(${num(amount!)}, 0)`;
  const credit = hasDebitCredit ? num('credit') : `max(-${num(amount!)}, 0)`;
  return `insert into trial_balance__next (entity, source, period, account_code, account_name, account_type, debit, credit, net, currency)
    select cast(${q(entity)} as text), ${`'csv:${table.replace(/'/g, "''")}'`}, ${period}, cast(${q(account)} as text),
      ${name ? `max(cast(${q(name)} as text))` : 'null'}, ${type ? `max(${accountTypeSql(`cast(${q(type)} as text)`)})` : 'null'},
      round(sum(${debit}), 4), round(sum(${credit}), 4), round(sum(${debit}) - sum(${credit}), 4),
      ${currency ? `max(cast(${q(currency)} as text))` : 'null'}
    from ${q(table)}
    where ${q(entity)} is not null and ${q(account)} is not null and ${period} is not null
    group by 1, 3, 4`;
}

/** One source of trial_balance: a label for sources/warnings, and the insert that brings it in. */
export interface TrialBalanceSource {
  label: string;
  table: string;
  sql: string;
}
export interface RebuildResult {
  rows: number;
  sources: string[];
  /** Source tables the rebuild could not read (skipped, the rest rebuilt): only when there are some. */
  warnings?: string[];
}

/**
 * The inserts that rebuild trial_balance from the database's sources (QuickBooks and Sage
 * trial balances, saved CSVs whose header fits). Reads only the schema: quick.
 */
export function planTrialBalance(db: Database.Database): TrialBalanceSource[] {
  const tables = (db.prepare(`select name from sqlite_master where type = 'table'`).all() as { name: string }[]).map((t) => t.name);
  const out: TrialBalanceSource[] = [];
  if (tables.includes('quickbooks_trial_balance')) {
    const accounts = tables.includes('quickbooks_accounts');
    out.push({
      label: 'quickbooks',
      table: 'quickbooks_trial_balance',
      sql: `insert into trial_balance__next (entity, source, period, account_code, account_name, account_type, debit, credit, net, currency)
          select cast(t.realm_id as text), 'quickbooks', t.period, cast(t.account_id as text), max(t.account_name),
            ${accounts ? `max(${accountTypeSql('a.classification')})` : 'null'},
            round(sum(coalesce(t.debit, 0)), 4), round(sum(coalesce(t.credit, 0)), 4), round(sum(coalesce(t.debit, 0)) - sum(coalesce(t.credit, 0)), 4),
            ${accounts ? 'max(a.currency)' : 'null'}
          from quickbooks_trial_balance t
          ${accounts ? 'left join quickbooks_accounts a on a.realm_id = t.realm_id and a.account_id = t.account_id' : ''}
          group by t.realm_id, t.period, t.account_id`,
    });
  }
  if (tables.includes('sage_trial_balance')) {
    const accounts = tables.includes('sage_gl_accounts');
    const currency = columnsOf(db, 'sage_trial_balance').has('currency') ? 'max(t.currency)' : 'null';
    const type = `case when lower(a.account_type) like 'balance%' then (case when lower(a.normal_balance) = 'credit' then 'liability' else 'asset' end)
          when lower(a.account_type) like 'income%' then (case when lower(a.normal_balance) = 'credit' then 'income' else 'expense' end) else null end`;
    out.push({
      label: 'sage',
      table: 'sage_trial_balance',
      sql: `insert into trial_balance__next (entity, source, period, account_code, account_name, account_type, debit, credit, net, currency)
          select cast(t.company_id as text), 'sage', t.period, cast(t.account_no as text), max(t.title), ${accounts ? `max(${type})` : 'null'},
            round(sum(coalesce(t.debits, 0)), 4), round(sum(coalesce(t.credits, 0)), 4), round(sum(coalesce(t.debits, 0)) - sum(coalesce(t.credits, 0)), 4), ${currency}
          from sage_trial_balance t
          ${accounts ? 'left join sage_gl_accounts a on a.company_id = t.company_id and a.account_no = t.account_no' : ''}
          group by t.company_id, t.period, t.account_no`,
    });
  }
  for (const t of tables) {
    if (t.startsWith('_') || t.startsWith('sqlite_') || CONNECTOR_OR_REPORT.test(t) || t.includes('__')) continue;
    const sql = csvTrialBalanceSql(t, columnsOf(db, t));
    if (sql) out.push({ label: `csv:${t}`, table: t, sql });
  }
  return out;
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
    db.exec('DROP TABLE IF EXISTS trial_balance__next');
    db.exec('CREATE TABLE trial_balance__next (entity text not null, source text not null, period text not null, account_code text not null, account_name text, account_type text, debit real not null default 0, credit real not null default 0, net real not null default 0, currency text)');
    for (const s of plan) {
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
    db.exec('DROP TABLE IF EXISTS trial_balance');
    db.exec('ALTER TABLE trial_balance__next RENAME TO trial_balance');
    db.exec('COMMIT');
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw e;
  }
  const rows = db.prepare('SELECT count(*) AS n FROM trial_balance').get().n;
  return warnings.length ? { rows, sources, warnings } : { rows, sources };
}`;

type ExecutePlan = (db: Database.Database, plan: TrialBalanceSource[]) => RebuildResult;
let executePlanHere: ExecutePlan | undefined;

/** SQLite errors a retry cannot mend, as the rebuild reports them. */
export function rebuildFailure(e: unknown): unknown {
  if (e instanceof ApplicationFailure) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (/no such column|syntax error|datatype mismatch/.test(message)) return ApplicationFailure.nonRetryable(`Rebuilding trial_balance failed: ${message}`, 'PipelineError');
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
    return executePlanHere(db, planTrialBalance(db));
  } catch (e) {
    throw rebuildFailure(e);
  } finally {
    db.close();
  }
}
