// Where the consolidation keeps its settings and its outputs: tables in the organization's own
// database (docs/data-model.md section 4), beside the trial_balance they map, indexed, with an audit
// of who changed what. Written once with Kysely for SQLite and Azure SQL (warehouse/connection.ts
// opens either); only the column types differ per dialect (../dialect.ts).
// Outputs are written to staging tables and swapped in with one short transaction per run, so a
// run killed half way leaves the tables as they were and its retry writes exactly what an
// uninterrupted run writes. Locked periods are never rewritten.
import { CONNECTOR_NAMES } from '../../common/contract/connections';
import { TRIAL_BALANCE_SOURCES } from '../../common/connectors/trial-balance-sources';
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import { insertChunked, type OrgDatabase, type OrgDialect } from '../connection';
import { DIALECTS } from '../dialect';
import { AMOUNT_SCALE, formatTrim, fromStored, parseDecimal, PRESENTATION_SCALE, RATE_SCALE, rateText, toStored } from '../../common/consolidation/decimal';
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import type { PeriodResult } from '../../common/consolidation/engine';
import { parseOwnership } from '../../common/consolidation/validate';
import type { AccountType, AcquisitionConfig, AmountBasis, ConsolidationConfig, NciMeasurement, OwnershipChange, ConsolidationSettings, EntityConfig, GroupAccount, HistoricalRateConfig, IcCategory, MappingConfig, Quote, RateConfig, RollState, TbRow, TranslatedLine } from '../../common/consolidation/types';
import { ACCOUNT_RATE_TYPES, ACCOUNT_TYPES, CASH_FLOW_CATEGORIES, type AccountRateType, type CashFlowCategory } from '../../common/consolidation/types';
import { createReportSumsTable, entityCol, FLOW_SUMS_TABLE, REPORT_SUMS_TABLE, ReportSumsBuilder, swapReportSums } from './report-sums';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

type ColType = 'key' | 'text' | 'long' | 'amount' | 'int';
function typeOf(dialect: OrgDialect, type: ColType): string {
  const t = DIALECTS[dialect].types;
  return { key: () => t.text(200), text: () => t.text(400), long: () => t.text(), amount: () => t.amount, int: () => t.int }[type]();
}

interface TableDef {
  columns: [string, ColType, 'null'?][];
  key?: string[];
  /** Extra indexes (column lists). */
  indexes?: string[][];
}

const audit = (): [string, ColType, 'null'?][] => [
  ['updated_by', 'text', 'null'],
  ['updated_at', 'key', 'null'],
];

/** The settings the users edit. */
export const CONFIG_TABLES: Record<string, TableDef> = {
  group_settings: { columns: [['key', 'key'], ['value', 'text'], ...audit()], key: ['key'] },
  consolidation_entities: {
    // remeasure: 1 when the entity is remeasured (ASC 830-10) instead of translated; null or 0 translated.
    columns: [['entity', 'key'], ['name', 'text'], ['currency', 'key', 'null'], ['ownership', 'key'], ['parent', 'key', 'null'], ['included', 'int'], ['basis', 'key'], ['source', 'key', 'null'], ...audit(), ['remeasure', 'int', 'null']],
    key: ['entity'],
  },
  // rate_type: the account's rate type override (closing, average, historical); null for its type's rate.
  // cash_flow: its cash-flow category (common/reports/flows.ts); null for the one its type and line give.
  group_accounts: { columns: [['code', 'key'], ['name', 'text'], ['type', 'key'], ['line', 'text'], ['role', 'key', 'null'], ['sort', 'int'], ['rate_type', 'key', 'null'], ['cash_flow', 'key', 'null']], key: ['code'] },
  group_account_mappings: {
    columns: [['entity', 'key'], ['source_account', 'key'], ['group_account', 'key'], ['ic_counterparty', 'key', 'null'], ['ic_category', 'key', 'null'], ['reason', 'text', 'null'], ...audit()],
    key: ['entity', 'source_account'],
    indexes: [['group_account']],
  },
  // Rates are text, as entered (up to RATE_SCALE decimals), with their quote: 'direct' (null in rows from before it) or 'indirect'.
  fx_rates: { columns: [['currency', 'key'], ['period', 'key'], ['closing', 'key'], ['average', 'key'], ['source', 'key'], ...audit(), ['quote', 'key', 'null']], key: ['currency', 'period'] },
  fx_historical_rates: { columns: [['entity', 'key'], ['group_account', 'key'], ['rate', 'key'], ...audit(), ['quote', 'key', 'null']], key: ['entity', 'group_account'] },
  consolidation_period_locks: { columns: [['period', 'key'], ['locked_by', 'text'], ['locked_at', 'key']], key: ['period'] },
  // Acquisitions (common/consolidation/acquisitions.ts): amounts as decimal text, as entered (4 decimals at most).
  consolidation_acquisitions: {
    columns: [['entity', 'key'], ['acquisition_date', 'key'], ['consideration', 'key'], ['consideration_currency', 'key'], ['nci_measurement', 'key'], ['nci_fair_value', 'key', 'null'], ...audit()],
    key: ['entity'],
  },
  consolidation_fair_value_adjustments: { columns: [['entity', 'key'], ['line', 'int'], ['group_account', 'key'], ['amount', 'key'], ['useful_life_months', 'int', 'null'], ['amortization_account', 'key', 'null']], key: ['entity', 'line'] },
  // Effective-dated ownership: the entity's ownership (percent text) from a month on.
  consolidation_ownership_changes: { columns: [['entity', 'key'], ['from_period', 'key'], ['ownership', 'key'], ...audit()], key: ['entity', 'from_period'] },
  consolidation_audit: { columns: [['at', 'key'], ['user_id', 'key', 'null'], ['user_name', 'text', 'null'], ['action', 'key'], ['detail', 'long']], indexes: [['at']] },
  // Consolidation journals (./journals.ts): amounts as exact decimal text at the level's scale.
  consolidation_journals: {
    columns: [['id', 'key'], ['reference', 'text'], ['period', 'key'], ['level', 'key'], ['entity', 'key', 'null'], ['kind', 'key'], ['recurring_to', 'key', 'null'], ['status', 'key'], ['memo', 'text', 'null'], ['origin', 'text', 'null'], ['reversal_of', 'key', 'null'], ['reversed_by', 'key', 'null'], ['author_id', 'key', 'null'], ['author_name', 'text', 'null'], ['created_at', 'key'], ['submitted_at', 'key', 'null'], ['approver_id', 'key', 'null'], ['approver_name', 'text', 'null'], ['posted_at', 'key', 'null'], ['reversed_at', 'key', 'null'], ...audit()],
    key: ['id'],
    indexes: [['period'], ['status']],
  },
  consolidation_journal_lines: { columns: [['journal_id', 'key'], ['line_no', 'int'], ['account', 'key'], ['counterparty', 'key', 'null'], ['debit', 'key'], ['credit', 'key'], ['memo', 'text', 'null']], key: ['journal_id', 'line_no'] },
};

