// The organization's own SQL database, as both the worker and the api reach it: which database
// is the organization's (a SQLite file locally, an Azure SQL database with the organization's own
// server and login in production), a Kysely handle on it, so what reads and writes the
// organization's tables (the consolidation's settings and outputs, reports, run records) is
// written once for both dialects, and the mssql pool the Azure SQL provider's loads use.
// Credentials are read here, from the organization's encrypted record: they never travel in
// workflow inputs or histories; the global AZURE_SQL_* settings are only the fallback for
// organizations onboarded without their own server or login.
import Database from 'better-sqlite3';
import { Kysely, MssqlDialect, SqliteDialect, type CompiledQuery } from 'kysely';
import type { ConnectionPool } from 'mssql';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../common/config';
import { decryptSecret } from '../common/crypto';
import { fail } from '../common/failures';
import type { OrganizationDoc } from '../common/models/organization';
import { LOCAL_DATABASE_NAME } from '../common/resources';
import { DIALECTS, dialectOf, type DialectName } from './dialect';

/**
 * Local provider: an organization's SQL database named `databaseName` (set by onboarding on
 * the organization) is the SQLite file WAREHOUSE_DIR/<databaseName>.sqlite. Every module that
 * opens an organization's database locally goes through this function.
 */
export function localDatabaseFile(warehouseDir: string, databaseName: string): string {
  if (!LOCAL_DATABASE_NAME.test(databaseName)) throw new Error(`invalid database name ${databaseName}`);
  return join(warehouseDir, `${databaseName}.sqlite`);
}

/** Which organization's database an operation works on (what workflows pass: no secrets). */
export interface DatabaseRef {
  orgId: string;
  databaseName: string;
}

/** An Azure SQL login resolved from the organization's record. */
export interface SqlLogin {
  server: string;
  database: string;
  user: string;
  password: string;
}

type OnboardingRecord = NonNullable<OrganizationDoc['onboarding']>;

/** The login of an organization's record (its own server, user and password, else the configured ones). */
export function sqlLoginOf(cfg: Config, onboarding: Partial<OnboardingRecord> | undefined, databaseName: string): SqlLogin {
  const server = onboarding?.sqlServerName || cfg.AZURE_SQL_SERVER;
  const user = onboarding?.sqlAdminUsername || cfg.AZURE_SQL_ADMIN_USER;
  const password = onboarding?.sqlAdminPasswordEnc ? decryptSecret(onboarding.sqlAdminPasswordEnc, cfg.ENCRYPTION_KEY) : cfg.AZURE_SQL_ADMIN_PASSWORD;
  if (!server || !user || !password) throw fail.validation('This organization has no Azure SQL server or login: set them on the organization or configure AZURE_SQL_SERVER, AZURE_SQL_ADMIN_USER and AZURE_SQL_ADMIN_PASSWORD');
  return { server, database: databaseName, user, password };
}

/** The ADO.NET connection string a Data Factory linked service uses for the same login. */
export function sqlConnectionStringOf(cfg: Config, onboarding: Partial<OnboardingRecord> | undefined, databaseName: string): string {
  if (onboarding?.blobToSqlConnectionStringEnc) return decryptSecret(onboarding.blobToSqlConnectionStringEnc, cfg.ENCRYPTION_KEY);
  const l = sqlLoginOf(cfg, onboarding, databaseName);
  return `Server=tcp:${l.server}.database.windows.net,1433;Initial Catalog=${l.database};User ID=${l.user};Password=${l.password};Encrypt=True;Connection Timeout=30;`;
}

/**
 * Resolves the login for a database reference: the organization must own that database (its
 * record names it), so an activity never reaches another organization's database by name.
 */
