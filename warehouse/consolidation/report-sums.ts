// What the statements read (issue 34): the consolidation's outputs summed per month x column x
// group account in exact integer cents, with each one's running total over the months, written
// by the run that writes the outputs (./store.ts, OutputWriter) and swapped in with them. A
// statement over any range is then two reads of one month each, whatever the range's length:
//   last month     = the month's cents at `to` (0 when `to` is not stored)
//   earlier months = the running total at the newest stored month <= `to`, less `last`, less the
//                    running total at the newest stored month < `from`
// One row per month and column, its group accounts packed in `sums` (JSON of parallel arrays:
// {"a": accounts, "m": month cents, "c": running totals}, for every account whose running total
// or month is not zero; parallel arrays parse about twice as fast as a list of triples), so a month's row
// carries every running total, and a run writes a few rows a month rather than a row per account
// (as many as the translated lines: measured, that made a run a third slower). Columns: `entity:<id>` (its translated
// lines and its translation and rounding entries, as the entity-columns view sums them),
// `eliminations`, `nci`, `consolidated` (consolidated_trial_balance) and `adjustments`
// (entries of kind adjustment). The same sums the statements grouped per request before, so the
// figures are identical.
// Organizations consolidated before the table existed have none until their next run; until
// then (or after a table is found missing) the reports group the outputs as before
// (../reports/store.ts rangeSums), and the worker's start-up migration builds it from the
// outputs (rebuildReportSums).
import { sql, type Kysely } from 'kysely';
import type { OrgDatabase, OrgDialect } from '../connection';
import { DIALECTS } from '../dialect';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

export const REPORT_SUMS_TABLE = 'consolidation_report_sums';
/** The flow statements' stored figures (../reports/flow-sums.ts): dropped when the outputs are swapped, written after. */
export const FLOW_SUMS_TABLE = 'consolidation_flow_sums';
export const REPORT_SUMS_COLUMNS = ['period', 'col', 'sums'] as const;
/** The column key of an entity's figures. */
export const entityCol = (entity: string): string => `entity:${entity}`;
export const SUM_COLUMN_KEYS = ['eliminations', 'nci', 'adjustments', 'consolidated'] as const;

function declared(dialect: OrgDialect): Record<(typeof REPORT_SUMS_COLUMNS)[number], string> {
  const t = DIALECTS[dialect].types;
  return { period: t.text(200), col: t.text(200), sums: t.text() };
}

/** The declared columns (name, type): the data explorer's and the schema checks' view of the table. */
export function reportSumsColumns(dialect: OrgDialect): [string, string][] {
  return Object.entries(declared(dialect));
}

/** The table under `name` (a run's staging name or the table itself), without indexes: they come at the swap. */
export async function createReportSumsTable(db: Db, dialect: OrgDialect, name: string): Promise<void> {
  let q = db.schema.createTable(name);
  for (const [col, type] of reportSumsColumns(dialect)) q = q.addColumn(col, sql.raw(type), (c) => c.notNull());
  await q.execute();
}

/** Replaces the table with `staged` (inside the caller's transaction), indexed by month: a read takes one month's rows. */
export async function swapReportSums(trx: Db, staged: string): Promise<void> {
  await trx.schema.dropTable(REPORT_SUMS_TABLE).ifExists().execute();
  await trx.schema.createIndex(`${REPORT_SUMS_TABLE}_ix0`).on(staged).columns(['period']).execute();
  await trx.schema.alterTable(staged).renameTo(REPORT_SUMS_TABLE).execute();
}

const big = (v: unknown): bigint => (v === null || v === undefined ? 0n : BigInt(typeof v === 'number' ? Math.round(v) : String(v)));
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** A bigint as JSON keeps it exactly: a number when safe, else its decimal text. */
const json = (v: bigint): number | string => (v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString());
/** The packed sums of one month and column. */
interface Packed {
  a: string[];
  m: (number | string)[];
  c: (number | string)[];
}