/** What a run writes (per period). */
export const OUTPUT_TABLES: Record<string, TableDef> = {
  consolidation_translated_lines: {
    columns: [['period', 'key'], ['entity', 'key'], ['group_account', 'key'], ['source_account', 'text'], ['source_account_name', 'text', 'null'], ['local_amount', 'amount'], ['currency', 'key'], ['rate_kind', 'key'], ['rate', 'key', 'null'], ['presentation_amount', 'amount']],
    indexes: [['period', 'group_account', 'entity']],
  },
  consolidation_entries: {
    columns: [['period', 'key'], ['entry_id', 'text'], ['kind', 'key'], ['entity', 'key', 'null'], ['counterparty', 'key', 'null'], ['category', 'key', 'null'], ['group_account', 'key'], ['amount', 'amount'], ['sources', 'long'], ['memo', 'text']],
    indexes: [['period', 'group_account']],
  },
  consolidated_trial_balance: {
    columns: [['period', 'key'], ['group_account', 'key'], ['group_account_name', 'text'], ['account_type', 'key'], ['line', 'text'], ['entities_amount', 'amount'], ['eliminations', 'amount'], ['nci', 'amount'], ['consolidated', 'amount']],
    indexes: [['period', 'group_account']],
  },
  consolidation_mismatches: {
    columns: [['period', 'key'], ['entity_a', 'key'], ['entity_b', 'key'], ['category', 'key'], ['amount_a', 'amount'], ['amount_b', 'amount'], ['difference', 'amount'], ['within_tolerance', 'int'], ['likely_cause', 'text']],
    indexes: [['period']],
  },
  consolidation_checks: {
    columns: [['period', 'key'], ['status', 'key'], ['tb_net', 'amount'], ['assets', 'amount'], ['liabilities_and_equity', 'amount'], ['eliminations_net', 'amount'], ['unmapped_count', 'int'], ['missing_rates', 'int'], ['messages', 'long']],
    indexes: [['period']],
  },
  consolidation_rollforward: {
    columns: [['period', 'key'], ['entity', 'key'], ['re_local', 'amount'], ['re_translated', 'amount'], ['profit_local', 'amount'], ['profit_translated', 'amount']],
    indexes: [['period']],
  },
};

/** Staging tables of one run: <output>__next_<run> (the trial_balance planner skips names with "__"). */
export const stagingSuffix = (runId: string): string => `__next_${runId.replace(/[^a-zA-Z0-9]/g, '').slice(0, 12).toLowerCase()}`;

async function existingTables(db: Db): Promise<Set<string>> {
  const tables = await db.introspection.getTables();
  return new Set(tables.map((t) => t.name));
}

function tableBuilder(db: Db, dialect: OrgDialect, name: string, def: TableDef) {
  let q = db.schema.createTable(name);
  for (const [col, type, nullable] of def.columns) q = q.addColumn(col, sql.raw(typeOf(dialect, type)), (c) => (nullable ? c : c.notNull()));
  if (def.key) q = q.addPrimaryKeyConstraint(`${name}_pk`, def.key as never);
  return q;
}

async function createTable(db: Db, dialect: OrgDialect, name: string, def: TableDef): Promise<void> {
  await tableBuilder(db, dialect, name, def).execute();
  for (const [i, cols] of (def.indexes ?? []).entries()) await db.schema.createIndex(`${name}_ix${i}`).on(name).columns(cols).execute();
}

/** Integer cents of a stored amount (exact sums in SQL, never a floating-point SUM). */
export const CENTS_SQL: Record<OrgDialect, (col: string) => string> = {
  sqlite: (c) => DIALECTS.sqlite.scaledInteger(c, 100),
  mssql: (c) => DIALECTS.mssql.scaledInteger(c, 100),
};

/**
 * The consolidated trial balance's column per entity: its translated lines and its translation
 * and rounding entries, summed in exact cents. A view over what the run wrote once.
 */
