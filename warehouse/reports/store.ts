// What the reports read and keep in the organization's own database: the consolidation's
// outputs summed per group account in exact integer cents (SQL sums integers, never floating
// point), the months' checks and locks, and the custom report layouts (table report_layouts,
// one row per layout, its definition as JSON, with who changed it last).
import { CONNECTOR_NAMES } from '../../common/contract/connections';
import { sql, type Kysely } from 'kysely';
import { CENTS_SQL, ENTITY_COLUMNS_VIEW } from '../consolidation/store';
import { entityCol, readRangeSums } from '../consolidation/report-sums';
import type { OrgDialect } from '../connection';
import { DIALECTS } from '../dialect';
import type { CustomLayout } from '../../common/reports/custom';
import { acquisitionOfEntry, entryColumn, type FlowMonth, type FlowPart } from '../../common/reports/flows';
import { parseDecimal, RATE_SCALE } from '../../common/consolidation/decimal';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;
const ENTITY_COL_PREFIX = entityCol('');

/** Cents per group account (and entity), split into the range's last month and its earlier months. */
export interface RangeSums {
  /** entity -> account -> [last month, earlier months] */
  entities: Map<string, Map<string, [bigint, bigint]>>;
  eliminations: Map<string, [bigint, bigint]>;
  nci: Map<string, [bigint, bigint]>;
  /** Posted consolidation journals (the consolidation's entries of kind 'adjustment'). */
  adjustments: Map<string, [bigint, bigint]>;
  consolidated: Map<string, [bigint, bigint]>;
}

const big = (v: unknown): bigint => (v === null || v === undefined ? 0n : BigInt(typeof v === 'number' ? Math.round(v) : String(v)));
function put(m: Map<string, [bigint, bigint]>, account: string, last: boolean, cents: bigint): void {
  const v = m.get(account) ?? [0n, 0n];
  v[last ? 0 : 1] += cents;
  m.set(account, v);
}

const missingTable = (err: unknown): boolean => {
  // Read by its message, not instanceof Error: better-sqlite3's error class is whichever realm first
  // loaded the native module (under jest, another test file's), so instanceof can be false.
  const message = (err as { message?: unknown } | null)?.message;
  return /no such table|Invalid object name/i.test(typeof message === 'string' ? message : '');
};

/**
 * The consolidation's outputs over from..to, per group account (and per entity when
 * `withEntities`): two reads of one month each from the sums the consolidation stores
 * (../consolidation/report-sums.ts), or, for an organization not consolidated since they exist
 * (and not migrated yet), the outputs grouped over the range.
 */
export async function rangeSums(db: Db, dialect: OrgDialect, from: string, to: string, withEntities: boolean): Promise<RangeSums> {
  let stored: Awaited<ReturnType<typeof readRangeSums>>;
  try {
    stored = await readRangeSums(db, from, to, withEntities);
  } catch (err) {
    if (missingTable(err)) return groupedRangeSums(db, dialect, from, to, withEntities);
    throw err;
  }
  const out: RangeSums = { entities: new Map(), eliminations: new Map(), nci: new Map(), adjustments: new Map(), consolidated: new Map() };
  for (const [col, m] of stored) {
    if (col === 'eliminations' || col === 'nci' || col === 'adjustments' || col === 'consolidated') out[col] = m;
    else if (col.startsWith(ENTITY_COL_PREFIX)) out.entities.set(col.slice(ENTITY_COL_PREFIX.length), m);
  }
  return out;
}

