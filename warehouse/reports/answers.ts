// The reports of one organization (the api answers them; the worker renders them in report packs): the built-in statements and custom layouts over the
// consolidation's outputs (common/reports), their drill-down to entities and source accounts,
// and their XLSX / CSV exports. Figures are exact: SQL sums integer cents, the rest is BigInt.
import { stringify } from 'csv-stringify/sync';
import type ExcelJS from 'exceljs';

/** ExcelJS, loaded when a workbook is first made: the worker and the api do not hold it (with its dependencies, about 10 MB) until one is asked for. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load (a relative or CommonJS dynamic import is not typed as the default import)
const excel = (): typeof ExcelJS => require('exceljs') as typeof ExcelJS;
import type { Writable } from 'node:stream';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { formatFixed, AMOUNT_SCALE } from '../../common/consolidation/decimal';
import { CENTS_SQL, readChart, readEntities, readSettings } from '../consolidation/store';
import type { GroupAccount } from '../../common/consolidation/types';
import type { OrgDialect } from '../connection';
import { DIALECTS } from '../dialect';
import { buildCustom, checkLayout, type CustomLayout } from '../../common/reports/custom';
import { asAtLabel, clipRange, comparisonRange, monthEnd, monthLabel, monthOf, resolveRange, type Comparison, type RangeKind, type ReportRange } from '../../common/reports/periods';
import { buildStatement, centsText, displaySign, isFlowStatement, NOT_MEANINGFUL, STATEMENT_TITLES, STATEMENTS, type FlowStatementKind, type Statement, type StatementKind, type ValueColumn } from '../../common/reports/statements';
import { ALL_COLUMNS, cashFlow, changesInEquity, comprehensiveIncome, EQUITY_COLUMNS, flowDrill, monthsWithOpening, type EquityBlock, type FlowColumn, type FlowInput } from '../../common/reports/flows';
import { flowInputOf, readFlowConfig, storedFlowFigures } from './flow-sums';
import { flowParts, mismatchesBeyondTolerance, monthStates, rangeSums, readFreshness, type MonthState, type RangeSums } from './store';
import { ApiError } from '../../common/api-error';
import { budgetColumn } from './budget-figures';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

export const COLUMN_CHOICES = ['entities', 'eliminations', 'nci', 'adjustments', 'consolidated'] as const;
export type ColumnChoice = (typeof COLUMN_CHOICES)[number];

export interface ReportQuery {
  period: string;
  range: RangeKind;
  columns: ColumnChoice[];
  compare?: Comparison;
  showZero?: boolean;
  /** A budget's id: the consolidated figures beside the budget's, with variance and variance %. */
  budget?: string;
}

const isPl = (a: GroupAccount) => a.type === 'income' || a.type === 'expense';

/**
 * Per group account, the range's net (debit positive): balance-sheet accounts at the last month,
 * income and expenses over the range, retained earnings less the earlier months' profit (shown
 * as profit for the period instead), so the column balances as each month does.
 */
function nets(chart: GroupAccount[], sums: Map<string, [bigint, bigint]> | undefined): Map<string, bigint> {
  const out = new Map<string, bigint>();
  if (!sums) return out;
  let earlierPl = 0n;
  for (const a of chart) {
    const [last, earlier] = sums.get(a.code) ?? [0n, 0n];
    if (isPl(a)) earlierPl += earlier;
    out.set(a.code, isPl(a) ? last + earlier : last);
  }
  const re = chart.find((a) => a.role === 'retained_earnings');
  if (re) out.set(re.code, (out.get(re.code) ?? 0n) - earlierPl);
  return out;
}

export interface ReportContext {
  chart: GroupAccount[];
  currency: string;
  range: ReportRange;
  compareRange?: ReportRange;
  columns: ValueColumn[];
  variance?: { current: number; base: number };
  months: MonthState[];
  notices: string[];
  freshness: ReportFreshness;
  /** The budget compared with (?budget=). */
  budget?: { id: string; name: string; version: number };
}

/** What the answers say of their figures' age. */
export interface ReportFreshness {
  /** When the figures were made: the last consolidation (ISO), which holds every sync and upload before it. */
  dataAsOf: string | null;
  /** A sync or upload newer than that (the figures do not include it): the Run button's reason. */
  stale: { at: string; what: string } | null;
}

/** The freshness of an organization's figures (also the open pages' version check). */
export async function freshness(db: Db): Promise<ReportFreshness> {
  const f = await readFreshness(db);
  const stale = f.newestData && (!f.consolidatedAt || f.newestData.at > f.consolidatedAt) ? f.newestData : null;
  return { dataAsOf: f.consolidatedAt, stale };
}

/** "27 November 2026 14:05 UTC". */
export function momentLabel(iso: string): string {
  const d = new Date(iso);
  return `${d.getUTCDate()} ${monthLabel(monthOf(d))} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`;
}

