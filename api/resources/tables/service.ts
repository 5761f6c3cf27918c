// The data explorer (issue 19) as the api answers it: the tenant check before the organization's
// database is opened, a table by name (404 when it is not there), and who wrote each table (the
// upload records, the sync and pipeline runs kept beside the tables, the consolidation's audit).
// The SQL (the catalog, counts, rows paged, sorted and filtered) is the warehouse's
// (warehouse/catalog/explorer.ts); a filter or sort it refuses answers 400 with its message.
import { CONNECTOR_LIST } from '../../../common/connectors';
import { ApplicationFailure } from '@temporalio/common';
import type { CompiledQuery } from 'kysely';
import type { Config } from '../../../common/config';
import { PIPELINE_TABLES, type RowsPageAnswer, type TableInfoAnswer, type TableSourceAnswer } from '../../../common/contract/tables';
import { failureMessage, failureTypeOf, httpStatusOf, isFailureOf } from '../../../common/failures';
import type { OrganizationDoc } from '../../../common/models/organization';
import type { PipelineRunRecord } from '../../../common/models/pipeline-run';
import { QuickBooksAccount } from '../../../common/models/quickbooks-account';
import { SageAccount } from '../../../common/models/sage-account';
import type { SyncRunRecord } from '../../../common/models/sync-run';
import type { UploadDoc } from '../../../common/models/upload';
import type { UserDoc } from '../../../common/models/user';
import { OBJECT_ID_RE } from '../../../common/validation';
import * as explorer from '../../../warehouse/catalog/explorer';
import { countRows, csvHolding, latestAudit, latestTime, readCatalog, type AuditEntry, type RowsQuery, type TableSchema } from '../../../warehouse/catalog/explorer';
import { tableKind, TRIAL_BALANCE_TABLE } from '../../../warehouse/catalog/tables';
import { openOrgDatabase, type OrgDatabase } from '../../../warehouse/connection';
import { CONSOLIDATE_PIPELINE } from '../../../warehouse/consolidation/run';
import { withRunStore } from '../../../warehouse/records/run-store';
import { uploadRecords } from '../../../warehouse/records/uploads';
import { assertOrgAccess } from '../../lib/auth';
import { ApiError, notFound } from '../../lib/errors';
import { findOrganization } from '../../lib/organization';

export { cellValue } from '../../../warehouse/catalog/explorer';
export { readCatalog, CONSOLIDATE_PIPELINE, type RowsQuery, type TableSchema };

export const tableNotFound = (name: string) => `Table "${name.length > 100 ? `${name.slice(0, 100)}...` : name}" not found`;

/** A failure of the warehouse (a refused filter, no Azure SQL login, ...) with its own status and message. */
function answerOf(e: unknown): unknown {
  return e instanceof ApplicationFailure ? new ApiError(httpStatusOf(failureTypeOf(e)), failureMessage(e)) : e;
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
    throw answerOf(e);
  }
  try {
    return await fn(o, org);
  } finally {
    await o.close();
  }
}

/** One table of the catalog by its exact name, or 404. */
export async function findTable(o: OrgDatabase, name: string): Promise<TableSchema> {
  const [table] = await readCatalog(o, name);
  if (!table || table.name !== name) throw notFound(tableNotFound(name));
  return table;
}

// --- sources: who wrote each table ----------------------------------------------------------

/** Each connector's ledger, as a table's source names it ("Sage Intacct sync of ..."). */
const PROVIDER_NAMES: Record<string, string> = Object.fromEntries(CONNECTOR_LIST.map((c) => [c.key, c.ledgerName]));
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
  acquisition: 'consolidation_acquisitions',
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
  'acquisition.save': 'acquisition saved',
  'acquisition.delete': 'acquisition removed',
};

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

// --- rows: the warehouse's reads, its refusals as answers ------------------------------------

/** The select of a table's rows (checks the filters and sort: 400 naming what is wrong). */
export function rowsQuery(o: OrgDatabase, table: TableSchema, q: Pick<RowsQuery, 'sort' | 'dir' | 'filters'>): ReturnType<typeof explorer.rowsQuery> {
  try {
    return explorer.rowsQuery(o, table, q);
  } catch (e) {
    throw answerOf(e);
  }
}

/** One page of rows, each as its values in the columns' order. */
export async function rowsPage(o: OrgDatabase, table: TableSchema, q: RowsQuery): Promise<RowsPageAnswer> {
  try {
    return await explorer.rowsPage(o, table, q);
  } catch (e) {
    throw answerOf(e);
  }
}

/** The table's rows as a stream, each as its values in the columns' order. */
export async function* streamRows(o: OrgDatabase, table: TableSchema, q: Pick<RowsQuery, 'sort' | 'dir' | 'filters'>): AsyncGenerator<unknown[]> {
  rowsQuery(o, table, q);
  yield* explorer.streamRows(o, table, q);
}

/** The compiled select and the file for the SQLite download's thread; undefined on Azure SQL (streamRows reads it). */
export function sqliteRowsJob(o: OrgDatabase, table: TableSchema, q: Pick<RowsQuery, 'sort' | 'dir' | 'filters'>): { file: string; query: CompiledQuery } | undefined {
  rowsQuery(o, table, q);
  return explorer.sqliteRowsJob(o, table, q);
}
