// The built-in statements (trial balance, profit and loss, balance sheet), laid out from the
// group chart's types and statement lines, over value columns that each hold, per group
// account, the net (debit positive) of a range in exact cents: balance-sheet accounts at the
// range's last month, income and expenses summed over the range, and retained earnings less
// the profit of the range's earlier months (that profit is in "Profit for the period"), so each
// column balances. Pure: the api reads the nets (warehouse/reports/answers.ts).
import { divHalfEven, formatFixed } from '../consolidation/decimal';
import type { AccountType, GroupAccount } from '../consolidation/types';

/** The statements laid out from the group chart's accounts (buildStatement). */
export const ACCOUNT_STATEMENTS = ['trial-balance', 'profit-and-loss', 'balance-sheet'] as const;
export type AccountStatementKind = (typeof ACCOUNT_STATEMENTS)[number];
/** The statements beyond the balance sheet, from the months' movements (./flows.ts). */
export const FLOW_STATEMENTS = ['comprehensive-income', 'changes-in-equity', 'cash-flow'] as const;
export type FlowStatementKind = (typeof FLOW_STATEMENTS)[number];
/** Every built-in statement, in the order a pack or an export shows them: the one registry. */
export const STATEMENTS = [...ACCOUNT_STATEMENTS, ...FLOW_STATEMENTS] as const;
export type StatementKind = (typeof STATEMENTS)[number];
export const STATEMENT_TITLES: Record<StatementKind, string> = {
  'trial-balance': 'Trial balance',
  'profit-and-loss': 'Profit and loss',
  'balance-sheet': 'Balance sheet',
  'comprehensive-income': 'Comprehensive income',
  'changes-in-equity': 'Changes in equity',
  'cash-flow': 'Cash flow',
};
export const isFlowStatement = (k: StatementKind): k is FlowStatementKind => (FLOW_STATEMENTS as readonly string[]).includes(k);

export interface ValueColumn {
  key: string;
  label: string;
  /** Group account -> net in cents (debit positive). */
  nets: Map<string, bigint>;
}

export interface ReportColumn {
  key: string;
  label: string;
  format: 'amount' | 'percent';
}

export type RowKind = 'section' | 'group' | 'account' | 'subtotal' | 'total' | 'formula';
export interface ReportRow {
  kind: RowKind;
  label: string;
  depth: number;
  /** Group account code (account rows): what a drill-down opens. */
  account?: string;
  /** A line of comprehensive income, changes in equity or the cash flow: its key for the drill-down (common/reports/flows.ts flowDrill). */
  drill?: string;
  /** One per column: an exact decimal text (amounts to the cent, percentages to 0.1), or null (no figure, see `notes`). */
  values: (string | null)[];
  /** Why a figure is missing (a formula dividing by zero, a comparison with nothing). */
  notes?: string[];
  /** A custom report's percentage line: its figures are percentages whatever the column (its variance is in percentage points). */
  format?: 'percent';
}

export interface Statement {
  columns: ReportColumn[];
  rows: ReportRow[];
  /** Per value column: does it balance (trial balance nets to zero; assets = liabilities + equity)? */
  balanced?: boolean[];
}

/** Shown positive: assets and expenses at their net, liabilities, equity and income negated. */
export const displaySign = (t: AccountType): bigint => (t === 'asset' || t === 'expense' ? 1n : -1n);

/** Cents as exact decimal text. */
export const centsText = (c: bigint): string => formatFixed(c, 2);

/** A variance % that means nothing: its base is near zero. */
export const NOT_MEANINGFUL = 'n/m';
/** A base (cents) smaller than this in size is near zero: 1.00 of the currency. */
export const NEAR_ZERO_CENTS = 100n;
/** A variance of this many tenths of a percent or more (1,000 %) is read as a base near zero too. */
const MEANINGFUL_TENTHS = 10_000n;

/**
 * Variance % of `base`, to 0.1, half-even; "n/m" (not meaningful) when the base is near zero:
 * below 1.00 in size, or so small beside the change that the variance comes to 1,000 % or more.
 */
export function variancePct(current: bigint, base: bigint): string {
  const size = base < 0n ? -base : base;
  if (size < NEAR_ZERO_CENTS) return NOT_MEANINGFUL;
  // tenths of a percent: (current - base) * 1000 / |base|, rounded half-even
  const tenths = divHalfEven((current - base) * 1000n, size);
  if (tenths >= MEANINGFUL_TENTHS || tenths <= -MEANINGFUL_TENTHS) return NOT_MEANINGFUL;
  return formatFixed(tenths, 1);
}

type Line = { kind: RowKind; label: string; depth: number; account?: string; cents: bigint[] };

const SECTION_WORDS: Record<AccountType, string[]> = {
  asset: ['assets'],
  liability: ['liabilities'],
  equity: ['equity'],
  income: ['income', 'revenue'],
  expense: ['expenses', 'expense'],
};

interface Node {
  name: string;
  accounts: GroupAccount[];
  children: Map<string, Node>;
}