/** rangeSums by grouping the outputs over the range (what every request did before the sums were stored). */
export async function groupedRangeSums(db: Db, dialect: OrgDialect, from: string, to: string, withEntities: boolean): Promise<RangeSums> {
  const out: RangeSums = { entities: new Map(), eliminations: new Map(), nci: new Map(), adjustments: new Map(), consolidated: new Map() };
  const cents = CENTS_SQL[dialect];
  const isLast = sql<number>`case when period = ${to} then 1 else 0 end`;
  // The last-month flag is computed in a derived table and grouped by name (T-SQL refuses a parameter in GROUP BY).
  const ctb = await db
    .selectFrom(
      db
        .selectFrom('consolidated_trial_balance')
        .select(['group_account', isLast.as('last'), sql.raw(cents('eliminations')).as('el'), sql.raw(cents('nci')).as('nci'), sql.raw(cents('consolidated')).as('con')])
        .where('period', '>=', from)
        .where('period', '<=', to)
        .as('x'),
    )
    .select(['x.group_account', 'x.last', sql`sum(x.el)`.as('el'), sql`sum(x.nci)`.as('nci'), sql`sum(x.con)`.as('con')])
    .groupBy(['x.group_account', 'x.last'])
    .execute();
  for (const r of ctb as { group_account: string; last: number; el: unknown; nci: unknown; con: unknown }[]) {
    put(out.eliminations, r.group_account, Number(r.last) === 1, big(r.el));
    put(out.nci, r.group_account, Number(r.last) === 1, big(r.nci));
    put(out.consolidated, r.group_account, Number(r.last) === 1, big(r.con));
  }
  const adjusted = await db
    .selectFrom(db.selectFrom('consolidation_entries').select(['group_account', isLast.as('last'), sql.raw(cents('amount')).as('c')]).where('kind', '=', 'adjustment').where('period', '>=', from).where('period', '<=', to).as('x'))
    .select(['x.group_account', 'x.last', sql`sum(x.c)`.as('c')])
    .groupBy(['x.group_account', 'x.last'])
    .execute();
  for (const r of adjusted as { group_account: string; last: number; c: unknown }[]) put(out.adjustments, r.group_account, Number(r.last) === 1, big(r.c));
  if (withEntities) {
    const rows = await db
      .selectFrom(db.selectFrom(ENTITY_COLUMNS_VIEW).select(['entity', 'group_account', isLast.as('last'), 'amount_cents']).where('period', '>=', from).where('period', '<=', to).as('x'))
      .select(['x.entity', 'x.group_account', 'x.last', sql`sum(x.amount_cents)`.as('c')])
      .groupBy(['x.entity', 'x.group_account', 'x.last'])
      .execute();
    for (const r of rows as { entity: string; group_account: string; last: number; c: unknown }[]) {
      if (!out.entities.has(r.entity)) out.entities.set(r.entity, new Map());
      put(out.entities.get(r.entity)!, r.group_account, Number(r.last) === 1, big(r.c));
    }
  }
  return out;
}

/**
 * The consolidation's outputs of some months as the statements beyond the balance sheet read
 * them (common/reports/flows.ts): per month, report column, group account and entity, the cents
 * and, for translated lines at a rate of their own, the local amount; an acquisition's entries
 * with the entity acquired. Months not consolidated (status other than ok) come back without parts.
 * Two grouped reads, exact integer sums.
 */
export async function flowParts(db: Db, dialect: OrgDialect, months: string[], known?: MonthState[]): Promise<FlowMonth[]> {
  if (!months.length) return [];
  // (`known`: the caller's monthStates of these months, not read again.)
  const states = known ?? (await monthStates(db, months));
  const ok = states.filter((m) => m.status === 'ok').map((m) => m.period);
  const byMonth = new Map<string, FlowPart[]>(ok.map((m) => [m, []]));
  if (ok.length) {
    const cents = CENTS_SQL[dialect];
    // A line at a rate of its own (flows.ts hasOwnRate): every rate kind but same and rolled.
    const own = sql<number>`case when rate_kind in ('same', 'rolled') then 0 else 1 end`;
    const lines = (await db
      .selectFrom(db.selectFrom('consolidation_translated_lines').select(['period', 'entity', 'group_account', own.as('own'), sql.raw(cents('presentation_amount')).as('c'), sql.raw(DIALECTS[dialect].scaledInteger('local_amount', 10_000)).as('l')]).where('period', 'in', ok).as('x'))
      .select(['x.period', 'x.entity', 'x.group_account', 'x.own', sql`sum(x.c)`.as('c'), sql`sum(x.l)`.as('l')])
      .groupBy(['x.period', 'x.entity', 'x.group_account', 'x.own'])
      .execute()) as { period: string; entity: string; group_account: string; own: number; c: unknown; l: unknown }[];
    for (const r of lines) byMonth.get(r.period)!.push({ column: `entity:${r.entity}`, account: r.group_account, cents: big(r.c), entity: r.entity, local: Number(r.own) === 1 ? big(r.l) : null, acquisition: null });
    // An acquisition's entries keep their entry id (one per acquired entity and month); the others are grouped without it.
    const acq = sql<string | null>`case when entry_id like '%/acquisition/%' then entry_id else null end`;
    const entries = (await db
      .selectFrom(db.selectFrom('consolidation_entries').select(['period', 'kind', 'entity', 'group_account', acq.as('acq'), sql.raw(cents('amount')).as('c')]).where('period', 'in', ok).as('x'))
      .select(['x.period', 'x.kind', 'x.entity', 'x.group_account', 'x.acq', sql`sum(x.c)`.as('c')])
      .groupBy(['x.period', 'x.kind', 'x.entity', 'x.group_account', 'x.acq'])
      .execute()) as { period: string; kind: string; entity: string | null; group_account: string; acq: string | null; c: unknown }[];
    for (const r of entries) byMonth.get(r.period)!.push({ column: entryColumn(r.kind, r.entity), account: r.group_account, cents: big(r.c), entity: r.entity, local: null, acquisition: r.acq ? acquisitionOfEntry(r.acq) : null });
  }
  return states.map((m) => ({ period: m.period, ok: m.status === 'ok', parts: byMonth.get(m.period) ?? [] }));
}