export const ENTITY_COLUMNS_VIEW = 'consolidated_trial_balance_entities';
function entityColumnsView(dialect: OrgDialect): string {
  return `create view ${ENTITY_COLUMNS_VIEW} as\n${entityColumnsSelect(dialect)}`;
}
function entityColumnsSelect(dialect: OrgDialect): string {
  const cents = CENTS_SQL[dialect];
  return `select period, group_account, entity, sum(cents) as amount_cents from (
  select period, group_account, entity, ${cents('presentation_amount')} as cents from consolidation_translated_lines
  union all
  select period, group_account, entity, ${cents('amount')} as cents from consolidation_entries where kind in ('translation', 'rounding')
) x group by period, group_account, entity`;
}

/** The group chart's table: created with the default chart in one transaction, never filled again. */
export const CHART_TABLE = 'group_accounts';

/** Every table and view of the consolidation, by name (what ensureConsolidationSchema creates). */
export const CONSOLIDATION_OBJECTS: readonly string[] = [...Object.keys(CONFIG_TABLES), ...Object.keys(OUTPUT_TABLES), ENTITY_COLUMNS_VIEW];

/** The columns of a consolidation table as declared (name, declared type). */
export function consolidationColumns(dialect: OrgDialect, table: string): [string, string][] | undefined {
  const def = CONFIG_TABLES[table] ?? OUTPUT_TABLES[table];
  if (def) return def.columns.map(([c, t]) => [c, typeOf(dialect, t)]);
  if (table === ENTITY_COLUMNS_VIEW) return [['period', typeOf(dialect, 'key')], ['group_account', typeOf(dialect, 'key')], ['entity', typeOf(dialect, 'key')], ['amount_cents', typeOf(dialect, 'int')]];
  return undefined;
}

/**
 * The statements that create what is missing of the consolidation's tables (but the group
 * chart's: chartDdl), their indexes and the view over the outputs, each behind the dialect's
 * existence guard: idempotent, and harmless when another process runs them at the same time.
 */
export function consolidationSchemaDdl(db: Db, dialect: OrgDialect): string[] {
  const d = DIALECTS[dialect];
  const out: string[] = [];
  for (const [name, def] of Object.entries({ ...CONFIG_TABLES, ...OUTPUT_TABLES })) {
    if (name !== CHART_TABLE) out.push(d.createTableIfMissing(tableBuilder(db, dialect, name, def), name));
    for (const [i, cols] of (def.indexes ?? []).entries()) out.push(d.createIndexIfMissing(db.schema.createIndex(`${name}_ix${i}`).on(name).columns(cols), `${name}_ix${i}`, name));
  }
  out.push(d.createViewIfMissing(ENTITY_COLUMNS_VIEW, entityColumnsSelect(dialect)));
  return out;
}

/** The group chart's table (guarded) and the inserts of the default chart, run together in one transaction when the table is missing. */
export function chartDdl(db: Db, dialect: OrgDialect): { create: string; seed: CompiledQuery[] } {
  const d = DIALECTS[dialect];
  const rows = DEFAULT_GROUP_CHART.map((a, i) => accountRow(a, i));
  const size = d.rowsPerInsert(Object.keys(rows[0]!).length);
  const seed: CompiledQuery[] = [];
  for (let i = 0; i < rows.length; i += size) seed.push(db.insertInto(CHART_TABLE).values(rows.slice(i, i + size)).compile());
  return { create: d.createTableIfMissing(tableBuilder(db, dialect, CHART_TABLE, CONFIG_TABLES[CHART_TABLE]!), CHART_TABLE), seed };
}

/**
 * Creates what is missing of the consolidation's tables and view; a new organization's group
 * chart starts as the default one (seeded with its table, so a chart its users changed is never
 * seeded again). Idempotent and safe to race (provisioning, the worker's start-up migration and
 * the writers that ensure it before writing). Answers the tables and views it found missing.
 */
export async function ensureConsolidationSchema(db: Db, dialect: OrgDialect): Promise<string[]> {
  const d = DIALECTS[dialect];
  const found = await db.introspection.getTables();
  const have = new Set(found.map((t) => t.name));
  const missing = CONSOLIDATION_OBJECTS.filter((n) => !have.has(n));
  // Earlier runs stored the entity columns as a table: the view takes its place.
  const legacyColumnsTable = found.some((t) => t.name === ENTITY_COLUMNS_VIEW && !t.isView);
  if (!missing.length && !legacyColumnsTable) {
    await addNewColumns(db, dialect);
    return [];
  }
  await d.ensure(async () => {
    if (!have.has(CHART_TABLE)) {
      const { create, seed } = chartDdl(db, dialect);
      await d.transaction(db, async (trx) => {
        if ((await d.catalog(trx, CHART_TABLE)).length) return;
        await sql.raw(create).execute(trx);
        for (const q of seed) await trx.executeQuery(q);
      });
    }
    if (legacyColumnsTable) await db.schema.dropTable(ENTITY_COLUMNS_VIEW).ifExists().execute();
    for (const ddl of consolidationSchemaDdl(db, dialect)) await sql.raw(ddl).execute(db);
  });
  await addNewColumns(db, dialect);
  return legacyColumnsTable && !missing.includes(ENTITY_COLUMNS_VIEW) ? [...missing, ENTITY_COLUMNS_VIEW] : missing;
}

/** Nullable columns a settings table gained after it was made (the rates' quote), added where missing. */
async function addNewColumns(db: Db, dialect: OrgDialect): Promise<void> {
  const tables = new Map((await db.introspection.getTables()).map((t) => [t.name, new Set(t.columns.map((c) => c.name))]));
  for (const [name, def] of Object.entries(CONFIG_TABLES)) {
    const cols = tables.get(name);
    if (!cols) continue;
    for (const [col, type, nullable] of def.columns) if (nullable && !cols.has(col)) await db.schema.alterTable(name).addColumn(col, sql.raw(typeOf(dialect, type))).execute();
  }
}

