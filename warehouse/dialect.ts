// The one place SQLite and T-SQL (Azure SQL) differ for what reads and writes an organization's
// database: paging (limit/offset vs top and offset/fetch), text search (instr vs charindex),
// casts, counts, column types, create-if-missing guards, inserts of rows not there yet, write
// transactions and lock waits, and the database's own catalog. Each store and reader takes the
// dialect object of its database (DIALECTS[o.dialect]) and calls it, instead of comparing names.
// The provider is mapped to its dialect once (dialectOf). The trial_balance transform keeps its
// own compile-only dialects beside its definition (./transforms/trial-balance.ts).
import { sql, type CreateIndexBuilder, type CreateTableBuilder, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Config } from '../common/config';

export type DialectName = 'sqlite' | 'mssql';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are only known at run time
type Db = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Select = SelectQueryBuilder<any, any, any>;

/** A column of the database's catalog (internal tables included: the caller leaves them out). */
export interface CatalogColumn {
  /** Its table. */
  t: string;
  name: string;
  type: string | null;
  pk: number;
  /** SQLite: its table has a rowid (every table but WITHOUT ROWID ones), the stable order of its rows. */
  rowid: boolean;
}

/** Column types the stores declare, by what they hold. */
export interface ColumnTypes {
  /** Text; `length` bounds it where the database needs one to index it (T-SQL), none: unbounded. */
  text(length?: number): string;
  /** A stored amount (the consolidation's). */
  amount: string;
  int: string;
}

export interface Dialect {
  readonly name: DialectName;
  readonly types: ColumnTypes;
  /** A table of the product's (T-SQL: in dbo). */
  table(name: string): RawBuilder<unknown>;
  /** At most `n` rows. */
  top(q: Select, n: number): Select;
  /** One page of an ordered select. */
  page(q: Select, page: { offset: number; limit: number }): Select;
  /** T-SQL pages only an ordered select: an order that keeps whatever order the rows come in. */
  ordered(q: Select): Select;
  /** `text` occurs in the text expression `within`. */
  contains(within: RawBuilder<unknown>, text: string): Expression<SqlBool>;
  /** Any value as text (for text filters). */
  asText(e: Expression<unknown> | RawBuilder<unknown>): RawBuilder<unknown>;
  /** count(*) as a number the database does not overflow. */
  countAll(): RawBuilder<number>;
  /** The SQL of `column` x `scale` rounded to an integer (exact sums of amounts). */
  scaledInteger(column: string, scale: number): string;
  /** Whether a column of this declared type can be sorted on. */
  sortable(type: string): boolean;
  /** Rows per insert statement within the dialect's parameter limit (SQLite 32,766; T-SQL 2,100 and 1,000 rows). */
  rowsPerInsert(columns: number): number;
  /** A create table statement that does nothing when the table is there. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table's builder
  createTableIfMissing(t: CreateTableBuilder<any, any>, table: string): string;
  /** A create index statement that does nothing when the index is there. */
  createIndexIfMissing(ix: CreateIndexBuilder, index: string, table: string): string;
  /** A create view statement (`definition`: its select) that does nothing when the view is there. */
  createViewIfMissing(view: string, definition: string): string;
  /** Runs create-if-missing statements another process may run at the same time. */
  ensure(run: () => Promise<void>): Promise<void>;
  /**
   * One write transaction. SQLite: BEGIN IMMEDIATE (the write lock first, so a read-modify-write
   * never works on a copy another writer changes meanwhile), waiting for a busy database off the
   * event loop. T-SQL: serializable, with `lock` (the row's update lock) taken before anything is read.
   */
  transaction<T>(db: Db, fn: (trx: Db) => Promise<T>, lock?: (trx: Db) => Promise<unknown>): Promise<T>;
  /** Rows whose key is not there yet; answers how many were added. */
  insertMissing(db: Db, table: string, key: string, rows: Record<string, unknown>[]): Promise<number>;
  /** A handle that waits for locks in `transaction` and `ensure` (SQLite: the connection's own busy wait made short). */
  shortLockWait(db: Db): Promise<void>;
  /** The tables and columns of the database (`only`: just that table). */
  catalog(db: Db, only?: string): Promise<CatalogColumn[]>;
  /** The names of the database's tables and views (T-SQL: in dbo), without their columns. */
  objectNames(db: Db): Promise<string[]>;
  /**
   * The distinct values of `column` in order, where an index of `table` starts with the columns of
   * `equal` and then `column` (trial_balance's (period, entity): its months, a month's entities).
   * SQLite: one index seek per value (its DISTINCT reads every entry of the index: 756,000 for a
   * big group's months). T-SQL: a DISTINCT. Values are not null. `across`: an index column between
   * the equalities and `column`, whatever its value (the entities of every month: SQLite walks
   * each month's, T-SQL's DISTINCT is still one statement).
   */
  distinctInIndex(db: Db, table: string, column: string, equal?: Record<string, string>, across?: string): Promise<string[]>;
}