/** The exchange rates as saved (what the flows' split at the month's average reads), per currency and month. */
export async function flowRates(db: Db): Promise<{ currency: string; period: string; closing: bigint; average: bigint; quote?: 'indirect' }[]> {
  const rows = (await db.selectFrom('fx_rates').select(['currency', 'period', 'closing', 'average', 'quote']).execute()) as { currency: string; period: string; closing: string; average: string; quote: string | null }[];
  return rows.map((r) => ({ currency: r.currency, period: r.period, closing: parseDecimal(r.closing, RATE_SCALE) ?? 0n, average: parseDecimal(r.average, RATE_SCALE) ?? 0n, ...(r.quote === 'indirect' ? { quote: 'indirect' as const } : {}) }));
}

export interface MonthState {
  period: string;
  /** ok: consolidated; blocked: the run could not (its messages say why); missing: never consolidated. */
  status: 'ok' | 'blocked' | 'missing';
  locked: boolean;
  messages: string[];
}

/** Each month of a range: consolidated or not, locked or not. */
export async function monthStates(db: Db, months: string[]): Promise<MonthState[]> {
  if (!months.length) return [];
  const checks = (await db.selectFrom('consolidation_checks').select(['period', 'status', 'messages']).where('period', 'in', months).execute()) as { period: string; status: string; messages: string | null }[];
  const locks = new Set(((await db.selectFrom('consolidation_period_locks').select('period').where('period', 'in', months).execute()) as { period: string }[]).map((l) => l.period));
  const byPeriod = new Map(checks.map((c) => [c.period, c]));
  return months.map((period) => {
    const c = byPeriod.get(period);
    const status = !c ? 'missing' : c.status === 'ok' ? 'ok' : 'blocked';
    return { period, status, locked: locks.has(period), messages: c?.messages ? c.messages.split('\n').filter(Boolean) : [] };
  });
}

/** An intercompany pair whose difference is beyond the group's tolerance, in one month. */
export interface MismatchBeyond {
  period: string;
  entityA: string;
  entityB: string;
  category: string;
  /** Cents, in the presentation currency. */
  difference: bigint;
}

/** The intercompany pairs beyond tolerance in these months (what the consolidation's mismatch report lists). */
export async function mismatchesBeyondTolerance(db: Db, dialect: OrgDialect, months: string[]): Promise<MismatchBeyond[]> {
  if (!months.length) return [];
  const rows = (await db
    .selectFrom('consolidation_mismatches')
    .select(['period', 'entity_a', 'entity_b', 'category', sql.raw(CENTS_SQL[dialect]('difference')).as('c')])
    .where('period', 'in', months)
    .where('within_tolerance', '=', 0)
    .orderBy('period')
    .orderBy('entity_a')
    .orderBy('entity_b')
    .execute()) as { period: string; entity_a: string; entity_b: string; category: string; c: unknown }[];
  return rows.map((r) => ({ period: r.period, entityA: r.entity_a, entityB: r.entity_b, category: r.category, difference: big(r.c) }));
}

/** How fresh the figures are: the last consolidation, and the newest data it does not include yet. */
export interface Freshness {
  /** When the consolidation last ran (ISO): the figures hold every sync and upload before it. */
  consolidatedAt: string | null;
  /** The newest successful sync or saved upload (ISO) and what it was ("QuickBooks sync", "upload"). */
  newestData: { at: string; what: string } | null;
}


/**
 * Reads the organization's own records: the consolidation's audit (each run writes one row), the
 * sync runs and the uploads. Three small grouped reads; what the open pages poll.
 */