export function accountRow(a: GroupAccount, sort: number) {
  return { code: a.code, name: a.name, type: a.type, line: a.line, role: a.role, sort, rate_type: a.rateType ?? null, cash_flow: a.cashFlow ?? null };
}

export { insertChunked } from '../connection';

export const DEFAULT_SETTINGS: ConsolidationSettings = { presentationCurrency: 'USD', method: 'full', toleranceAmount: 0n, tolerancePct: 0n, fiscalYearStartMonth: 1 };

export async function readSettings(db: Db): Promise<ConsolidationSettings & { configured: boolean }> {
  const rows = (await db.selectFrom('group_settings').select(['key', 'value']).execute()) as { key: string; value: string }[];
  const m = new Map(rows.map((r) => [r.key, r.value]));
  return {
    configured: m.has('presentation_currency'),
    presentationCurrency: m.get('presentation_currency') ?? DEFAULT_SETTINGS.presentationCurrency,
    method: m.get('method') === 'proportional' ? 'proportional' : 'full',
    toleranceAmount: parseDecimal(m.get('tolerance_amount') ?? '0', PRESENTATION_SCALE) ?? 0n,
    tolerancePct: (parseDecimal(m.get('tolerance_pct') ?? '0', RATE_SCALE - 2) ?? 0n),
    fiscalYearStartMonth: Number(m.get('fiscal_year_start_month') ?? 1) || 1,
    journalApproval: m.get('journal_approval') === 'required',
  };
}

/** Settings as text for storage and answers (tolerance_pct in percent). */
export function settingsText(s: ConsolidationSettings): Record<string, string> {
  return {
    presentation_currency: s.presentationCurrency,
    method: s.method,
    tolerance_amount: formatTrim(s.toleranceAmount, PRESENTATION_SCALE),
    tolerance_pct: formatTrim(s.tolerancePct, RATE_SCALE - 2),
    fiscal_year_start_month: String(s.fiscalYearStartMonth),
    ...(s.journalApproval !== undefined ? { journal_approval: s.journalApproval ? 'required' : 'off' } : {}),
  };
}

export interface EntityRow {
  entity: string;
  name: string;
  currency: string | null;
  ownership: string;
  parent: string | null;
  included: number;
  basis: string;
  source: string | null;
  updated_by: string | null;
  updated_at: string | null;
  /** Absent in a table from before the column (read-only reads): translated. */
  remeasure?: number | null;
}

export function entityConfigOf(r: EntityRow): EntityConfig {
  return { entity: r.entity, name: r.name, currency: r.currency, ownership: parseOwnership(r.ownership) ?? 0n, parent: r.parent, included: !!r.included, basis: r.basis as AmountBasis, ...(r.remeasure ? { remeasure: true } : {}) };
}

/** Where a source's trial_balance rows sit by default (editable per entity). */
function defaultBasis(source: string): AmountBasis {
  // A connector's is declared with its trial_balance source (common/connectors/<key>-tables.ts); a CSV's rows are balances.
  return (Object.hasOwn(TRIAL_BALANCE_SOURCES, source) ? TRIAL_BALANCE_SOURCES[source]?.defaultBasis : undefined) ?? 'balances';
}

/**
 * Every entity of trial_balance gets a configuration row: its currency from the source when it
 * says, its name from `names` (what the connections call it) else "<source> <id>".
 */
export async function syncEntities(db: Db, dialect: OrgDialect, names: Map<string, string> = new Map()): Promise<number> {
  const fresh = await entitiesToAdd(db, dialect, names);
  await insertChunked(db, dialect, 'consolidation_entities', fresh.map((r) => ({ ...r })));
  return fresh.length;
}

/** The configuration rows syncEntities would add (what a read shows for them: it writes nothing). */
export async function entitiesToAdd(db: Db, dialect: OrgDialect, names: Map<string, string> = new Map()): Promise<EntityRow[]> {
  const have = await existingTables(db);
  if (!have.has('trial_balance')) return [];
  // The entities first (month by month, through the (period, entity) index: a seek per month and
  // entity), then the currency and source of the new ones only (usually none after the first run).
  const entities = await trialBalanceEntities(db, dialect);
  const known = new Set(((await db.selectFrom('consolidation_entities').select('entity').execute()) as { entity: string }[]).map((r) => r.entity));
  const unknown = entities.filter((e) => !known.has(e));
  if (!unknown.length) return [];
  const unknownSet = new Set(unknown);
  // (Many new ones, past what a statement's parameters hold: all of them, the known ones left out.)
  const fresh = (
    (await db
      .selectFrom('trial_balance')
      .select(['entity', sql<string | null>`max(currency)`.as('currency'), sql<string>`max(source)`.as('source')])
      .$if(unknown.length <= 500, (q) => q.where('entity', 'in', unknown))
      .groupBy('entity')
      .orderBy('entity')
      .execute()) as { entity: string; currency: string | null; source: string }[]
  ).filter((f) => unknownSet.has(f.entity));
  const label = (s: string) => (CONNECTOR_NAMES as Readonly<Record<string, string>>)[s] ?? s.replace(/^csv:/, 'CSV ');
  return fresh.map((f) => ({ entity: f.entity, name: names.get(f.entity) ?? `${label(f.source)} ${f.entity}`, currency: f.currency && /^[A-Z]{3}$/.test(f.currency) ? f.currency : null, ownership: '100', parent: null, included: 1, basis: defaultBasis(f.source.startsWith('csv:') ? 'csv' : f.source), source: f.source, updated_by: null, updated_at: null }));
}