export async function resolveSqlLogin(cfg: Config, ref: DatabaseRef): Promise<SqlLogin> {
  // Mongo's model loaded here, when a login is resolved: the threads that only open a database
  // (the consolidation's, the pack's, the loaders') do not load mongoose (about 25 MB of heap each).
  const mongoose = (await import('mongoose')).default;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when first used (a relative dynamic import needs the compiled file's extension)
  const { Organization } = require('../common/models/organization') as typeof import('../common/models/organization');
  if (!mongoose.isValidObjectId(ref.orgId)) throw fail.validation('Organization ID is missing');
  const org = await Organization.findById(ref.orgId, { onboarding: 1 }).lean<OrganizationDoc>();
  if (!org) throw fail.notFound(`Organization ${ref.orgId} not found`);
  if (org.onboarding?.databaseName !== ref.databaseName) throw fail.validation(`Database "${ref.databaseName}" is not this organization's`);
  return sqlLoginOf(cfg, org.onboarding, ref.databaseName);
}


export interface PoolOptions {
  connectionTimeout?: number;
  requestTimeout?: number;
}

/** Opens an mssql pool with a resolved login (the driver is loaded on first use: local mode never pays for it). */
export async function openSqlPool(login: SqlLogin, options: PoolOptions = {}): Promise<ConnectionPool> {
  const mssql = await import('mssql');
  return new mssql.ConnectionPool({
    server: `${login.server}.database.windows.net`,
    database: login.database,
    user: login.user,
    password: login.password,
    options: { encrypt: true },
    connectionTimeout: options.connectionTimeout ?? 15000,
    requestTimeout: options.requestTimeout ?? 120000,
  }).connect();
}


export type OrgDialect = DialectName;

/** A Kysely handle on one organization's database; `close()` when done. */
export interface OrgDatabase {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- its tables are the organization's, known at run time
  db: Kysely<any>;
  dialect: OrgDialect;
  /** SQLite: the database's file (a reader of its own, the download's thread, opens it). */
  file?: string;
  /**
   * Many rows into one table, outside any open transaction (staging tables): SQLite in one
   * transaction through prepared statements of 32 rows each (fewer for wide rows); T-SQL in
   * multi-row statements within its limits.
   */
  insertMany(table: string, rows: Record<string, unknown>[]): Promise<void>;
  /** insertMany with the rows as arrays in `columns`' order (no object per row: the big writers). */
  insertRows(table: string, columns: readonly string[], rows: unknown[][]): Promise<void>;
  /**
   * insertRows without even an array per row: `fill(i, row)` writes row i's values into `row`
   * (in `columns`' order), which SQLite binds before the next row reuses it. For the translated
   * lines, the run's largest output. `same`: columns whose value is the same on every row, given
   * once (SQLite binds them once per statement of many rows, not once per row).
   */
  insertEach(table: string, columns: readonly string[], count: number, fill: (i: number, row: unknown[]) => void, same?: SameValues): Promise<void>;
  /**
   * A compiled select's rows as arrays in its select order: SQLite through a prepared statement
   * kept for the connection's life (raw rows, no object per row), T-SQL through Kysely.
   */
  selectRows(query: CompiledQuery): Promise<unknown[][]>;
  /**
   * `fn`'s inserts (insertMany/insertRows/insertEach into staging tables) committed together:
   * SQLite opens one transaction and each insert inside is a savepoint of it (a commit a month
   * instead of one per insert, issue 29); Kysely's own transactions cannot start inside. T-SQL:
   * `fn` as it is, each insert its own statement.
   */
  inOneTransaction<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Columns with one value for every row of an insert (insertEach). */
export interface SameValues {
  columns: readonly string[];
  values: readonly unknown[];
}

/** Rows in statements small enough for either dialect's parameter limit (SQLite 32,766; T-SQL 2,100 and 1,000 rows). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table of the organization
export async function insertChunked(db: Kysely<any>, dialect: OrgDialect, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (!rows.length) return;
  const cols = Object.keys(rows[0]!).length;
  const size = DIALECTS[dialect].rowsPerInsert(cols);
  for (let i = 0; i < rows.length; i += size) await db.insertInto(table).values(rows.slice(i, i + size)).execute();
}

/**
 * Where the organization's database is, resolved (its SQLite file, or its Azure SQL login):
 * plain data, so a worker thread can open it without reading Mongo.
 */
export type OrgConnection = { dialect: 'sqlite'; file: string } | { dialect: 'mssql'; login: SqlLogin };

export interface ResolveOptions {
  /** A local database its record names but that is not there yet is created (as the connector writer does on a sync's first write). */
  create?: boolean;
}

export interface OpenOptions {
  /** For reads only: SQLite opens the file read-only (its journal mode left as it is), so nothing can be written. */
  readOnly?: boolean;
  /**
   * SQLite: the caller copies the write-ahead log into the database itself, on another thread
   * (walCheckpoints), so this connection's commits never stop to do it (SQLite's automatic
   * checkpoint, every 1,000 pages, is off on it).
   */
  checkpointsElsewhere?: boolean;
  /** SQLite: the page cache's bound in MB (better-sqlite3's default is 16 MB a connection). */
  pageCacheMb?: number;
}

const RESOLVERS: Record<DialectName, (cfg: Config, ref: DatabaseRef, options: ResolveOptions) => Promise<OrgConnection>> = {
  mssql: async (cfg, ref) => ({ dialect: 'mssql', login: await resolveSqlLogin(cfg, ref) }),
  sqlite: async (cfg, ref, { create }) => {
    const file = localDatabaseFile(cfg.WAREHOUSE_DIR, ref.databaseName);
    if (!existsSync(file)) {
      if (!create) throw fail.notFound(`Database "${ref.databaseName}" does not exist`);
      mkdirSync(cfg.WAREHOUSE_DIR, { recursive: true });
      new Database(file).close();
    }
    return { dialect: 'sqlite', file };
  },
};

/** Where the organization's database is, by the provider's dialect (dialectOf: the provider is compared there only). */
export async function resolveOrgConnection(cfg: Config, ref: DatabaseRef, options: ResolveOptions = {}): Promise<OrgConnection> {
  return RESOLVERS[dialectOf(cfg).name](cfg, ref, options);
}

/** Opens the organization's database (it must exist: onboarding creates it, unless `create`). */
export async function openOrgDatabase(cfg: Config, ref: DatabaseRef, options: ResolveOptions & OpenOptions = {}): Promise<OrgDatabase> {
  return openOrgConnection(await resolveOrgConnection(cfg, ref, options), options);
}

type SqlStandIn = (login: SqlLogin) => Promise<OrgDatabase>;
let sqlStandIn: SqlStandIn | undefined;

/**
 * Tests of the azure provider (no SQL Server here): what an Azure SQL login's database opens as
 * instead (a SQLite file); undefined restores Azure SQL.
 */
export function setAzureSqlStandIn(open: SqlStandIn | undefined): void {
  sqlStandIn = open;
}

/** Opens a resolved connection. */
export async function openOrgConnection(conn: OrgConnection, { readOnly = false, checkpointsElsewhere = false, pageCacheMb }: OpenOptions = {}): Promise<OrgDatabase> {
  if (conn.dialect === 'mssql' && sqlStandIn) return sqlStandIn(conn.login);
  if (conn.dialect === 'mssql') {
    const { login } = conn;
    const [tedious, tarn] = await Promise.all([import('tedious'), import('tarn')]);
    const db = new Kysely({
      dialect: new MssqlDialect({
        tarn: { ...tarn, options: { min: 0, max: 4 } },
        tedious: {
          ...tedious,
          connectionFactory: () =>
            new tedious.Connection({
              server: `${login.server}.database.windows.net`,
              authentication: { type: 'default', options: { userName: login.user, password: login.password } },
              options: { database: login.database, encrypt: true, port: 1433, requestTimeout: 120000 },
            }),
        },
      }),
    });
    return {
      db,
      dialect: 'mssql',
      inOneTransaction: (fn) => fn(),
      insertMany: (table, rows) => insertChunked(db, 'mssql', table, rows),
      insertRows: (table, columns, rows) => insertChunked(db, 'mssql', table, rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]])))),
      insertEach: (table, columns, count, fill, same) =>
        insertChunked(
          db,
          'mssql',
          table,
          Array.from({ length: count }, (_, i) => {
            const row: unknown[] = new Array(columns.length);
            fill(i, row);
            return { ...Object.fromEntries(same?.columns.map((c, j) => [c, same.values[j]]) ?? []), ...Object.fromEntries(columns.map((c, j) => [c, row[j]])) };
          }),
        ),
      selectRows: async (query) => (await db.executeQuery<Record<string, unknown>>(query)).rows.map((r) => Object.values(r)),
      close: () => db.destroy(),
    };
  }
  const sqlite = new Database(conn.file, { fileMustExist: true, readonly: readOnly });
  sqlite.pragma('busy_timeout = 30000');
  if (pageCacheMb) sqlite.pragma(`cache_size = ${-Math.round(pageCacheMb * 1024)}`);
  if (!readOnly) {
    sqlite.pragma('journal_mode = WAL');
    // As the CSV loader: in WAL mode a commit need not wait for the disk (a crash can lose the last
    // commits, never the file's consistency; writers here stage and swap in one transaction anyway).
    sqlite.pragma('synchronous = NORMAL');
    if (checkpointsElsewhere) sqlite.pragma('wal_autocheckpoint = 0');
  }
  const db = new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
  const inserts = new Map<string, Database.Statement>();
  /**
   * An insert of `rows` rows at once (one statement run takes many rows: about half the CPU of a
   * run per row), prepared once per table, columns and size. `same` columns come first in every
   * row as named parameters (@s0, @s1, ...): bound once per run, whatever the rows.
   */
  const insertStatement = (table: string, columns: readonly string[], rows = 1, same: readonly string[] = []): Database.Statement => {
    const key = `${table}\u0000${columns.join('\u0000')}\u0000${rows}\u0000${same.join('\u0000')}`;
    let stmt = inserts.get(key);
    if (!stmt) {
      const q = (n: string) => `"${n.replace(/"/g, '""')}"`;
      const one = `(${[...same.map((_, j) => `@s${j}`), ...columns.map(() => '?')].join(', ')})`;
      stmt = sqlite.prepare(`insert into ${q(table)} (${[...same, ...columns].map(q).join(', ')}) values ${Array.from({ length: rows }, () => one).join(', ')}`);
      inserts.set(key, stmt);
    }
    return stmt;
  };
  /** Rows per multi-row insert: 32, fewer for wide rows (SQLite's 32,766 parameters). */
  const batchOf = (columns: number) => Math.max(1, Math.min(32, Math.floor(32_000 / columns)));
  const insertEach = async (table: string, columns: readonly string[], count: number, fill: (i: number, row: unknown[]) => void, same?: SameValues) => {
    if (!count) return;
    const n = columns.length;
    const per = batchOf(n);
    const row: unknown[] = new Array(n).fill(null);
    const fixed = same?.columns ?? [];
    // The same values, by name (s0, s1, ...), beside each run's row values.
    const named: Record<string, unknown> = {};
    fixed.forEach((_, j) => (named[`s${j}`] = same!.values[j] ?? null));
    const run = fixed.length ? (stmt: Database.Statement, params: unknown[]) => stmt.run(params, named) : (stmt: Database.Statement, params: unknown[]) => stmt.run(params);
    sqlite.transaction(() => {
      let i = 0;
      if (count >= per) {
        // Whole batches through the multi-row statement, its parameters in one reused array.
        const many = insertStatement(table, columns, per, fixed);
        const params: unknown[] = new Array(n * per).fill(null);
        for (; i + per <= count; i += per) {
          for (let k = 0; k < per; k++) {
            fill(i + k, row);
            for (let j = 0; j < n; j++) params[k * n + j] = row[j];
          }
          run(many, params);
        }
      }
      if (i < count) {
        const one = insertStatement(table, columns, 1, fixed);
        for (; i < count; i++) {
          fill(i, row);
          run(one, row);
        }
      }
    })();
  };
  const insertRows = async (table: string, columns: readonly string[], rows: unknown[][]) => {
    if (!rows.length) return;
    await insertEach(table, columns, rows.length, (i, row) => {
      const r = rows[i]!;
      for (let j = 0; j < columns.length; j++) row[j] = r[j];
    });
  };
  const insertMany = async (table: string, rows: Record<string, unknown>[]) => {
    if (!rows.length) return;
    const cols = Object.keys(rows[0]!);
    await insertRows(table, cols, rows.map((r) => cols.map((c) => r[c] ?? null)));
  };
  const selects = new Map<string, Database.Statement>();
  const selectRows = async (query: CompiledQuery) => {
    let stmt = selects.get(query.sql);
    if (!stmt) {
      stmt = sqlite.prepare(query.sql).raw(true);
      selects.set(query.sql, stmt);
    }
    return stmt.all(...(query.parameters as unknown[])) as unknown[][];
  };
  const inOneTransaction = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (sqlite.inTransaction) return fn();
    sqlite.exec('BEGIN');
    try {
      const out = await fn();
      sqlite.exec('COMMIT');
      return out;
    } catch (e) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw e;
    }
  };
  return { db, dialect: 'sqlite', file: conn.file, insertMany, insertRows, insertEach, selectRows, inOneTransaction, close: () => db.destroy() };
}