const MISSING_RATE = /^Missing exchange rate: ([A-Z]{3}) for (\d{4}-\d{2})/;
/** Why a month is blocked, in a few words: "no EUR rate for November 2026", else the run's first message. */
export function blockedReason(m: MonthState): string {
  const currencies = [...new Set(m.messages.map((x) => MISSING_RATE.exec(x)?.[1]).filter((c): c is string => !!c))];
  if (currencies.length) return `no ${currencies.join(' or ')} rate for ${monthLabel(m.period)}`;
  return m.messages[0] ?? 'see its checks on the Consolidation page';
}

const IC_WORDS: Record<string, string> = { receivable_payable: 'receivables and payables', revenue_expense: 'revenue and expenses', loan: 'loans', investment_equity: 'investment and equity' };

/**
 * The entities in the group's order: a parent before its subsidiaries, each level by name; an
 * entity whose parent is not among them starts a tree of its own.
 */
export function groupOrder<T extends { entity: string; name: string; parent: string | null }>(entities: T[]): T[] {
  const keys = new Set(entities.map((e) => e.entity));
  const byName = (a: T, b: T) => a.name.localeCompare(b.name);
  const children = new Map<string, T[]>();
  for (const e of entities) if (e.parent && keys.has(e.parent) && e.parent !== e.entity) children.set(e.parent, [...(children.get(e.parent) ?? []), e]);
  const out: T[] = [];
  const seen = new Set<string>();
  const visit = (e: T) => {
    if (seen.has(e.entity)) return;
    seen.add(e.entity);
    out.push(e);
    for (const c of (children.get(e.entity) ?? []).sort(byName)) visit(c);
  };
  for (const e of entities.filter((x) => !x.parent || !keys.has(x.parent) || x.parent === x.entity).sort(byName)) visit(e);
  for (const e of [...entities].sort(byName)) visit(e); // a cycle: what is left, by name
  return out;
}

/**
 * What every report needs: the chart, the ranges, the value columns, the state of their months
 * and the notices. A quarter or year still in progress holds its months up to the last one
 * consolidated (and its label says so); a comparison holds the same months a period or a year
 * earlier. Notices never name a month still to come; a blocked month says why; an intercompany
 * mismatch beyond tolerance in the range is named; figures older than the newest sync or upload
 * say so.
 */