/** A statement line's steps, the first dropped when it only repeats the section ("Income > Revenue" -> ["Revenue"]). */
const steps = (a: GroupAccount): string[] => {
  const path = a.line.split('>').map((s) => s.trim()).filter(Boolean);
  return path.length && SECTION_WORDS[a.type].includes(path[0]!.toLowerCase()) ? path.slice(1) : path;
};

/**
 * The statement-line tree of some accounts (chart order kept); the path's first step is dropped
 * when it only repeats the section, and the next one when it repeats `block` (the profit and
 * loss's own headings: "Cost of sales" under "Cost of sales").
 */
function tree(accounts: GroupAccount[], block?: string): Node {
  const root: Node = { name: '', accounts: [], children: new Map() };
  for (const a of accounts) {
    let path = steps(a);
    if (block && path.length && path[0]!.toLowerCase() === block.toLowerCase()) path = path.slice(1);
    let n = root;
    for (const step of path) {
      if (!n.children.has(step)) n.children.set(step, { name: step, accounts: [], children: new Map() });
      n = n.children.get(step)!;
    }
    n.accounts.push(a);
  }
  return root;
}

/**
 * Lays out accounts as nested groups with subtotals, values signed for display; returns the
 * section's total. A group of one account is that account's row alone; rows that are zero in
 * every column are left out unless `showZero`.
 */
function layout(out: Line[], node: Node, depth: number, value: (a: GroupAccount) => bigint[], width: number, showZero: boolean): bigint[] {
  const total = Array<bigint>(width).fill(0n);
  const add = (v: bigint[]) => v.forEach((x, i) => (total[i] = total[i]! + x));
  for (const a of node.accounts) {
    const v = value(a);
    add(v);
    if (showZero || v.some((x) => x !== 0n)) out.push({ kind: 'account', label: `${a.code} ${a.name}`, depth, account: a.code, cents: v });
  }
  for (const child of node.children.values()) {
    const single = child.children.size === 0 && child.accounts.length === 1;
    if (single) {
      add(layout(out, child, depth, value, width, showZero));
      continue;
    }
    const header = out.length;
    out.push({ kind: 'group', label: child.name, depth, cents: [] });
    const before = out.length;
    const sub = layout(out, child, depth + 1, value, width, showZero);
    add(sub);
    if (out.length === before) out.splice(header, 1);
    else out.push({ kind: 'subtotal', label: `Total ${child.name.toLowerCase()}`, depth, cents: sub });
  }
  return total;
}

function section(out: Line[], title: string, accounts: GroupAccount[], value: (a: GroupAccount) => bigint[], width: number, showZero: boolean, extra: Line[] = [], block?: string): bigint[] {
  out.push({ kind: 'section', label: title, depth: 0, cents: [] });
  const total = layout(out, tree(accounts, block), 1, value, width, showZero);
  for (const e of extra) {
    out.push(e);
    e.cents.forEach((x, i) => (total[i] = total[i]! + x));
  }
  out.push({ kind: 'total', label: `Total ${title.toLowerCase()}`, depth: 0, cents: total });
  return total;
}

const minus = (a: bigint[], b: bigint[]) => a.map((x, i) => x - b[i]!);
const plus = (a: bigint[], b: bigint[]) => a.map((x, i) => x + b[i]!);

/** Where a profit-and-loss account goes, by the first step of its statement line under its section. */
type PlBlock = 'revenue' | 'costOfSales' | 'otherIncome' | 'operating' | 'finance' | 'tax';
function plBlock(a: GroupAccount): PlBlock {
  const step = (steps(a)[0] ?? '').toLowerCase();
  if (a.type === 'income') return step === 'other income' ? 'otherIncome' : step.startsWith('finance') ? 'finance' : 'revenue';
  if (step === 'cost of sales') return 'costOfSales';
  if (step.startsWith('finance')) return 'finance';
  if (step === 'income tax' || step === 'tax' || step === 'taxes') return 'tax';
  return 'operating';
}

/**
 * The profit and loss by function of expense, from the group chart's lines: revenue, cost of
 * sales, gross profit, other income, operating expenses, operating profit, finance costs, profit
 * before tax, income tax, profit for the period. Blocks the chart has no account for are left
 * out, and so are blocks whose every row is zero (unless showZero); their subtotals stay. The
 * NCI's share of profit (role nci_profit) is not an expense here: the caller splits the profit.
 */
