// The data explorer's reads of an organization's own database (issue 19), for SQLite and Azure
// SQL alike through warehouse/connection.ts: which tables there are (from the database's own
// catalog: never a name taken from the request), what each is and who wrote it last (the upload
// records in Mongo, the sync and pipeline runs kept beside the tables), and a table's rows paged,
// sorted and filtered.
// Identifiers in SQL are only names read from the catalog, quoted by Kysely (sql.id); every
// value is a bound parameter.
import { sql, type CompiledQuery, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Config } from '../../../common/config';
import { ORDER_OPS, PIPELINE_TABLES, type ColumnAnswer, type FilterOp, type RowsPageAnswer, type TableFilter, type TableInfoAnswer, type TableSourceAnswer } from '../../../common/contract/tables';
import { ApplicationFailure } from '@temporalio/common';
import { failureMessage, failureTypeOf, httpStatusOf, isFailureOf } from '../../../common/failures';
import type { OrganizationDoc } from '../../../common/models/organization';
import type { PipelineRunRecord } from '../../../common/models/pipeline-run';
import { QuickBooksAccount } from '../../../common/models/quickbooks-account';
import { SageAccount } from '../../../common/models/sage-account';
import type { SyncRunRecord } from '../../../common/models/sync-run';
import { withRunStore } from '../../../warehouse/records/run-store';
import type { UploadDoc } from '../../../common/models/upload';
import { uploadRecords } from '../../../warehouse/records/uploads';
import type { UserDoc } from '../../../common/models/user';
import { openOrgDatabase, resolveOrgConnection, type OrgDatabase, type OrgDialect } from '../../../warehouse/connection';
import { columnKind, CSV_LOADED_AT_COLUMN, CSV_UPLOAD_COLUMN, isInternalTable, tableKind, TRIAL_BALANCE_TABLE } from '../../../warehouse/catalog/tables';
import { OBJECT_ID_RE } from '../../../common/validation';
import { assertOrgAccess } from '../../lib/auth';
import { ApiError, badRequest, notFound } from '../../lib/errors';
import { findOrganization } from '../../lib/organization';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are only known at run time
type Db = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Select = SelectQueryBuilder<any, any, any>;

export const tableNotFound = (name: string) => `Table "${name.length > 100 ? `${name.slice(0, 100)}...` : name}" not found`;

/** A table as the catalog gives it: its columns in order and what orders its rows stably. */
export interface TableSchema {
  name: string;
  columns: ColumnAnswer[];
  /** Its primary key's columns (may be empty). */
  primaryKey: string[];
  /** SQLite: the table has a rowid (every table but WITHOUT ROWID ones): the stable order. */
  rowid: boolean;
}

/** The organization's database, opened after the tenant check; null when it has none yet. */
export async function withExplorerDatabase<T>(cfg: Config, user: UserDoc, orgId: string, fn: (o: OrgDatabase, org: OrganizationDoc) => Promise<T>): Promise<T | null> {
  assertOrgAccess(user, orgId);
  const org = await findOrganization(orgId);
  const databaseName = org.onboarding?.databaseName;
  if (!databaseName) return null;
  let o: OrgDatabase;
  try {
    o = await openOrgDatabase(cfg, { orgId, databaseName });
  } catch (e) {
    // Named by onboarding but not made yet (the local file is missing).
    if (isFailureOf(e, 'NotFound')) return null;
    // No Azure SQL login for it, ...: the failure's own status and message.
    if (e instanceof ApplicationFailure) throw new ApiError(httpStatusOf(failureTypeOf(e)), failureMessage(e));
    throw e;
  }
  try {
    return await fn(o, org);
  } finally {
    await o.close();
  }
}

/** The table reference: SQL Server's tables of the product live in dbo. */
const tableRef = (dialect: OrgDialect, name: string) => (dialect === 'mssql' ? sql.id('dbo', name) : sql.id(name));
const col = (name: string) => sql.id(name);

// --- the catalog -----------------------------------------------------------------------------

interface CatalogRow {
  t: string;
  name: string;
  type: string | null;
  pk: number;
}