export async function reportContext(db: Db, dialect: OrgDialect, q: ReportQuery, now: Date = new Date(), { nets: withNets = true }: { nets?: boolean } = {}): Promise<ReportContext> {
  const [settings, chart, fresh] = await Promise.all([readSettings(db), readChart(db), freshness(db)]);
  const fy = settings.fiscalYearStartMonth;
  const today = monthOf(now);
  const nominal = resolveRange(q.range, q.period, fy);
  const nominalStates = await monthStates(db, nominal.months);
  const lastOk = nominalStates.filter((m) => m.status === 'ok').at(-1)?.period ?? null;
  const range = clipRange(nominal, lastOk, fy);
  const columns: ValueColumn[] = [];
  let compareRange: ReportRange | undefined;
  let variance: ReportContext['variance'];
  const consolidatedOf = (r: ReportRange) => rangeSums(db, dialect, r.from, r.to, false);
  let budget: ReportContext['budget'];
  const budgetNotices: string[] = [];
  if (q.compare && q.budget) throw new ApiError(400, 'Choose a comparison or a budget, not both');
  if (q.budget) {
    // Actual beside budget over the same months (the range as cut at its last consolidated month).
    const [cur, b] = await Promise.all([consolidatedOf(range), budgetColumn(db, q.budget, range)]);
    columns.push({ key: 'actual', label: 'Actual', nets: nets(chart, cur.consolidated) }, b.column);
    variance = { current: 0, base: 1 };
    budget = { id: b.budget.id, name: b.budget.name, version: b.budget.version };
    if (b.notice) budgetNotices.push(b.notice);
  } else if (q.compare) {
    compareRange = comparisonRange(range, q.compare, fy);
    const [cur, base] = await Promise.all([consolidatedOf(range), consolidatedOf(compareRange)]);
    columns.push({ key: 'current', label: range.label, nets: nets(chart, cur.consolidated) }, { key: 'comparison', label: compareRange.label, nets: nets(chart, base.consolidated) });
    variance = { current: 0, base: 1 };
  } else {
    const want = new Set(q.columns.length ? q.columns : COLUMN_CHOICES);
    // (The flow statements take the columns' keys and labels only: no entity's figures read for them.)
    const sums: RangeSums = await rangeSums(db, dialect, range.from, range.to, want.has('entities') && withNets);
    if (want.has('entities')) {
      for (const e of groupOrder((await readEntities(db)).filter((e) => e.included))) columns.push({ key: `entity:${e.entity}`, label: e.name, nets: nets(chart, sums.entities.get(e.entity)) });
    }
    if (want.has('eliminations')) columns.push({ key: 'eliminations', label: 'Eliminations', nets: nets(chart, sums.eliminations) });
    if (want.has('nci')) columns.push({ key: 'nci', label: 'Non-controlling interests', nets: nets(chart, sums.nci) });
    // Left out for a range without any posted journal's figure, as a statement leaves out rows zero in every column.
    if (want.has('adjustments') && [...sums.adjustments.values()].some(([last, earlier]) => last !== 0n || earlier !== 0n)) columns.push({ key: 'adjustments', label: 'Adjustments', nets: nets(chart, sums.adjustments) });
    if (want.has('consolidated')) columns.push({ key: 'consolidated', label: 'Consolidated', nets: nets(chart, sums.consolidated) });
  }
  const compareStates = compareRange ? await monthStates(db, compareRange.months) : [];
  const inRange = new Set(range.months);
  const months = [...compareStates, ...nominalStates.filter((m) => inRange.has(m.period))];
  // The range's months after its last consolidated one (cut off above) still count for the notices, up to this month.
  const named = [...compareStates, ...nominalStates].filter((m) => m.period <= today);
  const notices: string[] = [];
  const missing = named.filter((m) => m.status === 'missing');
  const blocked = named.filter((m) => m.status === 'blocked');
  const open = months.filter((m) => m.status === 'ok' && !m.locked);
  if (!lastOk) notices.push(nominal.months.every((m) => m > today) ? `${nominal.label} has not begun: nothing is consolidated for it yet.` : `Nothing is consolidated in ${nominal.label} yet.`);
  if (missing.length) notices.push(`Not consolidated yet: ${missing.map((m) => monthLabel(m.period)).join(', ')}. Run the consolidation to see ${missing.length === 1 ? 'this month' : 'these months'}.`);
  for (const m of blocked) notices.push(m.period === today ? `${monthLabel(m.period)} is in progress and blocked: ${blockedReason(m)} yet.` : `${monthLabel(m.period)} is blocked: ${blockedReason(m)}.`);
  if (open.length) notices.push(`Not locked, so the figures may change: ${open.map((m) => monthLabel(m.period)).join(', ')}.`);
  if (fresh.stale) notices.push(`Not consolidated since the ${fresh.stale.what} of ${momentLabel(fresh.stale.at)}: these figures do not include it yet.`);
  const mismatches = await mismatchesBeyondTolerance(db, dialect, months.filter((m) => m.status === 'ok').map((m) => m.period));
  if (mismatches.length) {
    const names = new Map((await readEntities(db)).map((e) => [e.entity, e.name]));
    const name = (k: string) => names.get(k) ?? k;
    for (const x of mismatches) {
      const size = x.difference < 0n ? -x.difference : x.difference;
      notices.push(`Intercompany mismatch beyond tolerance in ${monthLabel(x.period)}: ${name(x.entityA)} and ${name(x.entityB)} (${IC_WORDS[x.category] ?? x.category}) differ by ${centsText(size)} ${settings.presentationCurrency}.`);
    }
  }
  notices.push(...budgetNotices);
  return { chart, currency: settings.presentationCurrency, range, compareRange, columns, variance, months, notices, freshness: fresh, ...(budget ? { budget } : {}) };
}

export type ReportAnswer = Statement & {
  title: string;
  currency: string;
  range: ReportRange;
  compareRange?: ReportRange;
  /** A balance sheet's date: the last day of its range's last month (YYYY-MM-DD). */
  asAt?: string;
  months: MonthState[];
  notices: string[];
  /** The budget beside the actual figures (?budget=). */
  budget?: { id: string; name: string; version: number };
} & ReportFreshness;

const answer = (title: string, ctx: ReportContext, s: Statement, asAt?: string): ReportAnswer => ({
  title,
  currency: ctx.currency,
  range: ctx.range,
  ...(ctx.compareRange ? { compareRange: ctx.compareRange } : {}),
  ...(asAt ? { asAt } : {}),
  months: ctx.months,
  notices: ctx.notices,
  ...(ctx.budget ? { budget: ctx.budget } : {}),
  ...ctx.freshness,
  ...s,
});

export async function statement(db: Db, dialect: OrgDialect, kind: StatementKind, q: ReportQuery): Promise<ReportAnswer> {
  if (q.budget && kind !== 'profit-and-loss') throw new ApiError(400, `A budget is compared with the profit and loss and custom reports, not the ${STATEMENT_TITLES[kind].toLowerCase()}`);
  const ctx = await reportContext(db, dialect, q, new Date(), { nets: !isFlowStatement(kind) });
  if (isFlowStatement(kind)) return flowStatement(db, dialect, kind, q, ctx);
  if (kind === 'balance-sheet' && ctx.compareRange) {
    // A balance sheet compares dates: "As at 31 March 2026" beside "As at 28 February 2026".
    ctx.columns[0]!.label = asAtLabel(ctx.range.to);
    ctx.columns[1]!.label = asAtLabel(ctx.compareRange.to);
  }
  return answer(STATEMENT_TITLES[kind], ctx, buildStatement(kind, ctx.chart, ctx.columns, { variance: ctx.variance, showZero: q.showZero }), kind === 'balance-sheet' ? monthEnd(ctx.range.to) : undefined);
}

