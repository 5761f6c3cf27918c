// The trial_balance rebuild on a SQLite database (the local provider; docs/data-model.md section 3):
// the transform's plan (./trial-balance.ts, defined once for SQLite and T-SQL) compiled from the
// file's schema and run in one transaction. The pipeline runs it on a thread of its own
// (./rebuild-thread.ts); rebuildTrialBalance runs it here (tests, benchmarks).
import { ApplicationFailure } from '@temporalio/common';
import Database from 'better-sqlite3';
import { runInThisContext } from 'node:vm';
import { planTrialBalance, type SchemaSnapshot, type TrialBalancePlan } from './trial-balance';
import { failure } from '../../common/failures';
import type { RebuildResult } from '../types';

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

function columnsOf(db: Database.Database, table: string): Set<string> {
  return new Set((db.prepare(`pragma table_info(${q(table)})`).all() as { name: string }[]).map((c) => c.name.toLowerCase()));
}

export { csvTrialBalanceSql } from './trial-balance';
export type { TrialBalanceSource } from './trial-balance';

export type { RebuildResult } from '../types';

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