export async function readEntities(db: Db): Promise<EntityRow[]> {
  return (await db.selectFrom('consolidation_entities').selectAll().orderBy('entity').execute()) as EntityRow[];
}

export async function readChart(db: Db): Promise<GroupAccount[]> {
  const rows = (await db.selectFrom('group_accounts').selectAll().orderBy('sort').orderBy('code').execute()) as { code: string; name: string; type: AccountType; line: string; role: GroupAccount['role']; rate_type?: string | null; cash_flow?: string | null }[];
  return rows.map((r) => ({
    code: r.code,
    name: r.name,
    type: r.type,
    line: r.line,
    role: r.role ?? null,
    rateType: (ACCOUNT_RATE_TYPES as readonly string[]).includes(r.rate_type ?? '') ? (r.rate_type as AccountRateType) : null,
    // A chart from before the column (read-only reads) has none: the category its type and line give.
    cashFlow: (CASH_FLOW_CATEGORIES as readonly string[]).includes(r.cash_flow ?? '') ? (r.cash_flow as CashFlowCategory) : null,
  }));
}

export interface AcquisitionRow {
  entity: string;
  acquisition_date: string;
  consideration: string;
  consideration_currency: string;
  nci_measurement: string;
  nci_fair_value: string | null;
  updated_by: string | null;
  updated_at: string | null;
}
export interface AdjustmentRow {
  entity: string;
  line: number;
  group_account: string;
  amount: string;
  useful_life_months: number | null;
  amortization_account: string | null;
}

/** The acquisitions as stored (rows, for the api's answers) and as the engine takes them. */
export async function readAcquisitions(db: Db): Promise<{ rows: AcquisitionRow[]; adjustments: AdjustmentRow[]; config: AcquisitionConfig[] }> {
  const [rows, adjustments] = await Promise.all([
    db.selectFrom('consolidation_acquisitions').selectAll().orderBy('entity').execute() as Promise<AcquisitionRow[]>,
    db.selectFrom('consolidation_fair_value_adjustments').selectAll().orderBy('entity').orderBy('line').execute() as Promise<AdjustmentRow[]>,
  ]);
  const amount = (t: string | null) => (t === null ? null : (parseDecimal(t, AMOUNT_SCALE) ?? 0n));
  const config = rows.map(
    (r): AcquisitionConfig => ({
      entity: r.entity,
      date: r.acquisition_date,
      consideration: amount(r.consideration)!,
      considerationCurrency: r.consideration_currency,
      nciMeasurement: r.nci_measurement as NciMeasurement,
      nciFairValue: amount(r.nci_fair_value),
      adjustments: adjustments
        .filter((j) => j.entity === r.entity)
        .map((j) => ({ groupAccount: j.group_account, amount: amount(j.amount)!, usefulLifeMonths: j.useful_life_months === null ? null : Number(j.useful_life_months), amortizationAccount: j.amortization_account })),
    }),
  );
  return { rows, adjustments, config };
}

export async function readOwnershipChanges(db: Db): Promise<OwnershipChange[]> {
  const rows = (await db.selectFrom('consolidation_ownership_changes').select(['entity', 'from_period', 'ownership']).orderBy('entity').orderBy('from_period').execute()) as { entity: string; from_period: string; ownership: string }[];
  return rows.map((r) => ({ entity: r.entity, from: r.from_period, ownership: parseOwnership(r.ownership) ?? 0n }));
}

/** The whole configuration the engine needs (mappings and rates stream in whole: a run needs all of them). */
export async function readConfig(db: Db): Promise<ConsolidationConfig> {
  const [settings, entities, accounts, mappingRows, rateRows, histRows, acquisitions, ownershipChanges] = await Promise.all([
    readSettings(db),
    readEntities(db),
    readChart(db),
    db.selectFrom('group_account_mappings').select(['entity', 'source_account', 'group_account', 'ic_counterparty', 'ic_category']).execute(),
    db.selectFrom('fx_rates').select(['currency', 'period', 'closing', 'average', 'quote']).execute(),
    db.selectFrom('fx_historical_rates').select(['entity', 'group_account', 'rate', 'quote']).execute(),
    readAcquisitions(db),
    readOwnershipChanges(db),
  ]);
  const mappings: MappingConfig[] = (mappingRows as Record<string, string | null>[]).map((r) => ({ entity: r.entity!, sourceAccount: r.source_account!, groupAccount: r.group_account!, icCounterparty: r.ic_counterparty ?? null, icCategory: (r.ic_category as IcCategory | null) ?? null }));
  const quote = (q: string | null | undefined): { quote?: Quote } => (q === 'indirect' ? { quote: 'indirect' } : {});
  const rates: RateConfig[] = (rateRows as Record<string, string>[]).map((r) => ({ currency: r.currency!, period: r.period!, closing: parseDecimal(r.closing!, RATE_SCALE) ?? 0n, average: parseDecimal(r.average!, RATE_SCALE) ?? 0n, ...quote(r.quote) }));
  const historical: HistoricalRateConfig[] = (histRows as Record<string, string>[]).map((r) => ({ entity: r.entity!, groupAccount: r.group_account!, rate: parseDecimal(r.rate!, RATE_SCALE) ?? 0n, ...quote(r.quote) }));
  return { settings, entities: entities.map(entityConfigOf), accounts, mappings, rates, historical, acquisitions: acquisitions.config, ownershipChanges };
}