function profitAndLoss(lines: Line[], chart: GroupAccount[], shown: (a: GroupAccount) => bigint[], width: number, showZero: boolean): bigint[] {
  const accounts = chart.filter((a) => (a.type === 'income' || a.type === 'expense') && a.role !== 'nci_profit');
  const inBlock = (b: PlBlock) => accounts.filter((a) => plBlock(a) === b);
  const zero = Array<bigint>(width).fill(0n);
  /** A block's section (income positive, expenses negative in the running profit); nothing shown when it has no row. */
  const block = (title: string, b: PlBlock): bigint[] => {
    const list = inBlock(b);
    if (!list.length) return zero;
    const out: Line[] = [];
    section(out, title, list, shown, width, showZero, [], title);
    if (out.length > 2) lines.push(...out);
    // Income adds to the profit, expenses take from it (a finance block may hold both).
    return list.reduce((s, a) => (a.type === 'income' ? plus(s, shown(a)) : minus(s, shown(a))), zero);
  };
  const has = (b: PlBlock) => inBlock(b).length > 0;
  let running = plus(block('Revenue', 'revenue'), block('Cost of sales', 'costOfSales'));
  if (has('costOfSales')) lines.push({ kind: 'total', label: 'Gross profit', depth: 0, cents: running });
  running = plus(running, block('Other income', 'otherIncome'));
  running = plus(running, block('Operating expenses', 'operating'));
  if (has('finance') || has('tax')) lines.push({ kind: 'total', label: 'Operating profit', depth: 0, cents: running });
  running = plus(running, block('Finance costs', 'finance'));
  if (has('tax')) {
    if (has('finance')) lines.push({ kind: 'total', label: 'Profit before tax', depth: 0, cents: running });
    running = plus(running, block('Income tax', 'tax'));
  }
  lines.push({ kind: 'total', label: 'Profit for the period', depth: 0, cents: running });
  return running;
}

/** One of the built-in statements over the value columns; `variance` adds variance and variance % of column `current` against `base`. */
export function buildStatement(kind: AccountStatementKind, chart: GroupAccount[], columns: ValueColumn[], opts: { variance?: { current: number; base: number }; showZero?: boolean } = {}): Statement {
  const width = columns.length;
  const showZero = opts.showZero ?? false;
  const net = (a: GroupAccount) => columns.map((c) => c.nets.get(a.code) ?? 0n);
  const shown = (a: GroupAccount) => net(a).map((x) => x * displaySign(a.type));
  const of = (t: AccountType) => chart.filter((a) => a.type === t);
  const lines: Line[] = [];
  let balanced: boolean[] | undefined;

  if (kind === 'trial-balance') {
    let all = Array<bigint>(width).fill(0n);
    for (const [t, title] of [['asset', 'Assets'], ['liability', 'Liabilities'], ['equity', 'Equity'], ['income', 'Income'], ['expense', 'Expenses']] as const) {
      all = plus(all, section(lines, title, of(t), net, width, showZero));
    }
    lines.push({ kind: 'total', label: 'Net (debits less credits)', depth: 0, cents: all });
    balanced = all.map((x) => x === 0n);
  } else if (kind === 'profit-and-loss') {
    const nciAccounts = of('expense').filter((a) => a.role === 'nci_profit');
    const profit = profitAndLoss(lines, chart, shown, width, showZero);
    const nci = nciAccounts.reduce((s, a) => plus(s, shown(a)), Array<bigint>(width).fill(0n));
    if (nciAccounts.length) {
      lines.push({ kind: 'subtotal', label: 'Attributable to owners of the parent', depth: 1, cents: minus(profit, nci) });
      lines.push({ kind: 'subtotal', label: 'Attributable to non-controlling interests', depth: 1, cents: nci });
    }
  } else {
    // Profit of the range not yet in retained earnings: every income and expense account (the NCI's share included, so this is the owners' part).
    const pl = chart.filter((a) => a.type === 'income' || a.type === 'expense').reduce((s, a) => minus(s, net(a)), Array<bigint>(width).fill(0n));
    const assets = section(lines, 'Assets', of('asset'), shown, width, showZero);
    const liabilities = section(lines, 'Liabilities', of('liability'), shown, width, showZero);
    const equity = section(lines, 'Equity', of('equity'), shown, width, showZero, [{ kind: 'account', label: 'Profit for the period', depth: 1, cents: pl }]);
    const le = plus(liabilities, equity);
    lines.push({ kind: 'total', label: 'Total liabilities and equity', depth: 0, cents: le });
    balanced = assets.map((x, i) => x === le[i]);
  }

  const cols: ReportColumn[] = columns.map((c) => ({ key: c.key, label: c.label, format: 'amount' }));
  const v = opts.variance;
  if (v) cols.push({ key: 'variance', label: 'Variance', format: 'amount' }, { key: 'variancePct', label: 'Variance %', format: 'percent' });
  const rows: ReportRow[] = lines.map((l) => {
    const values: (string | null)[] = l.kind === 'section' || l.kind === 'group' ? cols.map(() => null) : l.cents.map(centsText);
    if (v && l.cents.length) values.push(centsText(l.cents[v.current]! - l.cents[v.base]!), variancePct(l.cents[v.current]!, l.cents[v.base]!));
    return { kind: l.kind, label: l.label, depth: l.depth, ...(l.account ? { account: l.account } : {}), values };
  });
  return { columns: cols, rows, ...(balanced ? { balanced } : {}) };
}
