// SQLite files for tests that drive the warehouse code directly.
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new database file in its own temp folder, made by `sql`. */
export function sqliteFile(sql: string, prefix = 'tb-'): string {
  const file = join(mkdtempSync(join(tmpdir(), prefix)), 'org.sqlite');
  const db = new Database(file);
  db.exec(sql);
  db.close();
  return file;
}

/** The rows `sql` answers on `file`, read-only. */
export function sqliteRows(file: string, sql: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}