export async function trialBalancePeriods(db: Db, dialect: OrgDialect): Promise<string[]> {
  if (!(await existingTables(db)).has('trial_balance')) return [];
  return (await DIALECTS[dialect].distinctInIndex(db, 'trial_balance', 'period')).filter((p) => /^\d{4}-\d{2}$/.test(p));
}

// (Read once: tsx compiles every use of an import to a getter call on the other module's
// exports, and these are called for every line written and every trial-balance row read.)
const perRow = { toStored, fromStored, AMOUNT_SCALE, PRESENTATION_SCALE };
const KNOWN_TYPES = new Set<string>(ACCOUNT_TYPES);
const asType = (t: string | null): AccountType | null => (t !== null && KNOWN_TYPES.has(t) ? (t as AccountType) : null);

/** The months the consolidation's outputs hold (consolidated_trial_balance's). */
export async function outputPeriods(db: Db): Promise<string[]> {
  return ((await db.selectFrom('consolidated_trial_balance').select('period').distinct().orderBy('period').execute()) as { period: string }[]).map((r) => r.period);
}

/**
 * The entities with rows in one month, or in any month without `period`, in order (the (period,
 * entity) index answers: trial_balance's every month has it).
 */
export async function trialBalanceEntities(db: Db, dialect: OrgDialect, period?: string): Promise<string[]> {
  return period === undefined ? DIALECTS[dialect].distinctInIndex(db, 'trial_balance', 'entity', {}, 'period') : DIALECTS[dialect].distinctInIndex(db, 'trial_balance', 'entity', { period });
}

/** True when trial_balance has its counterparty column (a table rebuilt before it has none until the next rebuild). */
export async function trialBalanceHasCounterparty(db: Db): Promise<boolean> {
  const t = (await db.introspection.getTables()).find((x) => x.name === 'trial_balance');
  return !!t?.columns.some((c) => c.name.toLowerCase() === 'counterparty');
}

/** One entity's rows of one month (arrays through a kept prepared statement: 720,000 rows a big run); with each row's counterparty when `withCounterparty` (trialBalanceHasCounterparty). */
export async function readTrialBalanceRows(org: OrgDatabase, period: string, entity: string, withCounterparty = false): Promise<TbRow[]> {
  const columns = ['account_code', 'account_name', 'account_type', 'net', ...(withCounterparty ? ['counterparty'] : [])];
  const query = org.db.selectFrom('trial_balance').select(columns).where('period', '=', period).where('entity', '=', entity).compile();
  return (await org.selectRows(query)).map((r) => {
    const row: TbRow = { entity, period, accountCode: r[0] as string, accountName: r[1] as string | null, accountType: asType(r[2] as string | null), net: perRow.fromStored(r[3] as number | string, perRow.AMOUNT_SCALE) };
    if (withCounterparty && r[4] !== null && r[4] !== undefined && r[4] !== '') row.counterparty = String(r[4]);
    return row;
  });
}

/** The source accounts of each entity in trial_balance, with name and type (mapping screens, checks). */
export async function sourceAccounts(db: Db): Promise<{ entity: string; account_code: string; account_name: string | null; account_type: string | null }[]> {
  if (!(await existingTables(db)).has('trial_balance')) return [];
  return (await db
    .selectFrom('trial_balance')
    .select(['entity', 'account_code', sql<string | null>`max(account_name)`.as('account_name'), sql<string | null>`max(account_type)`.as('account_type')])
    .groupBy(['entity', 'account_code'])
    .orderBy('entity')
    .orderBy('account_code')
    .execute()) as { entity: string; account_code: string; account_name: string | null; account_type: string | null }[];
}

export async function lockedPeriods(db: Db): Promise<Map<string, RollState[]>> {
  const locks = (await db.selectFrom('consolidation_period_locks').select('period').execute()) as { period: string }[];
  const out = new Map<string, RollState[]>();
  if (!locks.length) return out;
  const states = (await db.selectFrom('consolidation_rollforward').selectAll().where('period', 'in', locks.map((l) => l.period)).execute()) as Record<string, string | number>[];
  for (const l of locks) out.set(l.period, []);
  for (const s of states) {
    out.get(String(s.period))!.push({
      entity: String(s.entity),
      period: String(s.period),
      reLocal: fromStored(s.re_local, AMOUNT_SCALE),
      reTranslated: fromStored(s.re_translated, PRESENTATION_SCALE),
      profitLocal: fromStored(s.profit_local, AMOUNT_SCALE),
      profitTranslated: fromStored(s.profit_translated, PRESENTATION_SCALE),
    });
  }
  return out;
}

const amt = (v: bigint) => perRow.toStored(v, perRow.PRESENTATION_SCALE);
const loc = (v: bigint) => perRow.toStored(v, perRow.AMOUNT_SCALE);

// (No account type: nothing read it, and each column is about a tenth of the run's largest insert; issue 29.)
// The translated lines' columns that a run of lines shares (an entity's month: bound once per
// statement of many rows, not on every line), and their own.
const TRANSLATED_SAME = ['period', 'entity', 'currency'] as const;
const TRANSLATED_OWN = ['group_account', 'source_account', 'source_account_name', 'local_amount', 'rate_kind', 'rate', 'presentation_amount'] as const;
/** The entries' columns but their month (bound once: a month's entries share it). */
const ENTRY_OWN = ['entry_id', 'kind', 'entity', 'counterparty', 'category', 'group_account', 'amount', 'sources', 'memo'] as const;
const CTB_COLUMNS = ['period', 'group_account', 'group_account_name', 'account_type', 'line', 'entities_amount', 'eliminations', 'nci', 'consolidated'] as const;