/** What a flow statement and its drill-down are computed from: the outputs of the months, the value columns and changes in equity's blocks. */
interface FlowSetup {
  input: FlowInput;
  columns: FlowColumn[];
  blocks: EquityBlock[];
  notices: string[];
}

/** The value columns that add up every report column. */
const GROUP_COLUMNS = new Set(['consolidated', 'current', 'comparison']);

/**
 * The inputs of comprehensive income, changes in equity or the cash flow (common/reports/flows.ts)
 * over the report's columns: each value column adds up the outputs of its report column (an
 * entity, the eliminations, NCI, adjustments; consolidated and a comparison's columns all of
 * them) over its range's months and the month before (the opening). Changes in equity has one
 * block of rows per report column asked for (consolidated first), or with a comparison one per
 * range (the comparison's second).
 */
async function flowSetup(db: Db, dialect: OrgDialect, ctx: ReportContext, kind: FlowStatementKind, { drill = false }: { drill?: boolean } = {}): Promise<FlowSetup> {
  const current = monthsWithOpening(ctx.range.months);
  const compared = ctx.compareRange ? monthsWithOpening(ctx.compareRange.months) : [];
  const all = [...new Set([...compared, ...current])].sort();
  const cfg = await readFlowConfig(db, ctx.chart);
  // The figures the consolidation stored (./flow-sums.ts) when they answer; else the outputs' parts of the months, walked here.
  // A drill-down splits a figure by its parts: it walks them.
  const states = (await monthStates(db, all)).map((m) => ({ period: m.period, ok: m.status === 'ok', parts: [] }));
  const stored = drill ? null : await storedFlowFigures(db, cfg, states, [current, compared].filter((l) => l.length), kind === 'cash-flow');
  const months = stored ? states : await flowParts(db, dialect, all);
  const byPeriod = new Map(months.map((m) => [m.period, m]));
  const monthsOf = (list: string[]) => list.map((p) => byPeriod.get(p)!);
  const input: FlowInput = { ...flowInputOf(cfg, months), ...(stored ? { stored } : {}) };
  const notices = [...ctx.notices];
  const opening = byPeriod.get(current[0]!);
  if (opening && !opening.ok) notices.push(`The opening balances are those at the end of ${monthLabel(opening.period)}, which is not consolidated: this statement starts from nothing.`);
  const columns: FlowColumn[] = ctx.columns.map((c) => {
    const list = monthsOf(c.key === 'comparison' ? compared : current);
    return { key: c.key, label: c.label, include: GROUP_COLUMNS.has(c.key) ? ALL_COLUMNS : (col: string) => col === c.key, months: list };
  });
  let blocks: EquityBlock[];
  if (ctx.compareRange) blocks = [{ label: ctx.range.label, months: monthsOf(current), include: ALL_COLUMNS }, { label: ctx.compareRange.label, months: monthsOf(compared), include: ALL_COLUMNS }];
  else {
    // The group's statement first, then each column asked for (an entity's, the eliminations', ...).
    const ordered = [...columns.filter((c) => c.key === 'consolidated'), ...columns.filter((c) => c.key !== 'consolidated')];
    blocks = ordered.map((c) => ({ label: ordered.length === 1 && c.key === 'consolidated' ? ctx.range.label : `${c.label}: ${ctx.range.label}`, months: c.months, include: c.include }));
  }
  return { input, columns, blocks, notices };
}

function flowOf(kind: FlowStatementKind, setup: FlowSetup, ctx: ReportContext, q: ReportQuery): Statement {
  if (kind === 'changes-in-equity') return changesInEquity(setup.input, setup.blocks);
  return kind === 'cash-flow' ? cashFlow(setup.input, setup.columns, { variance: ctx.variance, showZero: q.showZero }) : comprehensiveIncome(setup.input, setup.columns, { variance: ctx.variance });
}

async function flowStatement(db: Db, dialect: OrgDialect, kind: FlowStatementKind, q: ReportQuery, ctx: ReportContext): Promise<ReportAnswer> {
  const setup = await flowSetup(db, dialect, ctx, kind);
  const s = flowOf(kind, setup, ctx, q);
  const notices = setup.notices;
  if (s.balanced?.some((b) => !b)) notices.push(kind === 'changes-in-equity' ? 'The closing equity does not agree with the balance sheet: see the check rows.' : kind === 'cash-flow' ? "The cash flow does not reconcile to the balance sheet's cash: see the check rows." : "The owners' other comprehensive income does not agree with the translation reserve's movement: see the check rows.");
  return answer(STATEMENT_TITLES[kind], { ...ctx, notices }, s);
}

