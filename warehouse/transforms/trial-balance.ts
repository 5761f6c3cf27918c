// The trial_balance transform, written once (docs/data-model.md section 3). From a snapshot of the
// organization database's schema it plans one insert per source (each registered connector's,
// declared beside its tables in common/connectors/<key>-tables.ts, and each saved CSV whose header fits) with Kysely, and compiles the whole rebuild for either warehouse:
// SQLite (the local provider: ../sqlite.ts runs it on a thread) or T-SQL (Azure SQL: the
// azure provider runs it with mssql, and Azure Data Factory's rebuild pipeline runs the script
// compiled for the connector tables). The two dialects differ only in the handful of
// expressions of `Dialect` below; what is selected, joined and grouped is one definition.
//
// Money is exact: every amount is summed in integer units of 1/10,000 (SQLite: 64-bit integers;
// T-SQL: bigint), never as a floating-point sum. SQLite then stores the exact sum divided by
// 10,000 as a REAL: for |amount| < 2^53 / 10,000 (about 900 billion) that double is the nearest
// one to the exact 4-decimal figure, so reading it back and rounding to 4 places gives the exact
// figure (the consolidation reads it that way). T-SQL stores decimal(19,4), exact as it is.
import {
  DummyDriver,
  Kysely,
  MssqlAdapter,
  MssqlIntrospector,
  MssqlQueryCompiler,
  sql,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import { CONNECTOR_LIST } from '../../common/connectors';
import { SYNC_PROVIDERS } from '../../common/contract/connections';
import { sourceShape, type TrialBalanceSource as ConnectorTrialBalanceSource, type TrialBalanceShape, type TrialBalanceSql } from '../../common/connectors/trial-balance-source';

export type DialectName = 'sqlite' | 'mssql';

/** What the plan reads of the database: each table and its (lower-cased) column names. */
export type SchemaSnapshot = { name: string; columns: string[] }[];

/** One source of trial_balance: a label for sources and warnings, the table, and its insert. */
export interface TrialBalanceSource {
  label: string;
  table: string;
  sql: string;
}

export interface TrialBalancePlan {
  /** Drops a leftover and creates the empty next table. */
  create: string[];
  sources: TrialBalanceSource[];
  /** Swaps the next table in for trial_balance. */
  swap: string[];
}

/** The columns of trial_balance, in order (docs/data-model.md section 3). */
export const TRIAL_BALANCE_COLUMNS = ['entity', 'source', 'period', 'account_code', 'account_name', 'account_type', 'debit', 'credit', 'net', 'currency', 'counterparty'] as const;
const NEXT = 'trial_balance__next';

/** Tables that are never a CSV source: the connectors', the reports', internal ones. */
// The organization's own tables (the budgets' lines have an entity, a period, an account and an amount too): never a CSV trial balance.
const CONNECTOR_OR_REPORT = new RegExp(`^(${[...SYNC_PROVIDERS.map((k) => `${k}_`), 'trial_balance', 'consolidat', 'group_', 'fx_', 'intercompany_', 'budgets$', 'budget_lines$', 'report_layouts$'].join('|')})`);

type Expr = RawBuilder<unknown>;

/** The expressions that differ between SQLite and T-SQL; everything else is shared. */
interface Dialect {
  name: DialectName;
  db: Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tables are only known at run time
  /** A value as text. */
  text(e: Expr): Expr;
  /** A key as text, trimmed, null when empty (a CSV's blank cell). */
  key(e: Expr): Expr;
  /** The month (YYYY-MM) of a period or date value. */
  month(e: Expr): Expr;
  /** An amount in integer units of 1/10,000 (0 when empty or not a number). */
  units(e: Expr): Expr;
  /** A sum of units back to the stored amount. */
  amount(units: Expr): Expr;
  /** Values joined as text (the parts are already text). */
  concat(...parts: Expr[]): Expr;
  /** The create statement of the next table. */
  createNext: string[];
  swap: string[];
}

const compileOnly = (adapter: () => SqliteAdapter | MssqlAdapter, compiler: () => SqliteQueryCompiler | MssqlQueryCompiler, introspector: (db: Kysely<unknown>) => SqliteIntrospector | MssqlIntrospector) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  new Kysely<any>({ dialect: { createAdapter: adapter, createDriver: () => new DummyDriver(), createIntrospector: introspector, createQueryCompiler: compiler } });

const SQLITE: Dialect = {
  name: 'sqlite',
  db: compileOnly(
    () => new SqliteAdapter(),
    () => new SqliteQueryCompiler(),
    (db) => new SqliteIntrospector(db),
  ),
  text: (e) => sql`cast(${e} as text)`,
  key: (e) => sql`nullif(trim(cast(${e} as text)), '')`,
  month: (e) => sql`substr(cast(${e} as text), 1, 7)`,
  units: (e) => sql`cast(round(coalesce(cast(${e} as real), 0) * 10000) as integer)`,
  amount: (u) => sql`(${u}) / 10000.0`,
  concat: (...parts) => sql`(${sql.join(parts, sql` || `)})`,
  createNext: [
    `drop table if exists "${NEXT}"`,
    `create table "${NEXT}" (entity text not null, source text not null, period text not null, account_code text not null, account_name text, account_type text, debit real not null default 0, credit real not null default 0, net real not null default 0, currency text, counterparty text)`,
  ],
  // Indexed by month after the inserts: reports and the consolidation read one month at a time.
  swap: ['drop table if exists "trial_balance"', `create index "trial_balance_period" on "${NEXT}" (period, entity)`, `alter table "${NEXT}" rename to "trial_balance"`],
};

const MSSQL: Dialect = {
  name: 'mssql',
  db: compileOnly(
    () => new MssqlAdapter(),
    () => new MssqlQueryCompiler(),
    (db) => new MssqlIntrospector(db),
  ),
  text: (e) => sql`cast(${e} as nvarchar(400))`,
  key: (e) => sql`nullif(ltrim(rtrim(cast(${e} as nvarchar(200)))), '')`,
  month: (e) => sql`left(convert(nvarchar(30), ${e}, 23), 7)`,
  units: (e) => sql`cast(round(coalesce(try_cast(${e} as decimal(38, 10)), 0) * 10000, 0) as bigint)`,
  amount: (u) => sql`cast((${u}) as decimal(38, 4)) / 10000`,
  concat: (...parts) => sql`concat(${sql.join(parts)})`,
  createNext: [
    `IF OBJECT_ID(N'dbo.${NEXT}', N'U') IS NOT NULL DROP TABLE [dbo].[${NEXT}]`,
    `CREATE TABLE [dbo].[${NEXT}] (entity nvarchar(200) NOT NULL, source nvarchar(200) NOT NULL, period char(7) NOT NULL, account_code nvarchar(100) NOT NULL, account_name nvarchar(400) NULL, account_type nvarchar(20) NULL, debit decimal(19,4) NOT NULL DEFAULT 0, credit decimal(19,4) NOT NULL DEFAULT 0, net decimal(19,4) NOT NULL DEFAULT 0, currency nvarchar(10) NULL, counterparty nvarchar(200) NULL)`,
  ],
  swap: [`IF OBJECT_ID(N'dbo.trial_balance', N'U') IS NOT NULL DROP TABLE [dbo].[trial_balance]`, `CREATE INDEX [trial_balance_period] ON [dbo].[${NEXT}] (period, entity)`, `EXEC sp_rename N'dbo.${NEXT}', N'trial_balance'`],
};

export const DIALECTS: Record<DialectName, Dialect> = { sqlite: SQLITE, mssql: MSSQL };

const ref = (name: string) => sql.ref(name);
const lower = (e: Expr) => sql`lower(${e})`;

/** Free-text account types (QuickBooks classification, a CSV's type column) onto asset/liability/equity/income/expense. */
function accountType(e: Expr): Expr {
  const l = lower(e);
  return sql`case
    when ${l} like 'asset%' or ${l} in ('bank', 'accounts receivable', 'other current asset', 'fixed asset', 'other asset') then 'asset'
    when ${l} like 'liabilit%' or ${l} in ('accounts payable', 'credit card', 'other current liability', 'long term liability') then 'liability'
    when ${l} like 'equity%' then 'equity'
    when ${l} like 'income%' or ${l} like 'revenue%' or ${l} = 'other income' then 'income'
    when ${l} like 'expense%' or ${l} like 'cost%' or ${l} = 'other expense' then 'expense'
    else null end`;
}

/**
 * A source's parts as one trial_balance row (the connector's declared shape, TrialBalanceShape,
 * with its table and join; a CSV's counterparty column is grouped by too, so an account's
 * intercompany part stays apart from the rest).
 */
interface SourceShape extends Omit<TrialBalanceShape, 'on'> {
  from: string;
  /** Optional table joined for account types/currency, with its join condition. */
  join?: { table: string; on: Expr };
  label: string;
  /** Rows without these are not ledger lines. */
  required: Expr[];
  /** Grouping: the entity, period and account expressions (by position in the select). */
}

/** The insert of one source: grouped per entity x period x account, sums in exact units. */
function insertOf(d: Dialect, s: SourceShape): string {
  const debitUnits = sql`sum(${d.units(s.debit)})`;
  const creditUnits = sql`sum(${d.units(s.credit)})`;
  const nul = sql`null`;
  let q = d.db.selectFrom(sql`${sql.table(s.from)}`.as('t'));
  if (s.join) q = q.leftJoin(sql`${sql.table(s.join.table)}`.as('a'), (j) => j.on(s.join!.on as RawBuilder<SqlBool>));
  const select = q
    .select([
      d.text(s.entity).as('entity'),
      sql.lit(s.label).as('source'),
      s.period.as('period'),
      d.text(s.account).as('account_code'),
      (s.name ? sql`max(${d.text(s.name)})` : nul).as('account_name'),
      (s.type ? sql`max(${s.type})` : nul).as('account_type'),
      d.amount(debitUnits).as('debit'),
      d.amount(creditUnits).as('credit'),
      d.amount(sql`${debitUnits} - ${creditUnits}`).as('net'),
      (s.currency ? sql`max(${d.text(s.currency)})` : nul).as('currency'),
      (s.counterparty ? d.key(s.counterparty) : nul).as('counterparty'),
    ])
    .$if(s.required.length > 0, (qb) => qb.where((eb) => eb.and(s.required.map((r) => eb(r, 'is not', null)))))
    .groupBy([d.text(s.entity), s.period, d.text(s.account), ...(s.counterparty ? [d.key(s.counterparty)] : [])]);
  const insert = d.db.insertInto(NEXT).columns([...TRIAL_BALANCE_COLUMNS]).expression(select);
  return insert.compile().sql;
}

const pick = (cols: Set<string>, names: string[]) => names.find((n) => cols.has(n));

/** A saved CSV's shape, or null when its header does not fit (entity, period or date, account, debit+credit or amount). */
function csvShape(d: Dialect, table: string, cols: Set<string>): SourceShape | null {
  const entity = pick(cols, ['entity', 'company', 'entity_id', 'company_id', 'entity_name', 'company_name']);
  const periodCol = pick(cols, ['period', 'month']) ?? pick(cols, ['date', 'posting_date', 'transaction_date', 'entry_date', 'gl_date']);
  const account = pick(cols, ['account_code', 'account', 'account_no', 'account_number', 'account_id']);
  const name = pick(cols, ['account_name', 'account_title', 'title', 'name', 'description']);
  const type = pick(cols, ['account_type', 'type', 'classification']);
  const currency = pick(cols, ['currency', 'currency_code']);
  const counterparty = pick(cols, ['counterparty', 'counterparty_entity', 'intercompany_entity']);
  const hasDebitCredit = cols.has('debit') && cols.has('credit');
  const amount = pick(cols, ['amount', 'balance', 'net']);
  if (!entity || !periodCol || !account || !(hasDebitCredit || amount)) return null;
  const c = (n: string) => ref(`t.${n}`);
  const period = d.month(c(periodCol));
  // A signed amount: positive is a debit, negative a credit.
  const signed = amount ? c(amount) : null;
  return {
    from: table,
    entity: c(entity),
    label: `csv:${table}`,
    period,
    account: c(account),
    name: name ? c(name) : null,
    type: type ? accountType(d.text(c(type))) : null,
    debit: hasDebitCredit ? c('debit') : sql`case when ${signed} > 0 then ${signed} else 0 end`,
    credit: hasDebitCredit ? c('credit') : sql`case when ${signed} < 0 then -${signed} else 0 end`,
    currency: currency ? c(currency) : null,
    counterparty: counterparty ? c(counterparty) : null,
    required: [c(entity), c(account), period],
  };
}

/** The insert that brings one saved CSV table into trial_balance, or null when its header does not fit. */
export function csvTrialBalanceSql(table: string, cols: Set<string>, dialect: DialectName = 'sqlite'): string | null {
  const d = DIALECTS[dialect];
  const shape = csvShape(d, table, cols);
  return shape ? insertOf(d, shape) : null;
}

/** Every registered connector's trial_balance source (common/connectors/<key>-tables.ts), in the registry's order, with its month table's declared columns. */
const CONNECTOR_SOURCES = CONNECTOR_LIST.flatMap((c) => {
  const source = c.trialBalance;
  if (!source) return [];
  const table = Object.values(c.tables).find((t) => t.name === source.table);
  return [{ key: c.key, source, table, columns: new Set(Object.keys(table?.columns ?? {})) }];
});

/** A connector's source: its declared shape, written with this dialect's expressions. */
function connectorShape(d: Dialect, key: string, source: ConnectorTrialBalanceSource, accounts: boolean, columns: Set<string>): SourceShape {
  const q: TrialBalanceSql = { sql, ref, text: d.text, key: d.key, concat: d.concat, accountType };
  const { on, ...shape } = sourceShape(source, q, { accounts, column: (name) => columns.has(name) });
  return { from: source.table, join: on && source.accounts ? { table: source.accounts, on } : undefined, label: key, ...shape, required: [] };
}

/** The rebuild for a schema: every source found in it, in the order sources are reported. */
export function planTrialBalance(schema: SchemaSnapshot, dialect: DialectName): TrialBalancePlan {
  const d = DIALECTS[dialect];
  const tables = new Map(schema.map((t) => [t.name, new Set(t.columns.map((c) => c.toLowerCase()))]));
  const sources: TrialBalanceSource[] = [];
  for (const { key, source } of CONNECTOR_SOURCES) {
    const cols = tables.get(source.table);
    if (!cols) continue;
    const accounts = !!source.accounts && tables.has(source.accounts);
    sources.push({ label: key, table: source.table, sql: insertOf(d, connectorShape(d, key, source, accounts, cols)) });
  }
  for (const [t, cols] of tables) {
    if (t.startsWith('_') || t.startsWith('sqlite_') || CONNECTOR_OR_REPORT.test(t) || t.includes('__')) continue;
    const shape = csvShape(d, t, cols);
    if (shape) sources.push({ label: shape.label, table: t, sql: insertOf(d, shape) });
  }
  return { create: d.createNext, sources, swap: d.swap };
}

/**
 * The T-SQL script Azure Data Factory's rebuild pipeline runs (templates/datafactory): the
 * connector sources, each only when its tables exist (checked by the script when it runs, as the
 * tables appear with the first sync), and the organization's saved CSV tables whose header fits
 * (`csvTables`: names and columns from their upload records, so the worker compiles the script
 * for each run without reaching the database; each guarded the same way), compiled from the same
 * definition; one transaction. The pipeline takes it as its `script` parameter; the template's
 * default value is the script without CSV tables.
 */
export function trialBalanceScriptForDataFactory(csvTables: SchemaSnapshot = []): string {
  const d = MSSQL;
  const exists = (t: string) => `OBJECT_ID(N'dbo.${t.replace(/'/g, "''")}', N'U') IS NOT NULL`;
  const exec = (q: string) => `EXEC(N'${q.replace(/'/g, "''")}')`;
  const csv: string[] = [];
  for (const t of csvTables) {
    const name = t.name.toLowerCase();
    if (name.startsWith('_') || CONNECTOR_OR_REPORT.test(name) || name.includes('__')) continue;
    const shape = csvShape(d, t.name, new Set(t.columns.map((c) => c.toLowerCase())));
    if (shape) csv.push(`IF ${exists(t.name)} ${exec(insertOf(d, shape))};`);
  }
  const lines = [
    'SET XACT_ABORT ON;',
    'BEGIN TRANSACTION;',
    ...d.createNext.map((s) => `${s};`),
    // The connector tables as they are declared (common/connectors/<key>-tables.ts): the script is compiled before they exist.
    ...CONNECTOR_SOURCES.flatMap(({ key, source, columns, table }) => {
      // A table written before a column was declared gains it (NULL: as the connector writer adds it).
      const added = (source.addedColumns ?? []).map((c) => `IF ${exists(source.table)} AND COL_LENGTH(N'dbo.${source.table}', N'${c}') IS NULL ALTER TABLE dbo.[${source.table}] ADD [${c}] ${table?.columns[c] === 'decimal' ? 'DECIMAL(19,4)' : c.endsWith('_id') ? 'NVARCHAR(100)' : 'NVARCHAR(1000)'} NULL;`);
      const without = `${exists(source.table)} ${exec(insertOf(d, connectorShape(d, key, source, false, columns)))};`;
      if (!source.accounts) return [...added, `IF ${without}`];
      return [...added, `IF ${exists(source.table)} AND ${exists(source.accounts)} ${exec(insertOf(d, connectorShape(d, key, source, true, columns)))}`, `ELSE IF ${without}`];
    }),
    ...csv,
    ...d.swap.map((s) => `${s};`),
    'COMMIT;',
  ];
  return lines.join('\n');
}