/**
 * Sums one month at a time in the order of the months and writes each month's rows with their
 * running totals (memory: one cell per column and group account, about entities x accounts).
 */
export class ReportSumsBuilder {
  /**
   * Per column, per group account (in the order first added): its running total up to the last
   * month written, and the month in hand's figure. One cell for both, kept from month to month: a
   * month's sums are added in place, with no map made per month.
   */
  private readonly cells = new Map<string, Map<string, { cum: bigint; month: bigint }>>();
  constructor(
    private readonly org: Pick<OrgDatabase, 'db' | 'dialect' | 'insertRows' | 'selectRows'>,
    /** Where the rows go (a staging table). */
    private readonly table: string,
  ) {}

  /** Adds cents to a column's group account in the month in hand. */
  add(col: string, account: string, cents: bigint): void {
    if (cents === 0n) return;
    let column = this.cells.get(col);
    if (!column) this.cells.set(col, (column = new Map()));
    const cell = column.get(account);
    if (cell) cell.month += cents;
    else column.set(account, { cum: 0n, month: cents });
  }

  /** Writes the month in hand as `period` and starts the next one. */
  async flush(period: string): Promise<void> {
    const rows: unknown[][] = [];
    // (forEach: no [key, value] array made per entry, as for...of over a map makes.)
    this.cells.forEach((column, col) => {
      const packed: Packed = { a: [], m: [], c: [] };
      column.forEach((cell, account) => {
        const c = cell.month;
        if (c !== 0n) {
          cell.cum += c;
          cell.month = 0n;
        }
        const cum = cell.cum;
        if (cum === 0n && c === 0n) return;
        packed.a.push(account);
        packed.m.push(json(c));
        packed.c.push(json(cum));
      });
      if (packed.a.length) rows.push([period, col, JSON.stringify(packed)]);
    });
    await this.org.insertRows(this.table, REPORT_SUMS_COLUMNS, rows);
  }

  /** The month `period` as the live output tables hold it (a month the run keeps: locked, or outside its range), written with the running totals. */
  async carry(period: string): Promise<void> {
    for (const [col, account, cents] of await monthFromOutputs(this.org, period)) this.add(col, account, cents);
    await this.flush(period);
  }
}

/** One month's sums from the output tables (consolidated_trial_balance, consolidation_entries, consolidation_translated_lines). */
export async function monthFromOutputs(org: Pick<OrgDatabase, 'db' | 'dialect' | 'selectRows'>, period: string): Promise<[string, string, bigint][]> {
  const { db, dialect } = org;
  const cents = (c: string) => sql.raw(DIALECTS[dialect].scaledInteger(c, 100));
  const out: [string, string, bigint][] = [];
  const ctb = await org.selectRows(db.selectFrom('consolidated_trial_balance').select(['group_account', cents('eliminations').as('el'), cents('nci').as('nci'), cents('consolidated').as('con')]).where('period', '=', period).compile());
  for (const [account, el, nci, con] of ctb) {
    out.push(['eliminations', String(account), big(el)], ['nci', String(account), big(nci)], ['consolidated', String(account), big(con)]);
  }
  const entries = await org.selectRows(
    db
      .selectFrom('consolidation_entries')
      .select(['kind', 'entity', 'group_account', sql`sum(${cents('amount')})`.as('c')])
      .where('period', '=', period)
      .where('kind', 'in', ['adjustment', 'translation', 'rounding'])
      .groupBy(['kind', 'entity', 'group_account'])
      .compile(),
  );
  for (const [kind, entity, account, c] of entries) {
    if (kind === 'adjustment') out.push(['adjustments', String(account), big(c)]);
    else if (entity !== null && entity !== undefined) out.push([entityCol(String(entity)), String(account), big(c)]);
  }
  const lines = await org.selectRows(
    db.selectFrom('consolidation_translated_lines').select(['entity', 'group_account', sql`sum(${cents('presentation_amount')})`.as('c')]).where('period', '=', period).groupBy(['entity', 'group_account']).compile(),
  );
  for (const [entity, account, c] of lines) out.push([entityCol(String(entity)), String(account), big(c)]);
  return out;
}

