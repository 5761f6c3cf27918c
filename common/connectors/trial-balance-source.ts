// How a connector's tables become rows of trial_balance (docs/data-model.md section 3): each
// connector declares its source beside its tables (common/connectors/<key>-tables.ts), and the
// transform (warehouse/transforms/trial-balance.ts) compiles every registered connector's source
// for both SQL dialects, grouped per entity x period x account with exact sums. The declaration
// names columns and writes its few expressions with the builder it is handed, so it stays free of
// the dialects (which are the warehouse's).
import type { RawBuilder, sql } from 'kysely';
import type { AmountBasis } from '../contract/consolidation';

export type Expr = RawBuilder<unknown>;

/** What a source's expressions are written with: Kysely's `sql` tag and the expressions that differ between SQLite and T-SQL. */
export interface TrialBalanceSql {
  sql: typeof sql;
  /** A column: `t.<column>` of the month table, `a.<column>` of the joined chart of accounts. */
  ref(name: string): Expr;
  /** A value as text. */
  text(e: Expr): Expr;
  /** A key value as text (an id column: trimmed, as trial_balance's keys are written). */
  key(e: Expr): Expr;
  /** Values joined as text (the parts are already text). */
  concat(...parts: Expr[]): Expr;
  /** Free-text account types (asset..., bank, accounts payable, income...) onto asset/liability/equity/income/expense. */
  accountType(e: Expr): Expr;
}

/** One trial_balance row's parts, read from the month table `t` (and the chart of accounts `a` when joined). */
export interface TrialBalanceShape {
  /** The join condition of the chart of accounts (given when it exists). */
  on?: Expr;
  entity: Expr;
  period: Expr;
  account: Expr;
  name: Expr | null;
  type: Expr | null;
  debit: Expr;
  credit: Expr;
  currency: Expr | null;
  /** The intercompany counterparty entity, where the source says it (null or left out: none). */
  counterparty?: Expr | null;
}

export interface TrialBalanceSource {
  /** The connector's table of month rows (its `<key>_...` name). */
  table: string;
  /** Its chart of accounts, joined for names, types and currency when the table exists. */
  accounts?: string;
  /** Columns of `table` declared after tables were written: the Data Factory script adds them to an old table (the connector writer does at its next write). */
  addedColumns?: string[];
  /** Where its rows sit by default (editable per entity): the month's movements, or year to date. */
  defaultBasis: AmountBasis;
  /** The row's parts that are plain columns of the month table `t`, by part (entity: 'realm_id' reads t.realm_id). */
  columns?: Partial<Record<ColumnPart, string>>;
  /** The row's other parts (those `columns` does not name; a part both name is the shape's); `accounts` says whether the chart of accounts exists, `column` whether the month table has a column. */
  shape(q: TrialBalanceSql, has: { accounts: boolean; column(name: string): boolean }): Partial<TrialBalanceShape>;
}

/** The parts a month table's column can be as it is. */
export type ColumnPart = 'entity' | 'period' | 'account' | 'name' | 'debit' | 'credit' | 'currency';
const PARTS = ['entity', 'period', 'account', 'name', 'type', 'debit', 'credit', 'currency'] as const;

/** A source's whole row: its plain columns read from `t`, then its shape; a part neither gives is an error (the source is incomplete). */
export function sourceShape(source: TrialBalanceSource, q: TrialBalanceSql, has: { accounts: boolean; column(name: string): boolean }): TrialBalanceShape {
  const plain = Object.fromEntries(Object.entries(source.columns ?? {}).map(([part, column]) => [part, q.ref(`t.${column}`)]));
  const row = { ...plain, ...source.shape(q, has) } as TrialBalanceShape;
  const missing = PARTS.filter((p) => row[p] === undefined);
  if (missing.length) throw new Error(`trial_balance source ${source.table} gives no ${missing.join(', ')}`);
  return row;
}