export type FlowDrilldownQuery = ReportQuery & { line: string; column: string };

/**
 * What makes one figure of comprehensive income, changes in equity or the cash flow: the line
 * (its row's `drill` key) in one value column of the statement as the same query shows it, split
 * by report column (each entity, in the group's order, the eliminations, NCI, adjustments) and
 * group account, in the line's own signs, with the rounding the translated flows leave; the
 * total is the figure shown. Changes in equity: `column` is the component (capital, retained,
 * translation, owners, nci, total) of the line's block.
 */
export async function flowDrilldown(db: Db, dialect: OrgDialect, kind: FlowStatementKind, q: FlowDrilldownQuery) {
  if (q.budget) throw new ApiError(400, `A budget is compared with the profit and loss and custom reports, not the ${STATEMENT_TITLES[kind].toLowerCase()}`);
  const ctx = await reportContext(db, dialect, q);
  const setup = await flowSetup(db, dialect, ctx, kind, { drill: true });
  const s = flowOf(kind, setup, ctx, q);
  const row = s.rows.find((r) => r.drill === q.line);
  const title = STATEMENT_TITLES[kind];
  if (!row) throw new ApiError(404, `The ${title.toLowerCase()} has no line ${q.line} for this range`);
  let column: FlowColumn | undefined;
  let columnLabel: string | undefined;
  if (kind === 'changes-in-equity') {
    const block = setup.blocks[Number(q.line.split(':')[1])];
    const component = EQUITY_COLUMNS.find((c) => c.key === q.column);
    if (block && component) {
      column = { key: 'block', label: block.label, include: block.include ?? (() => true), months: block.months };
      columnLabel = `${component.label}, ${block.label}`;
    }
  } else {
    column = setup.columns.find((c) => c.key === q.column);
    columnLabel = column?.label;
  }
  if (!column) throw new ApiError(404, `The ${title.toLowerCase()} has no column ${q.column}${kind === 'changes-in-equity' ? ` (its columns: ${EQUITY_COLUMNS.map((c) => c.key).join(', ')})` : ''}`);
  const d = flowDrill(setup.input, kind, s, column, q.line, q.column);
  if (!d) throw new ApiError(404, `The ${title.toLowerCase()} shows no figure for ${row.label} in ${columnLabel}`);
  const entities = await readEntities(db);
  const order = new Map(groupOrder(entities).map((e, i) => [`entity:${e.entity}`, i]));
  const rank = (c: string) => order.get(c) ?? (c === 'eliminations' ? 1e6 : c === 'nci' ? 1e6 + 1 : 1e6 + 2);
  const names = new Map(entities.map((e) => [e.entity, e.name]));
  const accounts = new Map(ctx.chart.map((a) => [a.code, a.name]));
  const COLUMN_WORDS: Record<string, string> = { eliminations: 'Eliminations', nci: 'Non-controlling interests', adjustments: 'Adjustments (consolidation journals)' };
  const parts = [...d.parts].sort((a, b) => rank(a.column) - rank(b.column));
  return {
    statement: kind,
    title,
    line: q.line,
    label: row.label,
    column: q.column,
    columnLabel: columnLabel!,
    currency: ctx.currency,
    range: kind === 'changes-in-equity' || column.key !== 'comparison' || !ctx.compareRange ? ctx.range : ctx.compareRange,
    months: column.months.slice(1).map((m) => m.period),
    parts: parts.map((p) => {
      const entity = p.column.startsWith('entity:') ? p.column.slice('entity:'.length) : null;
      return { column: p.column, columnLabel: entity ? (names.get(entity) ?? entity) : (COLUMN_WORDS[p.column] ?? p.column), entity, account: p.account, accountName: accounts.get(p.account) ?? p.account, amount: centsText(p.cents) };
    }),
    rounding: d.rounding === 0n ? null : centsText(d.rounding),
    total: centsText(d.total),
    note: d.note,
  };
}

export async function customReport(db: Db, dialect: OrgDialect, layout: CustomLayout, q: ReportQuery): Promise<ReportAnswer> {
  const ctx = await reportContext(db, dialect, q);
  const problems = checkLayout(layout, ctx.chart);
  if (problems.length) throw new ApiError(400, `The report "${layout.name}" cannot be shown: ${problems.slice(0, 5).join('; ')}`);
  return answer(layout.name, ctx, buildCustom(layout, ctx.chart, ctx.columns, { variance: ctx.variance }));
}

/** A layout's problems as a 400, before anything is saved. */
export async function checkLayoutOrRefuse(db: Db, layout: CustomLayout): Promise<void> {
  const problems = checkLayout(layout, await readChart(db));
  if (problems.length) throw new ApiError(400, `The report cannot be saved: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? ` (and ${problems.length - 10} more)` : ''}`);
}

