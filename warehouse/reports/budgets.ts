// Budgets in the organization's own database: table budgets (one row per named budget, its
// version and who saved it last) and budget_lines (its lines as entered: entity, null for the
// group; period; account, with whether it is a group account's code; amount as exact decimal text). A budget saved again under its name is
// a new version: its lines are replaced in one transaction, so a reader sees the old lines or the
// new ones, never a mix, and a failed save leaves the old ones. Written once for SQLite and
// Azure SQL (../dialect.ts holds the differences).
import { sql, type Kysely } from 'kysely';
import { AMOUNT_SCALE, formatTrim, parseDecimal } from '../../common/consolidation/decimal';
import type { BudgetLine } from '../../common/reports/budget';
import { insertChunked, type OrgDialect } from '../connection';
import { DIALECTS } from '../dialect';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

export const BUDGETS_TABLE = 'budgets';
export const BUDGET_LINES_TABLE = 'budget_lines';
export const BUDGET_OBJECTS: readonly string[] = [BUDGETS_TABLE, BUDGET_LINES_TABLE];

/** A table's columns (name, declared type, nullable). */
function columns(dialect: OrgDialect, table: string): [string, string, boolean][] | undefined {
  const t = DIALECTS[dialect].types;
  const [key, text] = [t.text(200), t.text(400)];
  if (table === BUDGETS_TABLE) return [['id', key, false], ['name', text, false], ['version', t.int, false], ['line_count', t.int, false], ['updated_by', text, true], ['updated_at', key, true]];
  // direct: 1 when the account is a group account's code (the group's lines, and lines given a group_account), 0 a source account to map.
  if (table === BUDGET_LINES_TABLE) return [['budget_id', key, false], ['entity', key, true], ['period', key, false], ['account', key, false], ['direct', t.int, false], ['amount', key, false]];
  return undefined;
}

/** The budget tables' columns (name, declared type): what a read before the migration stands in with. */
export function budgetColumns(dialect: OrgDialect, table: string): [string, string][] | undefined {
  return columns(dialect, table)?.map(([c, type]) => [c, type]);
}

/** The guarded statements that create the budget tables and the lines' index (idempotent, safe to race). */
export function budgetsSchemaDdl(db: Db, dialect: OrgDialect): string[] {
  const d = DIALECTS[dialect];
  const out: string[] = [];
  for (const name of BUDGET_OBJECTS) {
    let t = db.schema.createTable(name);
    for (const [col, type, nullable] of columns(dialect, name)!) t = t.addColumn(col, sql.raw(type), (c) => (nullable ? c : c.notNull()));
    if (name === BUDGETS_TABLE) t = t.addPrimaryKeyConstraint(`${name}_pk`, ['id'] as never);
    out.push(d.createTableIfMissing(t, name));
  }
  out.push(d.createIndexIfMissing(db.schema.createIndex(`${BUDGET_LINES_TABLE}_ix0`).on(BUDGET_LINES_TABLE).columns(['budget_id', 'period']), `${BUDGET_LINES_TABLE}_ix0`, BUDGET_LINES_TABLE));
  return out;
}

/** Creates the budget tables when missing; answers those it found missing. */
export async function ensureBudgetsSchema(db: Db, dialect: OrgDialect): Promise<string[]> {
  const have = new Set((await db.introspection.getTables()).map((t) => t.name));
  const missing = BUDGET_OBJECTS.filter((n) => !have.has(n));
  if (!missing.length) return [];
  await DIALECTS[dialect].ensure(async () => {
    for (const ddl of budgetsSchemaDdl(db, dialect)) await sql.raw(ddl).execute(db);
  });
  return missing;
}

export interface StoredBudget {
  id: string;
  name: string;
  version: number;
  lineCount: number;
  updatedBy: string | null;
  updatedAt: string | null;
}

type BudgetRecord = { id: string; name: string; version: number; line_count: number; updated_by: string | null; updated_at: string | null };
const stored = (r: BudgetRecord): StoredBudget => ({ id: r.id, name: r.name, version: Number(r.version), lineCount: Number(r.line_count), updatedBy: r.updated_by, updatedAt: r.updated_at });

export async function listBudgets(db: Db): Promise<StoredBudget[]> {
  return ((await db.selectFrom(BUDGETS_TABLE).selectAll().orderBy('name').execute()) as BudgetRecord[]).map(stored);
}

export async function readBudget(db: Db, id: string): Promise<StoredBudget | null> {
  const r = (await db.selectFrom(BUDGETS_TABLE).selectAll().where('id', '=', id).executeTakeFirst()) as BudgetRecord | undefined;
  return r ? stored(r) : null;
}

/** A budget's lines, of some months or all. */
export async function readBudgetLines(db: Db, id: string, months?: string[]): Promise<BudgetLine[]> {
  if (months && !months.length) return [];
  const rows = (await db
    .selectFrom(BUDGET_LINES_TABLE)
    .select(['entity', 'period', 'account', 'direct', 'amount'])
    .where('budget_id', '=', id)
    .$if(!!months, (q) => q.where('period', 'in', months!))
    .orderBy('period')
    .orderBy('entity')
    .orderBy('account')
    .execute()) as { entity: string | null; period: string; account: string; direct: number; amount: string }[];
  return rows.map((r) => ({ entity: r.entity ?? null, period: r.period, account: r.account, direct: Number(r.direct) === 1, amount: parseDecimal(String(r.amount), AMOUNT_SCALE) ?? 0n }));
}

/**
 * Saves a budget's lines under its name: a new budget, or a new version of the one of that name
 * (its id kept, its lines replaced), in one transaction. Answers its id and version.
 */
export async function saveBudget(db: Db, dialect: OrgDialect, newId: string, name: string, lines: BudgetLine[], who: string): Promise<{ id: string; version: number; replaced: boolean }> {
  return DIALECTS[dialect].transaction(db, async (trx) => {
    const found = (await trx.selectFrom(BUDGETS_TABLE).select(['id', 'version']).where('name', '=', name).executeTakeFirst()) as { id: string; version: number } | undefined;
    const id = found?.id ?? newId;
    const version = found ? Number(found.version) + 1 : 1;
    const row = { name, version, line_count: lines.length, updated_by: who, updated_at: new Date().toISOString() };
    if (found) {
      await trx.updateTable(BUDGETS_TABLE).set(row).where('id', '=', id).execute();
      await trx.deleteFrom(BUDGET_LINES_TABLE).where('budget_id', '=', id).execute();
    } else await trx.insertInto(BUDGETS_TABLE).values({ id, ...row }).execute();
    await insertChunked(trx, dialect, BUDGET_LINES_TABLE, lines.map((l) => ({ budget_id: id, entity: l.entity, period: l.period, account: l.account, direct: l.direct ? 1 : 0, amount: formatTrim(l.amount, AMOUNT_SCALE) })));
    return { id, version, replaced: !!found };
  });
}

/** Deletes a budget and its lines in one transaction; false when there was none. */
export async function deleteBudget(db: Db, dialect: OrgDialect, id: string): Promise<boolean> {
  return DIALECTS[dialect].transaction(db, async (trx) => {
    const r = await trx.deleteFrom(BUDGETS_TABLE).where('id', '=', id).executeTakeFirst();
    await trx.deleteFrom(BUDGET_LINES_TABLE).where('budget_id', '=', id).execute();
    return Number(r.numDeletedRows) > 0;
  });
}