/**
 * Copies a SQLite database's write-ahead log into the database every `everyMs` (a passive
 * checkpoint: it never waits for, nor blocks, the writer), on the caller's thread, while a writer
 * on another thread opened with checkpointsElsewhere commits without stopping to do it (issue 29:
 * the consolidation's thread; the copying and its fsync run beside it, on the worker's main
 * thread, which only waits for it). `stop()` copies what is left and closes the connection once
 * the caller has gone on (its promise: when that is done).
 * Undefined when the file cannot be opened (the writer then checkpoints as usual, and reports it).
 */
export function walCheckpoints(file: string, everyMs = 200): { stop(): Promise<void> } | undefined {
  let sqlite: Database.Database;
  try {
    sqlite = new Database(file, { fileMustExist: true });
  } catch {
    // No file to open (or none readable): the writer opens it as usual and says why not.
    return undefined;
  }
  sqlite.pragma('busy_timeout = 0');
  const checkpoint = () => {
    try {
      sqlite.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy (another checkpoint under way): the next tick copies it.
    }
  };
  const timer = setInterval(checkpoint, everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      // The last copy (and SQLite's own at the close of the file's last connection), once the
      // caller has gone on: about 0.15 s after a 21-entity consolidation, off its answer.
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          checkpoint();
          sqlite.close();
          resolve();
        }),
      );
    },
  };
}

/** Runs `fn` on the organization's database and closes it after. */
export async function withOrgDatabase<T>(cfg: Config, ref: DatabaseRef, fn: (o: OrgDatabase) => Promise<T>, options: OpenOptions = {}): Promise<T> {
  const o = await openOrgDatabase(cfg, ref, options);
  try {
    return await fn(o);
  } finally {
    await o.close();
  }
}