// --- drill-down -----------------------------------------------------------------------------
export interface DrilldownQuery {
  period: string;
  range: RangeKind;
  groupAccount: string;
  entity?: string;
  /** display: the statements' signs (income, liabilities and equity positive); net: debit positive, as the trial balance. */
  signs?: 'display' | 'net';
}

/**
 * What makes one figure: without `entity`, the entities' parts and the eliminations and NCI
 * entries; with it, that entity's source accounts (local and presentation amounts) and its
 * translation entries. Balance-sheet accounts at the range's last month, income and expenses
 * over the range, as the statements.
 */
export async function drilldown(db: Db, dialect: OrgDialect, q: DrilldownQuery) {
  const [settings, chart, entityRows] = await Promise.all([readSettings(db), readChart(db), readEntities(db)]);
  const account = chart.find((a) => a.code === q.groupAccount);
  if (!account) throw new ApiError(404, `Group account ${q.groupAccount} is not in the group chart`);
  // The range the report showed: cut at its last consolidated month, as the statements cut it.
  const nominal = resolveRange(q.range, q.period, settings.fiscalYearStartMonth);
  const range = clipRange(nominal, (await monthStates(db, nominal.months)).filter((m) => m.status === 'ok').at(-1)?.period ?? null, settings.fiscalYearStartMonth);
  const months = isPl(account) ? range.months : [range.to];
  const names = new Map(entityRows.map((e) => [e.entity, e.name]));
  const sign = q.signs === 'net' ? 1n : displaySign(account.type);
  const shown = (c: bigint) => centsText(c * sign);
  const cents = CENTS_SQL[dialect];
  const base = { groupAccount: account.code, groupAccountName: account.name, accountType: account.type, currency: settings.presentationCurrency, range, months, signs: q.signs === 'net' ? ('net' as const) : ('display' as const) };
  const isRe = account.role === 'retained_earnings' && range.months.length > 1;
  const earlier = range.months.slice(0, -1);
  /** Profit of the range's earlier months, per entity (retained earnings shows it as profit for the period instead). */
  const earlierProfit = async (entity?: string) => {
    if (!isRe) return new Map<string, bigint>();
    const pl = chart.filter(isPl).map((a) => a.code);
    const rows = (await db
      .selectFrom('consolidated_trial_balance_entities')
      .select(['entity', sql`sum(amount_cents)`.as('c')])
      .where('period', 'in', earlier)
      .where('group_account', 'in', pl)
      .$if(!!entity, (b) => b.where('entity', '=', entity!))
      .groupBy('entity')
      .execute()) as { entity: string; c: unknown }[];
    return new Map(rows.map((r) => [r.entity, BigInt(String(r.c ?? 0))]));
  };

  if (!q.entity) {
    const parts = (await db
      .selectFrom('consolidated_trial_balance_entities')
      .select(['entity', sql`sum(amount_cents)`.as('c')])
      .where('period', 'in', months)
      .where('group_account', '=', account.code)
      .groupBy('entity')
      .execute()) as { entity: string; c: unknown }[];
    const adjust = await earlierProfit();
    const byEntity = new Map(parts.map((p) => [p.entity, BigInt(String(p.c ?? 0))]));
    for (const [e, c] of adjust) byEntity.set(e, (byEntity.get(e) ?? 0n) - c);
    const entries = (await db
      .selectFrom('consolidation_entries')
      .select(['kind', 'entity', 'counterparty', 'category', sql`sum(${sql.raw(cents('amount'))})`.as('c'), sql`min(memo)`.as('memo')])
      .where('period', 'in', months)
      .where('group_account', '=', account.code)
      .where('kind', 'not in', ['translation', 'rounding'])
      .groupBy(['kind', 'entity', 'counterparty', 'category'])
      .orderBy('kind')
      .execute()) as { kind: string; entity: string | null; counterparty: string | null; category: string | null; c: unknown; memo: string | null }[];
    const order = new Map(groupOrder(entityRows).map((e, i) => [e.entity, i]));
    const total = [...byEntity.values()].reduce((t, c) => t + c, 0n) + entries.reduce((t, x) => t + BigInt(String(x.c ?? 0)), 0n);
    return {
      ...base,
      level: 'entities' as const,
      entities: [...byEntity]
        .filter(([, c]) => c !== 0n)
        .sort(([a], [b]) => (order.get(a) ?? 1e9) - (order.get(b) ?? 1e9) || a.localeCompare(b))
        .map(([entity, c]) => ({ entity, entityName: names.get(entity) ?? entity, amount: shown(c) })),
      total: shown(total),
      entries: entries.map((x) => ({
        kind: x.kind,
        entity: x.entity,
        entityName: x.entity ? (names.get(x.entity) ?? x.entity) : null,
        counterparty: x.counterparty,
        counterpartyName: x.counterparty ? (names.get(x.counterparty) ?? x.counterparty) : null,
        category: x.category,
        amount: shown(BigInt(String(x.c ?? 0))),
        memo: x.memo,
      })),
      note: isRe ? `Retained earnings at ${monthLabel(range.to)}, less the profit of ${earlier.map(monthLabel).join(', ')} (shown as profit for the period)` : null,
    };
  }

  const entity = q.entity;
  if (!names.has(entity)) throw new ApiError(404, `Entity ${entity} is not part of the consolidation`);
  const local = (c: string) => DIALECTS[dialect].scaledInteger(c, 10000);
  const lines = (await db
    .selectFrom('consolidation_translated_lines')
    .select([
      'source_account',
      sql`max(source_account_name)`.as('name'),
      'currency',
      sql`sum(${sql.raw(local('local_amount'))})`.as('local'),
      sql`sum(${sql.raw(cents('presentation_amount'))})`.as('c'),
      sql`min(rate_kind)`.as('rate_kind'),
      sql`count(distinct rate)`.as('rates'),
      sql`min(rate)`.as('rate'),
    ])
    .where('period', 'in', months)
    .where('group_account', '=', account.code)
    .where('entity', '=', entity)
    .groupBy(['source_account', 'currency'])
    .orderBy('source_account')
    .execute()) as { source_account: string; name: string | null; currency: string; local: unknown; c: unknown; rate_kind: string; rates: unknown; rate: string | null }[];
  const entries = (await db
    .selectFrom('consolidation_entries')
    .select(['kind', sql`sum(${sql.raw(cents('amount'))})`.as('c')])
    .where('period', 'in', months)
    .where('group_account', '=', account.code)
    .where('entity', '=', entity)
    .where('kind', 'in', ['translation', 'rounding'])
    .groupBy('kind')
    .execute()) as { kind: string; c: unknown }[];
  const adjust = (await earlierProfit(entity)).get(entity) ?? 0n;
  // A QuickBooks account's code is its internal Id: people know it by its name.
  const internalIds = entityRows.find((e) => e.entity === entity)?.source === 'quickbooks';
  const total = lines.reduce((t, l) => t + BigInt(String(l.c ?? 0)), 0n) + entries.reduce((t, x) => t + BigInt(String(x.c ?? 0)), 0n) - adjust;
  return {
    ...base,
    level: 'sources' as const,
    entity,
    entityName: names.get(entity)!,
    sources: lines.map((l) => ({
      sourceAccount: l.source_account,
      sourceAccountName: l.name,
      label: internalIds ? (l.name ?? l.source_account) : l.name ? `${l.source_account} ${l.name}` : l.source_account,
      currency: l.currency,
      localAmount: formatFixed(BigInt(String(l.local ?? 0)) * sign, AMOUNT_SCALE),
      amount: shown(BigInt(String(l.c ?? 0))),
      rateKind: l.rate_kind,
      rate: Number(l.rates) === 1 ? l.rate : null,
    })),
    entries: entries.map((x) => ({ kind: x.kind, amount: shown(BigInt(String(x.c ?? 0))) })),
    total: shown(total),
    ...(isRe ? { earlierProfit: shown(-adjust), note: `Less the profit of ${earlier.map(monthLabel).join(', ')}, shown as profit for the period` } : { note: null }),
  };
}