export async function readFreshness(db: Db): Promise<Freshness> {
  // A database made before the run records moved into it has no such table yet: no record there.
  const none = <T>(fallback: T) => (err: unknown): T => {
    if (missingTable(err)) return fallback;
    throw err;
  };
  const [run, syncs, upload] = await Promise.all([
    (db.selectFrom('consolidation_audit').select(sql<string | null>`max(at)`.as('at')).where('action', '=', 'consolidation.run').executeTakeFirst() as Promise<{ at: string | null } | undefined>).catch(none(undefined)),
    (db.selectFrom('_sync_runs').select(['provider', sql<string | null>`max(finished_at)`.as('at')]).where('status', '=', 'succeeded').groupBy('provider').execute() as Promise<{ provider: string; at: string | null }[]>).catch(none([])),
    (db.selectFrom('_uploads').select(sql<string | null>`max(created_at)`.as('at')).where('status', '=', 'saved').executeTakeFirst() as Promise<{ at: string | null } | undefined>).catch(none(undefined)),
  ]);
  const candidates: { at: string; what: string }[] = [];
  for (const sRow of syncs) if (sRow.at) candidates.push({ at: sRow.at, what: `${(CONNECTOR_NAMES as Readonly<Record<string, string>>)[sRow.provider] ?? sRow.provider} sync` });
  if (upload?.at) candidates.push({ at: upload.at, what: 'upload' });
  candidates.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return { consolidatedAt: run?.at ?? null, newestData: candidates[0] ?? null };
}

// --- custom layouts -------------------------------------------------------------------------
export const LAYOUTS_TABLE = 'report_layouts';

export interface StoredLayout {
  id: string;
  name: string;
  layout: CustomLayout;
  updatedBy: string | null;
  updatedAt: string | null;
}

/** The layouts table's columns (name, declared type). */
export function layoutColumns(dialect: OrgDialect): [string, string][] {
  const types = DIALECTS[dialect].types;
  const [key, long] = [types.text(200), types.text()];
  return [['id', key], ['name', key], ['definition', long], ['updated_by', key], ['updated_at', key]];
}

/** The statement that creates the layouts table when it is missing (guarded: idempotent, safe to race). */
export function reportsSchemaDdl(db: Db, dialect: OrgDialect): string[] {
  const required = new Set(['name', 'definition']);
  let t = db.schema.createTable(LAYOUTS_TABLE);
  for (const [col, type] of layoutColumns(dialect)) t = t.addColumn(col, sql.raw(type), (c) => (col === 'id' ? c.primaryKey() : required.has(col) ? c.notNull() : c));
  return [DIALECTS[dialect].createTableIfMissing(t, LAYOUTS_TABLE)];
}

/** Creates the layouts table when it is missing; answers the tables it found missing. */
export async function ensureReportsSchema(db: Db, dialect: OrgDialect): Promise<string[]> {
  const have = new Set((await db.introspection.getTables()).map((t) => t.name));
  if (have.has(LAYOUTS_TABLE)) return [];
  await DIALECTS[dialect].ensure(async () => {
    for (const ddl of reportsSchemaDdl(db, dialect)) await sql.raw(ddl).execute(db);
  });
  return [LAYOUTS_TABLE];
}

type LayoutRecord = { id: string; name: string; definition: string; updated_by: string | null; updated_at: string | null };
const stored = (r: LayoutRecord): StoredLayout => ({ id: r.id, name: r.name, layout: JSON.parse(r.definition) as CustomLayout, updatedBy: r.updated_by, updatedAt: r.updated_at });

export async function listLayouts(db: Db): Promise<StoredLayout[]> {
  return ((await db.selectFrom(LAYOUTS_TABLE).selectAll().orderBy('name').execute()) as LayoutRecord[]).map(stored);
}

export async function readLayout(db: Db, id: string): Promise<StoredLayout | null> {
  const r = (await db.selectFrom(LAYOUTS_TABLE).selectAll().where('id', '=', id).executeTakeFirst()) as LayoutRecord | undefined;
  return r ? stored(r) : null;
}

export async function saveLayout(db: Db, id: string, layout: CustomLayout, who: string): Promise<void> {
  const row = { name: layout.name, definition: JSON.stringify(layout), updated_by: who, updated_at: new Date().toISOString() };
  await db.transaction().execute(async (trx) => {
    const r = await trx.updateTable(LAYOUTS_TABLE).set(row).where('id', '=', id).executeTakeFirst();
    if (!Number(r.numUpdatedRows)) await trx.insertInto(LAYOUTS_TABLE).values({ id, ...row }).execute();
  });
}

export async function deleteLayout(db: Db, id: string): Promise<boolean> {
  const r = await db.deleteFrom(LAYOUTS_TABLE).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