async function sqliteCatalog(db: Db, only?: string): Promise<{ rows: CatalogRow[]; withoutRowid: Set<string> }> {
  const where = only === undefined ? sql`` : sql`and m.name = ${only}`;
  const rows = (await sql<CatalogRow>`select m.name as t, p.name as name, p.type as type, p.pk as pk from sqlite_master m, pragma_table_info(m.name) p where m.type = 'table' ${where} order by m.name, p.cid`.execute(db)).rows;
  const defs = (await sql<{ name: string; sql: string | null }>`select name, sql from sqlite_master m where m.type = 'table' ${where}`.execute(db)).rows;
  return { rows, withoutRowid: new Set(defs.filter((d) => /\)\s*without\s+rowid\s*;?\s*$/i.test(d.sql ?? '')).map((d) => d.name)) };
}

async function mssqlCatalog(db: Db, only?: string): Promise<CatalogRow[]> {
  const where = only === undefined ? sql`` : sql`and t.name = ${only}`;
  const rows = (
    await sql<CatalogRow & { max_length: number; precision: number; scale: number }>`
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
    return { t: r.t, name: r.name, type, pk: r.pk };
  });
}

/** The tables of the database (internal ones left out), or just `only` when named. */
export async function readCatalog(o: OrgDatabase, only?: string): Promise<TableSchema[]> {
  let rows: CatalogRow[];
  let withoutRowid = new Set<string>();
  if (o.dialect === 'sqlite') ({ rows, withoutRowid } = await sqliteCatalog(o.db, only));
  else rows = await mssqlCatalog(o.db, only);
  const byTable = new Map<string, TableSchema>();
  for (const r of rows) {
    if (isInternalTable(r.t)) continue;
    let t = byTable.get(r.t);
    if (!t) byTable.set(r.t, (t = { name: r.t, columns: [], primaryKey: [], rowid: o.dialect === 'sqlite' && !withoutRowid.has(r.t) }));
    const type = r.type ?? '';
    t.columns.push({ name: r.name, type, kind: columnKind(r.t, r.name, type) });
    if (r.pk) t.primaryKey.push(r.name);
  }
  return [...byTable.values()];
}

/** One table of the catalog by its exact name, or 404. */
export async function findTable(o: OrgDatabase, name: string): Promise<TableSchema> {
  const [table] = await readCatalog(o, name);
  if (!table || table.name !== name) throw notFound(tableNotFound(name));
  return table;
}

// --- rows, counts and the values read --------------------------------------------------------

function from(o: OrgDatabase, table: string): Select {
  return o.db.selectFrom(sql`${tableRef(o.dialect, table)}`.as('t'));
}

async function countRows(o: OrgDatabase, table: string, where?: Expression<SqlBool>): Promise<number> {
  let q = from(o, table).select(o.dialect === 'mssql' ? sql<number>`count_big(*)`.as('n') : sql<number>`count(*)`.as('n'));
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

// --- sources: who wrote each table ----------------------------------------------------------

/** The pipeline that ends a run with the consolidation (warehouse/consolidation/run.ts CONSOLIDATE_PIPELINE; test/explorer.test.ts keeps them equal). */
export const CONSOLIDATE_PIPELINE = 'consolidate';
const PROVIDER_NAMES: Record<string, string> = { quickbooks: 'QuickBooks', sage: 'Sage Intacct', netsuite: 'NetSuite' };
const iso = (d: Date | string | null | undefined): string | null => {
  if (!d) return null;
  const t = d instanceof Date ? d : new Date(d);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
};
const whoStarted = (r: PipelineRunRecord) => r.startedBy?.name || r.startedBy?.email || null;

/** What the consolidation's audit says of its settings' tables (by action) and of its runs. */
const AUDIT_TABLES: Record<string, string> = {
  settings: 'group_settings',
  entity: 'consolidation_entities',
  chart: 'group_accounts',
  mappings: 'group_account_mappings',
  rates: 'fx_rates',
  historical_rates: 'fx_historical_rates',
  period: 'consolidation_period_locks',
};
const AUDIT_WORDS: Record<string, string> = {
  'settings.save': 'settings saved',
  'entity.save': 'entity saved',
  'chart.replace': 'group chart replaced',
  'chart.import': 'group chart imported',
  'mappings.save': 'mappings saved',
  'mappings.import': 'mappings imported',
  'mappings.accept': 'suggestions accepted',
  'rates.save': 'rates saved',
  'rates.import': 'rates imported',
  'historical_rates.save': 'historical rates saved',
  'period.lock': 'period locked',
  'period.unlock': 'period unlocked',
};

interface AuditEntry {
  action: string;
  at: string | null;
  user_name: string | null;
}

/** The latest audit entry of each action (the consolidation's audit table, when there is one). */
async function latestAudit(o: OrgDatabase, tables: Set<string>): Promise<AuditEntry[]> {
  if (!tables.has('consolidation_audit')) return [];
  const a = tableRef(o.dialect, 'consolidation_audit');
  return (
    await sql<AuditEntry>`select a.action as action, a.at as at, a.user_name as user_name from ${a} a
      where a.at = (select max(b.at) from ${a} b where b.action = a.action)`.execute(o.db)
  ).rows;
}

/** The first row's upload id and load time of a CSV table (one load writes every row). */
async function csvHolding(o: OrgDatabase, table: string): Promise<{ uploadId: string | null; loadedAt: string | null }> {
  let q = from(o, table).select([sql`${col(CSV_UPLOAD_COLUMN)}`.as('id'), sql`${col(CSV_LOADED_AT_COLUMN)}`.as('at')]);
  q = o.dialect === 'mssql' ? q.top(1) : q.limit(1);
  const row = (await q.executeTakeFirst()) as { id: unknown; at: unknown } | undefined;
  return { uploadId: row?.id == null ? null : String(row.id), loadedAt: iso(row?.at as string | Date | null) };
}

interface Records {
  runs: PipelineRunRecord[];
  syncs: SyncRunRecord[];
  uploads: Map<string, UploadDoc>;
  accountNames: Map<string, string>;
  /** Pipelines that rebuild trial_balance (by their installed steps and the template's names). */
  reportingPipelines: Set<string>;
  audit: AuditEntry[];
}

async function readRecords(cfg: Config, o: OrgDatabase, orgId: string, uploadIds: string[], tables: Set<string>, installed: { name: string; activities?: { type?: string | null }[] }[]): Promise<Records> {
  const ids = [...new Set(uploadIds.filter((id) => OBJECT_ID_RE.test(id)))];
  const [runs, syncs, uploads, qbo, sage, audit] = await Promise.all([
    withRunStore(cfg, orgId, (s) => s.recentPipelineRuns(100)).then((r) => r ?? []),
    withRunStore(cfg, orgId, (s) => s.recentSucceededSyncRuns(200)).then((r) => r ?? []),
    uploadRecords(cfg).findMany(ids, orgId),
    QuickBooksAccount.find({ organization_id: orgId }, { companyName: 1, realmId: 1 }).lean<{ _id: unknown; companyName?: string; realmId: string }[]>(),
    SageAccount.find({ organization_id: orgId }, { sageCompanyID: 1 }).lean<{ _id: unknown; sageCompanyID: string }[]>(),
    latestAudit(o, tables),
  ]);
  const accountNames = new Map<string, string>([
    ...qbo.map((a): [string, string] => [String(a._id), a.companyName || `company ${a.realmId}`]),
    ...sage.map((a): [string, string] => [String(a._id), `company ${a.sageCompanyID}`]),
  ]);
  const reportingPipelines = new Set(Object.entries(PIPELINE_TABLES).filter(([, t]) => t.includes(TRIAL_BALANCE_TABLE)).map(([p]) => p));
  for (const p of installed) if (p.activities?.some((a) => a.type === 'rebuildTrialBalance')) reportingPipelines.add(p.name);
  return { runs, syncs, uploads: new Map(uploads.map((u) => [String(u._id), u])), accountNames, reportingPipelines, audit };
}

const noSource = { upload: null, pipelineRun: null, sync: null };

/** The latest succeeded pipeline (of `names`) in the runs, newest first. */
function latestPipeline(runs: PipelineRunRecord[], names: (name: string) => boolean): { run: PipelineRunRecord; name: string; at: string | null } | null {
  let best: { run: PipelineRunRecord; name: string; at: string | null } | null = null;
  for (const run of runs) {
    for (const p of run.pipelines ?? []) {
      if (!names(p.name) || p.status !== 'succeeded') continue;
      const at = iso(p.endedAt ?? run.endedAt ?? run.startedAt);
      if (!best || (at && (!best.at || at > best.at))) best = { run, name: p.name, at };
    }
  }
  return best;
}

function pipelineSource(found: { run: PipelineRunRecord; name: string; at: string | null }, label: string): TableSourceAnswer {
  const by = whoStarted(found.run);
  return { ...noSource, type: 'pipeline', label: by ? `${label}, run started by ${by}` : label, at: found.at, pipelineRun: { runId: found.run.runId, pipeline: found.name, startedBy: by } };
}

function csvSource(table: string, holding: { uploadId: string | null; loadedAt: string | null }, r: Records): TableSourceAnswer | null {
  if (!holding.uploadId) return null;
  const upload = r.uploads.get(holding.uploadId);
  // A file put into the container without an upload record carries the pipeline's own id ("pl-...").
  const byPipeline = !upload && holding.uploadId.startsWith('pl-');
  const file = upload ? { id: String(upload._id), fileName: upload.fileName, uploadedBy: upload.uploadedByName || null } : null;
  // Loaded by the "load every uploaded CSV" pipeline (the newest run that loaded this file), or saved by a user.
  if (upload || byPipeline) {
    for (const run of r.runs) {
      for (const p of run.pipelines ?? []) {
        const loaded = (p.files ?? []).find((f) => f.status === 'loaded' && f.tableName === table && (upload ? f.blobName === upload.blobName : true));
        if (!loaded) continue;
        const by = whoStarted(run);
        const name = upload?.fileName ?? loaded.blobName.split('/').pop() ?? loaded.blobName;
        return { ...noSource, type: 'pipeline', label: `${name} loaded by pipeline ${p.name}${by ? `, run started by ${by}` : ''}`, at: holding.loadedAt, upload: file, pipelineRun: { runId: run.runId, pipeline: p.name, startedBy: by } };
      }
    }
  }
  if (!upload || !file) return { ...noSource, type: 'upload', label: byPipeline ? 'A file loaded by a pipeline run' : 'A saved CSV (its file was deleted since)', at: holding.loadedAt };
  return { ...noSource, type: 'upload', label: `${upload.fileName} saved${file.uploadedBy ? ` by ${file.uploadedBy}` : ''}`, at: holding.loadedAt ?? iso(upload.savedAt), upload: file };
}

function syncSource(table: string, r: Records): TableSourceAnswer | null {
  for (const s of r.syncs) {
    if (!(table in (s.rows ?? {}))) continue;
    const account = r.accountNames.get(String(s.accountId)) ?? null;
    const provider = PROVIDER_NAMES[s.provider] ?? s.provider;
    return { ...noSource, type: 'sync', label: `${provider} sync${account ? ` of ${account}` : ''}`, at: iso(s.finishedAt ?? s.startedAt), sync: { provider: s.provider, account } };
  }
  return null;
}

function consolidationSource(table: string, kind: 'consolidation' | 'consolidation_settings', r: Records): TableSourceAnswer | null {
  if (kind === 'consolidation') {
    const run = r.audit.find((a) => a.action === 'consolidation.run');
    const piped = latestPipeline(r.runs, (n) => n === CONSOLIDATE_PIPELINE);
    if (piped && (!run?.at || (piped.at && piped.at >= run.at))) return pipelineSource(piped, 'Pipeline consolidate');
    if (run) return { ...noSource, type: 'consolidation', label: run.user_name ? `Consolidation run by ${run.user_name}` : 'Consolidation run', at: iso(run.at) };
    return null;
  }
  const entries = table === 'consolidation_audit' ? r.audit : r.audit.filter((a) => AUDIT_TABLES[a.action.split('.')[0]!] === table);
  const last = entries.reduce<AuditEntry | null>((best, a) => (!best || (a.at ?? '') > (best.at ?? '') ? a : best), null);
  if (!last) return null;
  const what = AUDIT_WORDS[last.action] ?? last.action;
  return { ...noSource, type: 'settings', label: `Consolidation ${what}${last.user_name ? ` by ${last.user_name}` : ''}`, at: iso(last.at) };
}

/** When a table without a record was last written, from its own time column (connector rows carry synced_at). */
async function latestTime(o: OrgDatabase, t: TableSchema): Promise<string | null> {
  const c = t.columns.find((x) => x.name.toLowerCase() === 'synced_at') ?? t.columns.find((x) => x.name.toLowerCase() === 'updated_at');
  if (!c) return null;
  const row = (await from(o, t.name).select(sql`max(${col(c.name)})`.as('at')).executeTakeFirst()) as { at: unknown } | undefined;
  return iso(row?.at as string | Date | null);
}

/** Kind, row count, columns, source and last write of each table. */
export async function describeTables(cfg: Config, o: OrgDatabase, org: OrganizationDoc, tables: TableSchema[]): Promise<TableInfoAnswer[]> {
  const orgId = String(org._id);
  const installed = org.onboarding?.pipelines ?? [];
  const kinds = tables.map((t) => tableKind(t.name, t.columns.map((c) => c.name)));
  const holdings = new Map<string, { uploadId: string | null; loadedAt: string | null }>();
  const counts = new Map<string, number>();
  // One connection: the reads go one after another.
  for (const [i, t] of tables.entries()) {
    counts.set(t.name, await countRows(o, t.name));
    if (kinds[i] === 'csv') holdings.set(t.name, await csvHolding(o, t.name));
  }
  const records = await readRecords(cfg, o, orgId, [...holdings.values()].map((h) => h.uploadId ?? ''), new Set(tables.map((t) => t.name)), installed);
  const out: TableInfoAnswer[] = [];
  for (const [i, t] of tables.entries()) {
    const kind = kinds[i]!;
    let source: TableSourceAnswer | null = null;
    if (kind === 'csv') source = csvSource(t.name, holdings.get(t.name)!, records);
    else if (kind === 'connector') source = syncSource(t.name, records);
    else if (kind === 'reporting') {
      const found = latestPipeline(records.runs, (n) => records.reportingPipelines.has(n));
      source = found ? pipelineSource(found, `Pipeline ${found.name}`) : null;
    } else if (kind === 'consolidation' || kind === 'consolidation_settings') source = consolidationSource(t.name, kind, records);
    let lastWrittenAt = source?.at ?? null;
    if (!lastWrittenAt && (kind === 'connector' || kind === 'consolidation_settings')) lastWrittenAt = await latestTime(o, t);
    out.push({ name: t.name, kind, rows: counts.get(t.name) ?? 0, columns: t.columns, source, lastWrittenAt });
  }
  return out;
}

/** The order tables are listed in: the user's data first (saved CSVs), then what the product writes. */
const KIND_ORDER = ['csv', 'reporting', 'consolidation', 'connector', 'consolidation_settings', 'other'];
export const byKindThenName = (a: TableInfoAnswer, b: TableInfoAnswer) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.name.localeCompare(b.name);

// --- paging, sorting and filtering -----------------------------------------------------------

export interface RowsQuery {
  page: number;
  pageSize: number;
  sort?: string;
  dir: 'asc' | 'desc';
  filters: TableFilter[];
}

/** A value of a filter as the column's kind compares it (400 naming what is wrong). */
function boundValue(c: ColumnAnswer, op: FilterOp, raw: string): string | number {
  if (op === 'contains' || op === 'starts_with') return raw;
  const v = raw.trim();
  switch (c.kind) {
    case 'number': {
      const n = Number(v.replace(/,/g, ''));
      if (!v || !Number.isFinite(n)) throw badRequest(`"${raw}" is not a number (column ${c.name})`);
      return n;
    }
    case 'boolean': {
      const b = v.toLowerCase();
      if (['true', 'yes', '1'].includes(b)) return 1;
      if (['false', 'no', '0'].includes(b)) return 0;
      throw badRequest(`"${raw}" is not yes or no (column ${c.name})`);
    }
    case 'date':
      if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) throw badRequest(`Dates are YYYY-MM-DD (column ${c.name}: "${raw}")`);
      return v;
    case 'datetime':
      if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) throw badRequest(`Times are YYYY-MM-DD or YYYY-MM-DDTHH:mm (column ${c.name}: "${raw}")`);
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
  const text = (name: string) => (o.dialect === 'mssql' ? sql`cast(${col(name)} as nvarchar(max))` : sql`cast(${col(name)} as text)`);
  const parts = filters.map((f) => {
    const c = table.columns.find((x) => x.name === f.column);
    if (!c) throw badRequest(`Table "${table.name}" has no column "${f.column}"`);
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
        if (!ORDER_OPS.includes(op)) throw badRequest(`Unknown filter "${op}"`);
        const cmp = { gt: sql`>`, gte: sql`>=`, lt: sql`<`, lte: sql`<=` }[op as 'gt' | 'gte' | 'lt' | 'lte'];
        return sql<SqlBool>`${id} ${cmp} ${v}`;
      }
    }
  });
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

/** Types SQL Server cannot order by. */
const UNORDERABLE = /^(text|ntext|image|xml|geography|geometry|hierarchyid|sql_variant)/i;

/** The select of a table's rows: filtered, sorted by the asked column, then by what keeps the order stable. */
export function rowsQuery(o: OrgDatabase, table: TableSchema, q: Pick<RowsQuery, 'sort' | 'dir' | 'filters'>): Select {
  let query = from(o, table.name).select(table.columns.map((c, i) => sql`${col(c.name)}`.as(`c${i}`)));
  const where = whereOf(o, table, q.filters);
  if (where) query = query.where(where);
  if (q.sort !== undefined) {
    const c = table.columns.find((x) => x.name === q.sort);
    if (!c) throw badRequest(`Table "${table.name}" has no column "${q.sort}"`);
    if (o.dialect === 'mssql' && UNORDERABLE.test(c.type)) throw badRequest(`Column "${c.name}" cannot be sorted`);
    query = query.orderBy(sql`${col(c.name)}`, q.dir);
  }
  // Ties (and no sort at all) in the order the rows were written: SQLite's rowid, else the key,
  // else every column, so a page never repeats or skips a row.
  if (table.rowid) query = query.orderBy(sql`rowid`, 'asc');
  else {
    const stable = table.primaryKey.length ? table.primaryKey : table.columns.filter((c) => !UNORDERABLE.test(c.type)).map((c) => c.name);
    for (const name of stable) if (name !== q.sort) query = query.orderBy(sql`${col(name)}`, 'asc');
    if (!stable.length && q.sort === undefined && o.dialect === 'mssql') query = query.orderBy(sql`(select null)`);
  }
  return query;
}

/** One page of rows, each as its values in the columns' order. */
export async function rowsPage(o: OrgDatabase, table: TableSchema, q: RowsQuery): Promise<RowsPageAnswer> {
  const where = whereOf(o, table, q.filters);
  const total = await countRows(o, table.name, where);
  const offset = (q.page - 1) * q.pageSize;
  let query = rowsQuery(o, table, q);
  query = o.dialect === 'mssql' ? query.offset(offset).fetch(q.pageSize) : query.limit(q.pageSize).offset(offset);
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
 * compiled (SQL and bound values; its columns c0, c1, ... in the table's order) and the SQLite file.
 */
export async function sqliteRowsJob(cfg: Config, org: OrganizationDoc, o: OrgDatabase, table: TableSchema, q: Pick<RowsQuery, 'sort' | 'dir' | 'filters'>): Promise<{ file: string; query: CompiledQuery }> {
  if (o.dialect !== 'sqlite') throw new Error('sqliteRowsJob: not a SQLite database');
  const query = rowsQuery(o, table, q).compile();
  const conn = await resolveOrgConnection(cfg, { orgId: String(org._id), databaseName: org.onboarding?.databaseName ?? '' });
  if (conn.dialect !== 'sqlite') throw new Error('sqliteRowsJob: not a SQLite database');
  return { file: conn.file, query };
}