// --- exports --------------------------------------------------------------------------------
const AMOUNT_FORMAT = '#,##0.00;-#,##0.00;"-"';
const PERCENT_FORMAT = '0.0"%";-0.0"%";"-"';

/** What a report's sheet holds, row by row (the export's and the pack's, buffered or streamed alike). */
function sheetRows(r: ReportAnswer) {
  const intro: { values: (string | null)[]; font?: Partial<ExcelJS.Font> }[] = [
    { values: [r.title], font: { bold: true, size: 14 } },
    { values: [`${r.range.label}${r.compareRange ? ` compared with ${r.compareRange.label}` : ''}, in ${r.currency}`] },
    ...r.notices.map((n) => ({ values: [n], font: { italic: true } })),
  ];
  const header = ['Line', ...r.columns.map((c) => c.label)];
  return { intro, header, headerRow: intro.length + 1 };
}
/** Fills one figure row of a report's sheet. */
function figureRow(xr: ExcelJS.Row, r: ReportAnswer, row: ReportAnswer['rows'][number]): void {
  r.columns.forEach((c, i) => (xr.getCell(i + 2).numFmt = (row.format ?? c.format) === 'percent' ? PERCENT_FORMAT : AMOUNT_FORMAT));
  if (row.kind === 'section' || row.kind === 'total') xr.font = { bold: true };
  if (row.kind === 'subtotal') xr.font = { italic: true };
  if (row.notes?.length) xr.getCell(1).note = row.notes.join('\n');
}
const figureValues = (row: ReportAnswer['rows'][number]) => [`${'  '.repeat(row.depth)}${row.label}`, ...row.values.map((v) => (v === null ? null : v === NOT_MEANINGFUL ? v : Number(v)))];