/** True when the organization has the statements' sums (written by a consolidation since they exist, or by the migration). */
export async function hasReportSums(db: Db): Promise<boolean> {
  return (await db.introspection.getTables()).some((t) => t.name === REPORT_SUMS_TABLE);
}

/**
 * Builds the sums from the output tables as they are (an organization consolidated before the
 * sums existed): staged, then swapped in. Answers the months written (0 when there are no
 * outputs, or the sums are already there).
 */
export async function rebuildReportSums(org: Pick<OrgDatabase, 'db' | 'dialect' | 'insertRows' | 'selectRows'>): Promise<number> {
  const { db, dialect } = org;
  const tables = new Set((await db.introspection.getTables()).map((t) => t.name));
  if (tables.has(REPORT_SUMS_TABLE) || !tables.has('consolidated_trial_balance')) return 0;
  const periods = ((await db.selectFrom('consolidated_trial_balance').select('period').distinct().orderBy('period').execute()) as { period: string }[]).map((r) => r.period);
  if (!periods.length) return 0;
  const staged = `${REPORT_SUMS_TABLE}__next_migration`;
  await db.schema.dropTable(staged).ifExists().execute();
  await createReportSumsTable(db, dialect, staged);
  const builder = new ReportSumsBuilder(org, staged);
  for (const p of periods) await builder.carry(p);
  await db.transaction().execute(async (trx) => {
    // A consolidation that swapped its own sums in meanwhile wins: they are at least as new.
    if ((await trx.introspection.getTables()).some((t) => t.name === REPORT_SUMS_TABLE)) return void (await trx.schema.dropTable(staged).execute());
    await swapReportSums(trx, staged);
  });
  return periods.length;
}

/** Cents per column and group account of a range: [last month, earlier months] (what ../reports/store.ts rangeSums answers). */
export async function readRangeSums(db: Db, from: string, to: string, withEntities: boolean): Promise<Map<string, Map<string, [bigint, bigint]>>> {
  const newest = (cmp: '<=' | '<', p: string) => db.selectFrom(REPORT_SUMS_TABLE).select(sql<string>`max(period)`.as('p')).where('period', cmp, p);
  const at = (cmp: '<=' | '<', p: string) =>
    db
      .selectFrom(REPORT_SUMS_TABLE)
      .select(['period', 'col', 'sums'])
      .where('period', '=', newest(cmp, p))
      .$if(!withEntities, (q) => q.where('col', 'in', [...SUM_COLUMN_KEYS]))
      .execute() as Promise<{ period: string; col: string; sums: string }[]>;
  const [end, start] = await Promise.all([at('<=', to), at('<', from)]);
  const out = new Map<string, Map<string, [bigint, bigint]>>();
  const of = (col: string) => {
    let m = out.get(col);
    if (!m) out.set(col, (m = new Map()));
    return m;
  };
  for (const r of end) {
    const m = of(r.col);
    const isTo = r.period === to;
    const p = JSON.parse(r.sums) as Packed;
    for (let i = 0; i < p.a.length; i++) {
      const last = isTo ? BigInt(p.m[i]!) : 0n;
      m.set(p.a[i]!, [last, BigInt(p.c[i]!) - last]);
    }
  }
  for (const r of start) {
    const m = of(r.col);
    const p = JSON.parse(r.sums) as Packed;
    for (let i = 0; i < p.a.length; i++) {
      const v = m.get(p.a[i]!);
      if (v) v[1] -= BigInt(p.c[i]!);
      else m.set(p.a[i]!, [0n, -BigInt(p.c[i]!)]);
    }
  }
  return out;
}
