// The data explorer's reads of an organization's own database (issue 19), for SQLite and Azure
// SQL alike (the differences asked of ../dialect.ts): which tables there are (from the database's
// own catalog: never a name taken from the request), their rows counted, what a CSV table's load
// and a table's last write were, and a table's rows paged, sorted and filtered. The api's tables
// resource (api/resources/tables/service.ts) checks who may read, and says who wrote each table.
// Identifiers in SQL are only names read from the catalog, quoted by Kysely (sql.id); every
// value is a bound parameter. A filter or sort the table cannot take is a ValidationError.
import { sql, type CompiledQuery, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { ORDER_OPS, type ColumnAnswer, type FilterOp, type RowsPageAnswer, type TableFilter } from '../../common/contract/tables';
import { fail } from '../../common/failures';
import type { OrgDatabase } from '../connection';
import { DIALECTS, UNORDERABLE_TYPES, type Dialect } from '../dialect';
import { columnKind, CSV_LOADED_AT_COLUMN, CSV_UPLOAD_COLUMN, isInternalTable } from './tables';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are only known at run time
type Select = SelectQueryBuilder<any, any, any>;

/** A table as the catalog gives it: its columns in order and what orders its rows stably. */
export interface TableSchema {
  name: string;
  columns: ColumnAnswer[];
  /** Its primary key's columns (may be empty). */
  primaryKey: string[];
  /** SQLite: the table has a rowid (every table but WITHOUT ROWID ones): the stable order. */
  rowid: boolean;
}

const dialectOf = (o: Pick<OrgDatabase, 'dialect'>): Dialect => DIALECTS[o.dialect];
const col = (name: string) => sql.id(name);
const iso = (d: Date | string | null | undefined): string | null => {
  if (!d) return null;
  const t = d instanceof Date ? d : new Date(d);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
};

// --- the catalog -----------------------------------------------------------------------------

/** The tables of the database (internal ones left out), or just `only` when named. */
export async function readCatalog(o: OrgDatabase, only?: string): Promise<TableSchema[]> {
  const rows = await dialectOf(o).catalog(o.db, only);
  const byTable = new Map<string, TableSchema>();
  for (const r of rows) {
    if (isInternalTable(r.t)) continue;
    let t = byTable.get(r.t);
    if (!t) byTable.set(r.t, (t = { name: r.t, columns: [], primaryKey: [], rowid: r.rowid }));
    const type = r.type ?? '';
    t.columns.push({ name: r.name, type, kind: columnKind(r.t, r.name, type) });
    if (r.pk) t.primaryKey.push(r.name);
  }
  return [...byTable.values()];
}

// --- rows, counts and the values read --------------------------------------------------------

function from(o: OrgDatabase, table: string): Select {
  return o.db.selectFrom(sql`${dialectOf(o).table(table)}`.as('t'));
}

export async function countRows(o: OrgDatabase, table: string, where?: Expression<SqlBool>): Promise<number> {
  let q = from(o, table).select(dialectOf(o).countAll().as('n'));
  if (where) q = q.where(where);
  const row = (await q.executeTakeFirst()) as { n: number | string | bigint } | undefined;
  return Number(row?.n ?? 0);
}
/** A value as an answer carries it: text for binary data and times, numbers and text as read. */
export function cellValue(v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `<binary, ${v.byteLength} bytes>`;
  return String(v);
}

// --- what wrote each table -------------------------------------------------------------------

export interface AuditEntry {
  action: string;
  at: string | null;
  user_name: string | null;
}

/** The latest audit entry of each action (the consolidation's audit table, when there is one). */
export async function latestAudit(o: OrgDatabase, tables: Set<string>): Promise<AuditEntry[]> {
  if (!tables.has('consolidation_audit')) return [];
  const a = dialectOf(o).table('consolidation_audit');
  return (
    await sql<AuditEntry>`select a.action as action, a.at as at, a.user_name as user_name from ${a} a
      where a.at = (select max(b.at) from ${a} b where b.action = a.action)`.execute(o.db)
  ).rows;
}

/** The first row's upload id and load time of a CSV table (one load writes every row). */
export async function csvHolding(o: OrgDatabase, table: string): Promise<{ uploadId: string | null; loadedAt: string | null }> {
  let q = from(o, table).select([sql`${col(CSV_UPLOAD_COLUMN)}`.as('id'), sql`${col(CSV_LOADED_AT_COLUMN)}`.as('at')]);
  q = dialectOf(o).top(q, 1);
  const row = (await q.executeTakeFirst()) as { id: unknown; at: unknown } | undefined;
  return { uploadId: row?.id == null ? null : String(row.id), loadedAt: iso(row?.at as string | Date | null) };
}

/** When a table without a record was last written, from its own time column (connector rows carry synced_at). */
export async function latestTime(o: OrgDatabase, t: TableSchema): Promise<string | null> {
  const c = t.columns.find((x) => x.name.toLowerCase() === 'synced_at') ?? t.columns.find((x) => x.name.toLowerCase() === 'updated_at');
  if (!c) return null;
  const row = (await from(o, t.name).select(sql`max(${col(c.name)})`.as('at')).executeTakeFirst()) as { at: unknown } | undefined;
  return iso(row?.at as string | Date | null);
}

// --- paging, sorting and filtering -----------------------------------------------------------

export interface RowsQuery {
  page: number;
  pageSize: number;
  sort?: string;
  dir: 'asc' | 'desc';
  filters: TableFilter[];
}

/** A value of a filter as the column's kind compares it (a ValidationError naming what is wrong). */
function boundValue(c: ColumnAnswer, op: FilterOp, raw: string): string | number {
  if (op === 'contains' || op === 'starts_with') return raw;
  const v = raw.trim();
  switch (c.kind) {
    case 'number': {
      const n = Number(v.replace(/,/g, ''));
      if (!v || !Number.isFinite(n)) throw fail.validation(`"${raw}" is not a number (column ${c.name})`);
      return n;
    }
    case 'boolean': {
      const b = v.toLowerCase();
      if (['true', 'yes', '1'].includes(b)) return 1;
      if (['false', 'no', '0'].includes(b)) return 0;
      throw fail.validation(`"${raw}" is not yes or no (column ${c.name})`);
    }
    case 'date':
      if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) throw fail.validation(`Dates are YYYY-MM-DD (column ${c.name}: "${raw}")`);
      return v;
    case 'datetime':
      if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) throw fail.validation(`Times are YYYY-MM-DD or YYYY-MM-DDTHH:mm (column ${c.name}: "${raw}")`);
      // Stored as ISO text (2026-03-01T09:30:00.000Z): a time typed with a space compares the same way.
      return v.replace(' ', 'T');
    default:
      return raw;
  }
}