function sheet(wb: ExcelJS.Workbook, r: ReportAnswer, name: string): void {
  const ws = wb.addWorksheet(name.slice(0, 31));
  const { intro, header: labels } = sheetRows(r);
  for (const x of intro) {
    const row = ws.addRow(x.values);
    if (x.font) row.font = x.font;
  }
  const header = ws.addRow(labels);
  header.font = { bold: true };
  header.alignment = { horizontal: 'center' };
  ws.views = [{ state: 'frozen', xSplit: 1, ySplit: header.number }];
  ws.getColumn(1).width = 48;
  r.columns.forEach((_, i) => (ws.getColumn(i + 2).width = 18));
  for (const row of r.rows) figureRow(ws.addRow(figureValues(row)), r, row);
}

/** Sheet names are unique (without case), at most 31 characters, without * ? : \\ / [ ]: a repeated title gets " (2)". */
export function sheetNamer(): (title: string) => string {
  const used = new Set<string>();
  return (t: string) => {
    const title = t.replace(/[*?:\\/[\]]/g, ' ');
    let name = title.slice(0, 31);
    for (let n = 2; used.has(name.toLowerCase()); n += 1) name = `${title.slice(0, 31 - ` (${n})`.length)} (${n})`;
    used.add(name.toLowerCase());
    return name;
  };
}

/** An XLSX workbook: one sheet per report given (real numbers, number formats, frozen header). */
export async function xlsx(reports: ReportAnswer[]): Promise<Buffer> {
  const wb = new (excel().Workbook)();
  wb.creator = 'LedgerFlow';
  const nameOf = sheetNamer();
  for (const r of reports) sheet(wb, r, nameOf(r.title));
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/**
 * The same workbook written as it goes (exceljs' streaming writer): reports asked for one at a
 * time, each sheet's rows committed as they are added, so memory holds one report, not the book.
 */
export async function xlsxStream(count: number, report: (i: number) => Promise<ReportAnswer>, out: Writable): Promise<void> {
  if (out.destroyed) throw new Error('The output closed before the workbook was written');
  // The output ended before the workbook (a reader gone, an error): the writing stops there rather than wait for it.
  const closed = new Promise<never>((_, reject) => {
    out.once('error', reject);
    out.once('close', () => (out.writableFinished ? undefined : reject(new Error('The output closed before the workbook was written'))));
  });
  closed.catch(() => undefined);
  const wb = new (excel().stream.xlsx.WorkbookWriter)({ stream: out, useStyles: true, useSharedStrings: false });
  wb.creator = 'LedgerFlow';
  const nameOf = sheetNamer();
  for (let i = 0; i < count; i++) {
    const r = await Promise.race([report(i), closed]);
    const { intro, header: labels, headerRow } = sheetRows(r);
    const ws = wb.addWorksheet(nameOf(r.title).slice(0, 31), { views: [{ state: 'frozen', xSplit: 1, ySplit: headerRow }] });
    ws.columns = [{ width: 48 }, ...r.columns.map(() => ({ width: 18 }))];
    for (const x of intro) {
      const row = ws.addRow(x.values);
      if (x.font) row.font = x.font;
      row.commit();
    }
    const header = ws.addRow(labels);
    header.font = { bold: true };
    header.alignment = { horizontal: 'center' };
    header.commit();
    for (const row of r.rows) {
      const xr = ws.addRow(figureValues(row));
      figureRow(xr, r, row);
      xr.commit();
    }
    ws.commit();
  }
  await Promise.race([wb.commit(), closed]);
}

/** One report as CSV: a line column, then one column per report column (exact decimal text). */
export function csv(r: ReportAnswer): string {
  return stringify([['line', 'account', ...r.columns.map((c) => c.label)], ...r.rows.map((row) => [`${'  '.repeat(row.depth)}${row.label}`, row.account ?? '', ...row.values.map((v) => v ?? '')])]);
}

/** Every built-in statement for the same query (the XLSX export's sheets), the chosen one first. */
export async function allStatements(db: Db, dialect: OrgDialect, first: StatementKind, q: ReportQuery): Promise<ReportAnswer[]> {
  const order = [first, ...STATEMENTS.filter((s) => s !== first)];
  const out: ReportAnswer[] = [];
  // A budget is beside the profit and loss only: the other sheets without it.
  for (const k of order) out.push(await statement(db, dialect, k, k === 'profit-and-loss' ? q : { ...q, budget: undefined }));
  return out;
}

export const fileName = (title: string, r: ReportRange, ext: string) => `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${r.from === r.to ? r.from : `${r.from}-to-${r.to}`}.${ext}`;