/** Types SQL Server cannot order by. */
export const UNORDERABLE_TYPES = /^(text|ntext|image|xml|geography|geometry|hierarchyid|sql_variant)/i;

const isBusy = (e: unknown) => typeof (e as { code?: unknown })?.code === 'string' && (e as { code: string }).code.startsWith('SQLITE_BUSY');

/** How long a write waits for another writer of the same SQLite file (a CSV swap, a rebuild). */
const LOCK_WAIT_MS = 30_000;

/**
 * SQLite: waits for a busy database without blocking the event loop (the connection's own busy
 * timeout is short), so a writer in this process, a thread or another process, finishes.
 */
async function waitForLock<T>(op: () => Promise<T>): Promise<T> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (let delay = 5; ; delay = Math.min(delay * 2, 50)) {
    try {
      return await op();
    } catch (e) {
      if (!isBusy(e) || Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  types: { text: () => 'text', amount: 'real', int: 'integer' },
  table: (name) => sql.id(name),
  top: (q, n) => q.limit(n),
  page: (q, { offset, limit }) => q.limit(limit).offset(offset),
  ordered: (q) => q,
  contains: (within, text) => sql<SqlBool>`instr(${within}, ${text}) > 0`,
  asText: (e) => sql`cast(${e} as text)`,
  countAll: () => sql<number>`count(*)`,
  scaledInteger: (column, scale) => `cast(round(${column} * ${scale}) as integer)`,
  sortable: () => true,
  rowsPerInsert: (columns) => Math.floor(32000 / columns),
  createTableIfMissing: (t) => t.ifNotExists().compile().sql,
  createIndexIfMissing: (ix) => ix.ifNotExists().compile().sql,
  createViewIfMissing: (view, definition) => `create view if not exists "${view}" as ${definition}`,
  ensure: (run) => waitForLock(run),
  transaction: (db, fn) =>
    waitForLock(() =>
      db.connection().execute(async (c) => {
        await sql`begin immediate`.execute(c);
        try {
          const out = await fn(c);
          await sql`commit`.execute(c);
          return out;
        } catch (e) {
          await sql`rollback`.execute(c).catch(() => undefined);
          throw e;
        }
      }),
    ),
  insertMissing: (db, table, _key, rows) => {
    const size = SQLITE.rowsPerInsert(Object.keys(rows[0]!).length);
    return SQLITE.transaction(db, async (trx) => {
      let added = 0;
      for (let i = 0; i < rows.length; i += size) {
        const res = await trx.insertInto(table).values(rows.slice(i, i + size)).orIgnore().executeTakeFirst();
        added += Number(res.numInsertedOrUpdatedRows ?? 0);
      }
      return added;
    });
  },
  shortLockWait: async (db) => {
    // Lock waits happen in waitForLock, off the event loop.
    await sql`pragma busy_timeout = 20`.execute(db);
  },
  catalog: async (db, only) => {
    const where = only === undefined ? sql`` : sql`and m.name = ${only}`;
    const rows = (await sql<Omit<CatalogColumn, 'rowid'>>`select m.name as t, p.name as name, p.type as type, p.pk as pk from sqlite_master m, pragma_table_info(m.name) p where m.type = 'table' ${where} order by m.name, p.cid`.execute(db)).rows;
    const defs = (await sql<{ name: string; sql: string | null }>`select name, sql from sqlite_master m where m.type = 'table' ${where}`.execute(db)).rows;
    const withoutRowid = new Set(defs.filter((d) => /\)\s*without\s+rowid\s*;?\s*$/i.test(d.sql ?? '')).map((d) => d.name));
    return rows.map((r) => ({ ...r, rowid: !withoutRowid.has(r.t) }));
  },
  objectNames: async (db) => (await sql<{ name: string }>`select name from sqlite_master where type in ('table', 'view')`.execute(db)).rows.map((r) => r.name),
  distinctInIndex: async (db, table, column, equal = {}, across) => {
    const t = sql.id(table);
    const c = sql.id(column);
    // Without such an index (a table made by hand), each seek would be a scan: a DISTINCT then.
    const leading = [...Object.keys(equal), ...(across === undefined ? [] : [across]), column];
    const starts = new Map<string, string[]>();
    for (const r of (await sql<{ ix: string; seqno: number; name: string }>`select l.name as ix, i.seqno as seqno, i.name as name from pragma_index_list(${table}) l, pragma_index_info(l.name) i where l.partial = 0 and i.seqno < ${leading.length}`.execute(db)).rows) {
      const cols = starts.get(r.ix) ?? [];
      cols[r.seqno] = r.name;
      starts.set(r.ix, cols);
    }
    const indexed = [...starts.values()].some((cols) => leading.every((name, i) => cols[i] === name));
    const where = (eq: Record<string, string>) => sql.join([sql`1 = 1`, ...Object.entries(eq).map(([k, v]) => sql`${sql.id(k)} = ${v}`)], sql` and `);
    if (!indexed) return (await sql<{ v: string }>`select distinct ${c} as v from ${t} where ${where(equal)} order by ${c}`.execute(db)).rows.map((r) => r.v);
    // Each next value: the smallest one above the last (a seek in the index), until there is none.
    const walk = async (col: string, eq: Record<string, string>): Promise<string[]> => {
      const x = sql.id(col);
      const fixed = where(eq);
      const rows = await sql<{ v: string }>`with recursive next(v) as (
        select (select min(${x}) from ${t} where ${fixed})
        union all
        select (select min(${x}) from ${t} where ${fixed} and ${x} > next.v) from next where next.v is not null
      ) select v from next where v is not null`.execute(db);
      return rows.rows.map((r) => r.v);
    };
    if (across === undefined) return walk(column, equal);
    const all = new Set<string>();
    for (const a of await walk(across, equal)) for (const v of await walk(column, { ...equal, [across]: a })) all.add(v);
    return [...all].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  },
};

export const MSSQL: Dialect = {
  name: 'mssql',
  types: { text: (length) => `nvarchar(${length ?? 'max'})`, amount: 'decimal(19,4)', int: 'int' },
  table: (name) => sql.id('dbo', name),
  top: (q, n) => q.top(n),
  page: (q, { offset, limit }) => q.offset(offset).fetch(limit),
  ordered: (q) => q.orderBy(sql`(select null)`),
  contains: (within, text) => sql<SqlBool>`charindex(${text}, ${within}) > 0`,
  asText: (e) => sql`cast(${e} as nvarchar(max))`,
  countAll: () => sql<number>`count_big(*)`,
  scaledInteger: (column, scale) => `cast(round(${column} * ${scale}, 0) as bigint)`,
  sortable: (type) => !UNORDERABLE_TYPES.test(type),
  rowsPerInsert: (columns) => Math.min(1000, Math.floor(2000 / columns)),
  // T-SQL has no "if not exists" on create table / create index: the same guard the rebuild's script uses.
  createTableIfMissing: (t, table) => `if object_id(N'dbo.${table}', N'U') is null ${t.compile().sql}`,
  createIndexIfMissing: (ix, index, table) => `if not exists (select 1 from sys.indexes where name = N'${index}' and object_id = object_id(N'dbo.${table}')) ${ix.compile().sql}`,
  // A view must be its batch's only statement: the guarded create runs it through exec.
  createViewIfMissing: (view, definition) => `if object_id(N'dbo.${view}', N'V') is null exec(N'${`create view "${view}" as ${definition}`.replace(/'/g, "''")}')`,
  ensure: async (run) => {
    try {
      await run();
    } catch {
      // Another process created it between the guard and the create: the guards now pass.
      await run();
    }
  },
  transaction: (db, fn, lock) =>
    db
      .transaction()
      .setIsolationLevel('serializable')
      .execute(async (trx) => {
        if (lock) await lock(trx);
        return fn(trx);
      }),
  insertMissing: async (db, table, k, rows) => {
    const size = MSSQL.rowsPerInsert(Object.keys(rows[0]!).length);
    let added = 0;
    for (let i = 0; i < rows.length; i += size) {
      const chunk = rows.slice(i, i + size);
      const write = () =>
        MSSQL.transaction(db, async (trx) => {
          const have = new Set(((await trx.selectFrom(table).select(k).where(k, 'in', chunk.map((r) => r[k] as string)).execute()) as Record<string, string>[]).map((r) => r[k]));
          const fresh = chunk.filter((r) => !have.has(r[k] as string));
          if (fresh.length) await trx.insertInto(table).values(fresh).execute();
          return fresh.length;
        });
      try {
        added += await write();
      } catch {
        // Another process inserted some of them meanwhile: the next read leaves those out.
        added += await write();
      }
    }
    return added;
  },
  shortLockWait: async () => undefined,
  catalog: async (db, only) => {
    const where = only === undefined ? sql`` : sql`and t.name = ${only}`;
    const rows = (
      await sql<Omit<CatalogColumn, 'rowid'> & { max_length: number; precision: number; scale: number }>`
      select t.name as t, c.name as name, ty.name as type, c.max_length, c.precision, c.scale,
        case when exists (select 1 from sys.indexes i join sys.index_columns ic on ic.object_id = i.object_id and ic.index_id = i.index_id
          where i.object_id = t.object_id and i.is_primary_key = 1 and ic.column_id = c.column_id) then 1 else 0 end as pk
      from sys.tables t join sys.columns c on c.object_id = t.object_id join sys.types ty on ty.user_type_id = c.user_type_id
      where t.schema_id = schema_id('dbo') ${where}
      order by t.name, c.column_id`.execute(db)
    ).rows;
    return rows.map((r) => {
      const t = (r.type ?? '').toLowerCase();
      let type = r.type ?? '';
      if (/^n?(var)?char$|^(var)?binary$/.test(t)) type = `${r.type}(${r.max_length === -1 ? 'max' : t.startsWith('n') ? r.max_length / 2 : r.max_length})`;
      else if (t === 'decimal' || t === 'numeric') type = `${r.type}(${r.precision},${r.scale})`;
      return { t: r.t, name: r.name, type, pk: r.pk, rowid: false };
    });
  },
  objectNames: async (db) => (await sql<{ name: string }>`select name from sys.objects where type in ('U', 'V') and schema_id = schema_id('dbo')`.execute(db)).rows.map((r) => r.name),
  distinctInIndex: async (db, table, column, equal = {}) => {
    let q = db.selectFrom(table).select(column).distinct().orderBy(column);
    for (const [k, v] of Object.entries(equal)) q = q.where(k, '=', v);
    return ((await q.execute()) as Record<string, string>[]).map((r) => r[column]!);
  },
};

export const DIALECTS: Record<DialectName, Dialect> = { sqlite: SQLITE, mssql: MSSQL };

/** The one place the provider picks the organization databases' dialect: Azure SQL in production, SQLite files locally. */
export function dialectOf(cfg: Config): Dialect {
  return cfg.PROVIDER === 'azure' ? MSSQL : SQLITE;
}