/** LIKE's wildcards in a value, escaped (with \ as the escape character). */
const likeEscape = (v: string) => v.replace(/[\\%_[]/g, (ch) => `\\${ch}`);

/** The filters as one condition: each column checked against the catalog, each value bound. */
export function whereOf(o: OrgDatabase, table: TableSchema, filters: TableFilter[]): Expression<SqlBool> | undefined {
  if (!filters.length) return undefined;
  const text = (name: string) => dialectOf(o).asText(col(name));
  const parts = filters.map((f) => {
    const c = table.columns.find((x) => x.name === f.column);
    if (!c) throw fail.validation(`Table "${table.name}" has no column "${f.column}"`);
    const id = col(c.name);
    const op = f.op;
    const raw = f.value === undefined ? '' : String(f.value);
    if (op === 'is_empty') return sql<SqlBool>`(${id} is null or ${text(c.name)} = '')`;
    if (op === 'not_empty') return sql<SqlBool>`(${id} is not null and ${text(c.name)} <> '')`;
    const v = boundValue(c, op, raw);
    switch (op) {
      case 'contains':
        return sql<SqlBool>`${text(c.name)} like ${`%${likeEscape(raw)}%`} escape '\\'`;
      case 'starts_with':
        return sql<SqlBool>`${text(c.name)} like ${`${likeEscape(raw)}%`} escape '\\'`;
      case 'eq':
        return sql<SqlBool>`${id} = ${v}`;
      case 'ne':
        return sql<SqlBool>`(${id} is null or ${id} <> ${v})`;
      default: {
        if (!ORDER_OPS.includes(op)) throw fail.validation(`Unknown filter "${op}"`);
        const cmp = { gt: sql`>`, gte: sql`>=`, lt: sql`<`, lte: sql`<=` }[op as 'gt' | 'gte' | 'lt' | 'lte'];
        return sql<SqlBool>`${id} ${cmp} ${v}`;
      }
    }
  });
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

/** The select of a table's rows: filtered, sorted by the asked column, then by what keeps the order stable. */
export function rowsQuery(o: OrgDatabase, table: TableSchema, q: Pick<RowsQuery, 'sort' | 'dir' | 'filters'>): Select {
  let query = from(o, table.name).select(table.columns.map((c, i) => sql`${col(c.name)}`.as(`c${i}`)));
  const where = whereOf(o, table, q.filters);
  if (where) query = query.where(where);
  if (q.sort !== undefined) {
    const c = table.columns.find((x) => x.name === q.sort);
    if (!c) throw fail.validation(`Table "${table.name}" has no column "${q.sort}"`);
    if (!dialectOf(o).sortable(c.type)) throw fail.validation(`Column "${c.name}" cannot be sorted`);
    query = query.orderBy(sql`${col(c.name)}`, q.dir);
  }
  // Ties (and no sort at all) in the order the rows were written: SQLite's rowid, else the key,
  // else every column, so a page never repeats or skips a row.
  if (table.rowid) query = query.orderBy(sql`rowid`, 'asc');
  else {
    const stable = table.primaryKey.length ? table.primaryKey : table.columns.filter((c) => !UNORDERABLE_TYPES.test(c.type)).map((c) => c.name);
    for (const name of stable) if (name !== q.sort) query = query.orderBy(sql`${col(name)}`, 'asc');
    if (!stable.length && q.sort === undefined) query = dialectOf(o).ordered(query);
  }
  return query;
}

/** One page of rows, each as its values in the columns' order. */
export async function rowsPage(o: OrgDatabase, table: TableSchema, q: RowsQuery): Promise<RowsPageAnswer> {
  const where = whereOf(o, table, q.filters);
  const total = await countRows(o, table.name, where);
  const offset = (q.page - 1) * q.pageSize;
  let query = rowsQuery(o, table, q);
  query = dialectOf(o).page(query, { offset, limit: q.pageSize });
  const rows = offset >= total ? [] : ((await query.execute()) as Record<string, unknown>[]);
  return {
    table: table.name,
    columns: table.columns,
    rows: rows.map((r) => table.columns.map((_, i) => cellValue(r[`c${i}`]))),
    total,
    page: q.page,
    pageSize: q.pageSize,
    pages: Math.max(1, Math.ceil(total / q.pageSize)),
    sort: q.sort === undefined ? null : { column: q.sort, dir: q.dir },
    filters: q.filters.map((f) => ({ column: f.column, op: f.op, ...(f.value === undefined ? {} : { value: String(f.value) }) })),
  };
}

/**
 * The table's rows as a stream (a cursor: SQLite's statement iterator, SQL Server's row stream),
 * each as its values in the columns' order; nothing more is read than the consumer takes.
 */
export async function* streamRows(o: OrgDatabase, table: TableSchema, q: Pick<RowsQuery, 'sort' | 'dir' | 'filters'>): AsyncGenerator<unknown[]> {
  const n = table.columns.length;
  for await (const r of rowsQuery(o, table, q).stream(1000)) {
    const row = r as Record<string, unknown>;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = row[`c${i}`];
    yield out;
  }
}

/**
 * What streamRows reads, for a reader of its own (the SQLite download's thread): the same select
 * compiled (SQL and bound values; its columns c0, c1, ... in the table's order) and the SQLite
 * file; undefined when the database is not a file (Azure SQL: streamRows reads it).
 */
export function sqliteRowsJob(o: OrgDatabase, table: TableSchema, q: Pick<RowsQuery, 'sort' | 'dir' | 'filters'>): { file: string; query: CompiledQuery } | undefined {
  if (!o.file) return undefined;
  return { file: o.file, query: rowsQuery(o, table, q).compile() };
}