/**
 * A rate as its lines store it (rateText), formatted once per rate: an entity's month has a few
 * rates for its thousand lines. Kept small: a run's rates, about entities x months x 3.
 */
class RateTexts {
  private readonly direct = new Map<bigint, string>();
  private readonly indirect = new Map<bigint, string>();
  /** The last rate asked (an entity's lines come in runs of the same rate): no lookup for the next line at it. */
  private lastRate: bigint | undefined;
  private lastIndirect = false;
  private lastText = '';
  of(rate: bigint, indirect: boolean | undefined): string {
    if (rate === this.lastRate && !!indirect === this.lastIndirect) return this.lastText;
    this.lastText = this.lookUp(rate, indirect);
    this.lastRate = rate;
    this.lastIndirect = !!indirect;
    return this.lastText;
  }
  private lookUp(rate: bigint, indirect: boolean | undefined): string {
    const m = indirect ? this.indirect : this.direct;
    let t = m.get(rate);
    if (t === undefined) {
      if (m.size > 10_000) m.clear();
      m.set(rate, (t = rateText(rate, indirect)));
    }
    return t;
  }
}

/**
 * `items` into `table` straight from each item into one reused row (insertEach: no array per
 * row), in runs of neighbours `alike` (an entity's month of translated lines, a month's entries):
 * a run's `shared` values (of its first item) bound once per statement of many rows, not on every
 * row, and each item's `own` filled in.
 */
async function insertInRuns<T>(
  org: Pick<OrgDatabase, 'insertEach'>,
  table: string,
  items: readonly T[],
  alike: (a: T, b: T) => boolean,
  shared: { columns: readonly string[]; of: (first: T) => readonly unknown[] },
  own: { columns: readonly string[]; fill: (x: T, row: unknown[]) => void },
): Promise<void> {
  for (let start = 0; start < items.length; ) {
    const first = items[start]!;
    let end = start + 1;
    while (end < items.length && alike(first, items[end]!)) end++;
    const from = start;
    await org.insertEach(table, own.columns, end - start, (i, row) => own.fill(items[from + i]!, row), { columns: shared.columns, values: shared.of(first) });
    start = end;
  }
}

/** Stages one period's results (the run swaps them in at its end with commitOutputs). */
export class OutputWriter {
  private started = false;
  private readonly db: Db;
  private readonly dialect: OrgDialect;
  /** The statements' sums (./report-sums.ts), staged month by month beside the outputs. */
  private sums?: ReportSumsBuilder;
  private readonly rates = new RateTexts();
  constructor(
    private readonly org: OrgDatabase,
    private readonly chart: Map<string, GroupAccount>,
    /** stagingSuffix(runId): a retried run finds and replaces its own staging tables. */
    private readonly suffix: string,
  ) {
    this.db = org.db;
    this.dialect = org.dialect;
  }

  async start(): Promise<void> {
    const have = await existingTables(this.db);
    for (const [name, def] of Object.entries(OUTPUT_TABLES)) {
      if (have.has(name + this.suffix)) await this.db.schema.dropTable(name + this.suffix).execute();
      await createTable(this.db, this.dialect, name + this.suffix, { columns: def.columns });
    }
    const sums = REPORT_SUMS_TABLE + this.suffix;
    await this.db.schema.dropTable(sums).ifExists().execute();
    await createReportSumsTable(this.db, this.dialect, sums);
    this.sums = new ReportSumsBuilder(this.org, sums);
    this.started = true;
  }

  /** A month the run does not write (locked, or outside its range): its sums as the outputs keep it, so the running totals go on. Months in order, as written. */
  async carry(period: string): Promise<void> {
    if (!this.sums) throw new Error('OutputWriter.start() first');
    await this.sums.carry(period);
  }

  /**
   * One entity's translated lines of a month, as the engine hands them out. Their sums per entity
   * and group account come through sumTranslated, from the month's flow parts (grouped there
   * already: not a second grouping of every line).
   */
  async writeTranslated(lines: TranslatedLine[]): Promise<void> {
    if (!this.started) throw new Error('OutputWriter.start() first');
    // An entity's month (as the engine hands its lines out) shares its period, entity and currency.
    await insertInRuns(
      this.org,
      'consolidation_translated_lines' + this.suffix,
      lines,
      (a, b) => a.period === b.period && a.entity === b.entity && a.currency === b.currency,
      { columns: TRANSLATED_SAME, of: (t) => [t.period, t.entity, t.currency] },
      {
        columns: TRANSLATED_OWN,
        fill: (t, row) => {
          row[0] = t.groupAccount;
          row[1] = t.sourceAccount;
          row[2] = t.sourceAccountName ?? null;
          row[3] = loc(t.local);
          row[4] = t.rateKind;
          row[5] = t.rate === null ? null : this.rates.of(t.rate, t.indirect);
          row[6] = amt(t.presentation);
        },
      },
    );
  }

  /** The month's translated lines summed per entity column and group account (MonthParts' parts of them: `entity:<key>`, account, cents). */
  sumTranslated(parts: readonly { column: string; account: string; cents: bigint }[]): void {
    if (!this.sums) throw new Error('OutputWriter.start() first');
    for (const p of parts) this.sums.add(p.column, p.account, p.cents);
  }

