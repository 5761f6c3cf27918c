// The local warehouse provider: each organization's SQL database is a SQLite file under
// WAREHOUSE_DIR (./connection.ts localDatabaseFile). Heavy work (CSV loads, the trial_balance rebuild) runs on its own
// thread so the activity's thread keeps heartbeating.
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../common/config';
import { rebuildTrialBalanceInThread } from './transforms/rebuild-thread';
import type { DatabaseRef } from './connection';
import { SqliteConnectorDatabase, type ConnectorDatabase } from './connector-writer';
import { defaultRowsExtension, SqliteCsvTableLoad } from './csv/sqlite-table';
import type { CsvTableLoad, CsvTableLoadTarget } from './csv/table-load';
import { dropSqlite, type DropCsvTableOutput } from './drop-table';
import { localDatabaseFile } from './connection';
import { ensureLocalDatabase, type EnsureDatabaseInput, type EnsureDatabaseOutput } from './provision';
import type { CsvLoadOptions, RebuildOptions, RebuildResult, TableHolding, Warehouse } from './types';

/** Below this much free space the warehouse counts as full (a CSV load writes its staging table first). */
const MIN_FREE_BYTES = 64 * 1024 * 1024;
/** The write check's answer is kept this long: health may be polled often, the check reads every database's entry. */
const WRITE_CHECK_TTL_MS = 5000;

export class SqliteWarehouse implements Warehouse {
  readonly provider = 'local' as const;
  private checked: { at: number; error?: Error } | undefined;
  private readonly dir: string;

  constructor(private readonly cfg: Config) {
    this.dir = cfg.WAREHOUSE_DIR;
  }

  private file(ref: DatabaseRef): string {
    return localDatabaseFile(this.dir, ref.databaseName);
  }

  async ping(): Promise<void> {
    if (!this.checked || Date.now() - this.checked.at > WRITE_CHECK_TTL_MS) {
      let error: Error | undefined;
      try {
        this.checkWritable();
      } catch (e) {
        error = e as Error;
      }
      this.checked = { at: Date.now(), error };
    }
    if (this.checked.error) throw this.checked.error;
  }

  /** A write to a scratch database, every organization database's files writable, and room on the disk. */
  private checkWritable(): void {
    mkdirSync(this.dir, { recursive: true });
    const db = new Database(join(this.dir, '.health.sqlite'));
    try {
      db.exec('CREATE TABLE IF NOT EXISTS health_check (at TEXT); DELETE FROM health_check; INSERT INTO health_check VALUES (datetime())');
    } catch (e) {
      throw new Error(`cannot be written: ${(e as Error).message}`);
    } finally {
      db.close();
    }
    // An organization's file may be read-only on its own (a file system flag, a copied-back backup).
    for (const name of readdirSync(this.dir)) {
      if (!/\.sqlite(-wal|-shm)?$/.test(name)) continue;
      try {
        accessSync(join(this.dir, name), constants.W_OK);
      } catch (e) {
        throw new Error(`cannot be written: ${name} is read-only (${(e as NodeJS.ErrnoException).code ?? 'not writable'})`);
      }
    }
    const fs = statfsSync(this.dir);
    const free = fs.bavail * fs.bsize;
    if (free < MIN_FREE_BYTES) throw new Error(`out of space: ${Math.floor(free / 1024 / 1024)} MB free`);
  }

  ensureDatabase(input: EnsureDatabaseInput): Promise<EnsureDatabaseOutput> {
    return ensureLocalDatabase(this.cfg, input);
  }

  async databaseExists(ref: DatabaseRef): Promise<boolean> {
    return existsSync(this.file(ref));
  }

  async openCsvLoad(ref: DatabaseRef, target: Omit<CsvTableLoadTarget, 'databaseName'>, options: CsvLoadOptions = {}): Promise<CsvTableLoad> {
    mkdirSync(this.dir, { recursive: true });
    const extension = options.rowsExtension === undefined ? defaultRowsExtension() : (options.rowsExtension ?? undefined);
    return new SqliteCsvTableLoad(this.file(ref), { ...target, databaseName: ref.databaseName }, extension);
  }

  async openConnectorWriter(ref: DatabaseRef): Promise<ConnectorDatabase> {
    mkdirSync(this.dir, { recursive: true });
    return new SqliteConnectorDatabase(this.file(ref));
  }

  async tableHolding(ref: DatabaseRef, table: string): Promise<TableHolding> {
    const file = this.file(ref);
    return existsSync(file) ? localTableHolding(file, table) : { kind: 'missing' };
  }

  rebuildTrialBalance(ref: DatabaseRef, options: RebuildOptions = {}): Promise<RebuildResult> {
    return rebuildTrialBalanceInThread(this.file(ref), options);
  }

  async dropCsvTable(ref: DatabaseRef, tableName: string): Promise<DropCsvTableOutput> {
    return dropSqlite(this.file(ref), tableName);
  }
}

/** What a table of the SQLite file holds now (read-only: never waits for a writer's lock). */
export function localTableHolding(file: string, table: string): TableHolding {
  const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const exists = db.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(table);
    if (!exists) return { kind: 'missing' };
    const columns = new Set((db.prepare(`pragma table_info(${q(table)})`).all() as { name: string }[]).map((c) => c.name.toLowerCase()));
    if (!columns.has('_upload_id')) return { kind: 'not_csv' };
    const row = db.prepare(`select _upload_id as id, _loaded_at as at from ${q(table)} limit 1`).get() as { id: string; at: string } | undefined;
    return { kind: 'csv', uploadId: row?.id ?? null, loadedAt: row?.at ?? null };
  } finally {
    db.close();
  }
}