  /** The rest of a month's results (its translated lines went through writeTranslated and sumTranslated). */
  async write(r: Omit<PeriodResult, 'translated'>): Promise<void> {
    if (!this.started) throw new Error('OutputWriter.start() first');
    const ins = (t: string, rows: Record<string, unknown>[]) => this.org.insertMany(t + this.suffix, rows);
    // The two big ones (a month's entries: a row per posted journal line) with no object per row,
    // the entries' month bound once.
    await insertInRuns(
      this.org,
      'consolidation_entries' + this.suffix,
      r.entries,
      (a, b) => a.period === b.period,
      { columns: ['period'], of: (x) => [x.period] },
      {
        columns: ENTRY_OWN,
        fill: (x, row) => {
          row[0] = x.entryId;
          row[1] = x.kind;
          row[2] = x.entity ?? null;
          row[3] = x.counterparty ?? null;
          row[4] = x.category ?? null;
          row[5] = x.groupAccount;
          row[6] = amt(x.amount);
          row[7] = x.sources;
          row[8] = x.memo;
        },
      },
    );
    await this.org.insertRows(
      'consolidated_trial_balance' + this.suffix,
      CTB_COLUMNS,
      r.ctb.map((c) => {
        const a = this.chart.get(c.groupAccount);
        return [c.period, c.groupAccount, a?.name ?? c.groupAccount, a?.type ?? 'asset', a?.line ?? '', amt(c.entities), amt(c.eliminations), amt(c.nci), amt(c.consolidated)];
      }),
    );
    await ins(
      'consolidation_mismatches',
      r.mismatches.map((m) => ({ period: m.period, entity_a: m.entityA, entity_b: m.entityB, category: m.category, amount_a: amt(m.amountA), amount_b: amt(m.amountB), difference: amt(m.difference), within_tolerance: m.withinTolerance ? 1 : 0, likely_cause: m.likelyCause })),
    );
    const k = r.check;
    const sums = this.sums!;
    for (const x of r.entries) {
      if (x.kind === 'adjustment') sums.add('adjustments', x.groupAccount, x.amount);
      else if ((x.kind === 'translation' || x.kind === 'rounding') && x.entity !== null) sums.add(entityCol(x.entity), x.groupAccount, x.amount);
    }
    for (const c of r.ctb) {
      sums.add('eliminations', c.groupAccount, c.eliminations);
      sums.add('nci', c.groupAccount, c.nci);
      sums.add('consolidated', c.groupAccount, c.consolidated);
    }
    await sums.flush(r.period);
    await ins('consolidation_checks', [{ period: k.period, status: k.status, tb_net: amt(k.tbNet), assets: amt(k.assets), liabilities_and_equity: amt(k.liabilitiesAndEquity), eliminations_net: amt(k.eliminationsNet), unmapped_count: k.unmappedCount, missing_rates: k.missingRates, messages: k.messages.join('\n') }]);
    await ins(
      'consolidation_rollforward',
      r.states.map((s) => ({ period: s.period, entity: s.entity, re_local: loc(s.reLocal), re_translated: amt(s.reTranslated), profit_local: loc(s.profitLocal), profit_translated: amt(s.profitTranslated) })),
    );
  }

  /**
   * Swaps the staged periods in, in one transaction: the months the run does not replace (locked,
   * or outside its range) are copied into the staging table, which then takes the output
   * table's place with its indexes. A full run copies nothing: each row is written once.
   * `alsoSwap`: the run's other staged tables, swapped in the same transaction.
   */
  async commit(range: { from?: string; to?: string }, locked: string[], alsoSwap?: (trx: Db) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // The view over the outputs goes while they are swapped (a rename checks every view) and comes back after.
      await trx.schema.dropView(ENTITY_COLUMNS_VIEW).ifExists().execute();
      for (const [name, def] of Object.entries(OUTPUT_TABLES)) {
        const next = name + this.suffix;
        // By name: a table written before a column went (translated lines' account type) still copies.
        const columns = def.columns.map(([c]) => c);
        const kept = trx
          .selectFrom(name)
          .select(columns)
          .where((eb) => {
            const keep = [];
            if (range.from) keep.push(eb('period', '<', range.from));
            if (range.to) keep.push(eb('period', '>', range.to));
            if (locked.length) keep.push(eb('period', 'in', locked));
            return keep.length ? eb.or(keep) : eb.val(0).$castTo<boolean>();
          });
        if (range.from || range.to || locked.length) await trx.insertInto(next).columns(columns).expression(kept).execute();
        await trx.schema.dropTable(name).execute();
        for (const [i, cols] of (def.indexes ?? []).entries()) await trx.schema.createIndex(`${name}_ix${i}`).on(next).columns(cols).execute();
        await trx.schema.alterTable(next).renameTo(name).execute();
      }
      await sql.raw(entityColumnsView(this.dialect)).execute(trx);
      await swapReportSums(trx, REPORT_SUMS_TABLE + this.suffix);
      // The flow statements' figures (../reports/flow-sums.ts), built by the run beside its
      // outputs, swapped in with them; without them, those of the outputs swapped out go too.
      if (alsoSwap) await alsoSwap(trx);
      else await trx.schema.dropTable(FLOW_SUMS_TABLE).ifExists().execute();
    });
  }
}

/** One audit row: who changed what, in the same transaction as the change. */
export async function writeAudit(db: Db, who: { userId?: string; name?: string }, action: string, detail: unknown): Promise<void> {
  await db.insertInto('consolidation_audit').values({ at: new Date().toISOString(), user_id: who.userId ?? null, user_name: who.name ?? null, action, detail: JSON.stringify(detail) }).execute();
}
