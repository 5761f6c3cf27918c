// The statements beyond the balance sheet (IAS 1, IAS 7): comprehensive income, changes in equity
// and the cash flow (indirect method), computed exactly from the consolidation's outputs of a
// range's months and the month before it (../shared/DOMAIN.md "Statements beyond the balance
// sheet"). Pure: the api reads the outputs (warehouse/reports/store.ts flowParts) and hands them in.
//
// What the outputs hold, per month, as "parts" (one per report column, group account, entity):
// every balance-sheet account at the month's end (a stock), income and expenses for the month,
// retained earnings with the earlier months' profit rolled in (engine.ts). So, per column:
//   profit          -(income and expenses but the NCI's share of profit, role nci_profit), summed
//   NCI's profit    the nci_profit account (a debit: the NCI's share), summed
//   OCI             -(movement of the CTA and rounding accounts), but in the NCI column, where the
//                   CTA's movement is the NCI's share of the exchange differences (attribution)
//   cash flow       each non-cash balance-sheet account's movement split into its flow at the
//                   month's average rate (a foreign entity's local movement x average; an entry
//                   naming a foreign entity, on an asset or liability, its local equivalent at the
//                   closing rate) and its translation difference, which is left out of the flows;
//                   the equity accounts the consolidation rolls (retained earnings, NCI, the NCI's
//                   profit) give "dividends and other equity movements" = what moved them besides
//                   profit and OCI; the month an entity is acquired, its whole balance sheet and
//                   the acquisition's entries are one investing line, net of the cash acquired;
//                   the effect of exchange rates on cash is the cash's own exchange difference with
//                   the cents the per-line rounding leaves, so opening + flows + effect = closing.
// Figures are exact: BigInt cents, flows carried as exact fractions and rounded once, half-even,
// per line and column.
import { divHalfEven, gcd } from '../consolidation/decimal';
import { CASH_FLOW_CATEGORIES, type CashFlowCategory, type GroupAccount } from '../consolidation/types';
import { addMonths } from './periods';
import { centsText, type ReportColumn, type ReportRow, type Statement } from './statements';

/** Where a group account's movement goes in the cash flow (indirect method). */
export { CASH_FLOW_CATEGORIES, type CashFlowCategory };
export const CASH_FLOW_CATEGORY_LABELS: Record<CashFlowCategory, string> = {
  working_capital: 'Operating: working capital',
  non_cash: 'Operating: non-cash item',
  investing: 'Investing',
  financing: 'Financing',
  cash: 'Cash and cash equivalents',
};

/**
 * The category of an account without one set: its statement line says cash, investments,
 * fixed assets, borrowings; else working capital for assets and liabilities, financing for equity.
 * Income and expenses are in the profit (their category is not used).
 */
export function defaultCashFlow(a: Pick<GroupAccount, 'type' | 'line' | 'role'>): CashFlowCategory {
  const line = a.line.toLowerCase();
  if (a.role === 'goodwill' || a.role === 'unmapped') return 'non_cash';
  if (a.type === 'equity') return 'financing';
  if (a.type === 'asset') {
    if (/\bcash\b/.test(line)) return 'cash';
    if (/non-current|fixed|intangible|investment/.test(line)) return 'investing';
    return 'working_capital';
  }
  if (a.type === 'liability') return /borrowing|loan|non-current/.test(line) ? 'financing' : 'working_capital';
  return 'non_cash';
}

/** An account's category: the one set, else the default. */
export const cashFlowOf = (a: GroupAccount): CashFlowCategory => a.cashFlow ?? defaultCashFlow(a);

/** One stored figure of a month (warehouse/reports/store.ts flowParts). */
export interface FlowPart {
  /** The report column it is in: `entity:<key>`, eliminations, nci or adjustments. */
  column: string;
  account: string;
  /** Cents of the presentation currency. */
  cents: bigint;
  /** The entity the figure belongs to (translated lines; entries that name one); null for a group entry. */
  entity: string | null;
  /** Translated lines at a rate (closing, average, historical): their local amount (1/10,000), summed; null otherwise. */
  local: bigint | null;
  /** An acquisition's entries (entry id ".../acquisition/<entity>"): the acquired entity. */
  acquisition: string | null;
  /** partKey(this), when made with the part (MonthParts): a figure's month and the next take it instead of making it. */
  key?: string;
}

/** What `figures` adds a part up under: its column, account, entity and whether it has a local amount. */
export const partKey = (p: Pick<FlowPart, 'column' | 'account' | 'entity' | 'local'>): string => `${p.column}\u0000${p.account}\u0000${p.entity ?? ''}\u0000${p.local === null ? 'x' : 'l'}`;

export interface FlowMonth {
  period: string;
  /** Consolidated (status ok); a month that is not has no parts. */
  ok: boolean;
  parts: FlowPart[];
}

/** A rate as the engine applies it: presentation = local x value, or local / value when indirect (RATE_SCALE). */
export interface FlowRate {
  value: bigint;
  indirect: boolean;
}

export interface FlowInput {
  chart: GroupAccount[];
  /** The months of the range, oldest first, and the month before it first. */
  months: FlowMonth[];
  /** An entity's closing and average rate in a month; null: the presentation currency (or none known: its movement is all flow). */
  rate: (entity: string, period: string) => { closing: FlowRate; average: FlowRate } | null;
  /** The acquired entities' acquisition months (YYYY-MM). */
  acquisitions: Map<string, string>;
  /** Entity key -> name. */
  names: Map<string, string>;
  /**
   * The figures stored when the consolidation wrote (warehouse/reports/flow-sums.ts), when they
   * answer for these columns and months (null: compute them from the parts).
   */
  stored?: {
    figures: (col: FlowColumn) => Figures | null;
    /** A month's equity components over the report columns `include` takes (all when none). */
    components: (m: FlowMonth | undefined, include?: (column: string) => boolean) => Components | null;
  };
}

/** Which parts a value column adds up, over which months (the first one is the opening). */
export interface FlowColumn {
  key: string;
  label: string;
  include: (column: string) => boolean;
  months: FlowMonth[];
}

// --- exact fractions ------------------------------------------------------------------------
export interface Frac {
  n: bigint;
  d: bigint;
}
const ZERO: Frac = { n: 0n, d: 1n };
/** a + b exactly (also what the stored flow figures add up with, warehouse/reports/flow-sums.ts). */
export function addF(a: Frac, b: Frac): Frac {
  if (a.d === b.d) return { n: a.n + b.n, d: a.d };
  // One denominator a multiple of the other (cents and a direct rate's 10^14): kept, unreduced, so
  // the next sum over it takes the line above (the value is the same; only the gcd is saved).
  if (a.d % b.d === 0n) return { n: a.n + b.n * (a.d / b.d), d: a.d };
  if (b.d % a.d === 0n) return { n: a.n * (b.d / a.d) + b.n, d: b.d };
  const g = gcd(a.d, b.d);
  const d = (a.d / g) * b.d;
  const n = a.n * (d / a.d) + b.n * (d / b.d);
  const h = gcd(n, d) || 1n;
  return { n: n / h, d: d / h };
}
const cents = (c: bigint): Frac => ({ n: c, d: 1n });
const round = (f: Frac): bigint => divHalfEven(f.n, f.d);
/** Local units (1/10,000) at a rate, in cents, exactly. */
const E10 = 10n ** 10n;
const E14 = 10n ** 14n;
function atRate(local: bigint, r: FlowRate): Frac {
  return r.indirect ? { n: local * E10, d: r.value } : { n: local * r.value, d: E14 };
}
/** Cents at the closing rate `c` brought to the average rate `a`: the same local amount at a. */
function reRate(x: bigint, a: FlowRate, c: FlowRate): Frac {
  // direct: x x a / c; indirect (local = presentation x rate): x x c / a.
  return a.indirect ? { n: x * c.value, d: a.value } : { n: x * a.value, d: c.value };
}

// --- per column figures ---------------------------------------------------------------------
/** A column's figures over its months: additive over months and over report columns (but the opening and closing cash, stocks). */
export interface Figures {
  profit: bigint;
  nciProfit: bigint;
  oci: bigint;
  nciOci: bigint;
  /** Cash flow: each non-cash account's flow (debit positive, exact), the acquisitions' lines, dividends and other equity movements. */
  flows: Map<string, Frac>;
  acquisitions: Map<string, bigint>;
  equityOther: bigint;
  openingCash: bigint;
  closingCash: bigint;
  /** The cash's own exchange difference, exact. */
  cashFx: Frac;
  /** Changes in equity: the owners' dividends (retained earnings' movement besides last month's profit) and the NCI's share of the subsidiaries' dividends and capital. */
  ownersDividends: bigint;
  nciDividends: bigint;
  /** The gain on a bargain purchase in an acquisition month: profit, but not cash (cents, positive). */
  bargain: bigint;
  /** Changes in equity: what the acquisitions of the range moved in each component (the NCI arising; cents of rounding). */
  acquired: Components;
}

type Kind = 'pl' | 'nciProfit' | 'cash' | 'translation' | 'rolled' | 'other';

/** A chart's accounts by code, made once per chart (a drill-down asks for it once per entity and account). */
const codeMaps = new WeakMap<GroupAccount[], Map<string, GroupAccount>>();
function byCodeOf(chart: GroupAccount[]): Map<string, GroupAccount> {
  let m = codeMaps.get(chart);
  if (!m) codeMaps.set(chart, (m = new Map(chart.map((a) => [a.code, a]))));
  return m;
}

/** Each account's kind, made once per chart (two: in the NCI column, and in the others). */
const kindMaps = new WeakMap<GroupAccount[], [Map<string, Kind>, Map<string, Kind>]>();
function classify(chart: GroupAccount[]) {
  let maps = kindMaps.get(chart);
  if (!maps) {
    const of = kindFromChart(chart);
    maps = [new Map(chart.map((a) => [a.code, of(a.code, '')])), new Map(chart.map((a) => [a.code, of(a.code, 'nci')]))];
    kindMaps.set(chart, maps);
  }
  const [others, nci] = maps;
  return (code: string, column: string): Kind => (column === 'nci' ? nci : others).get(code) ?? 'other';
}
function kindFromChart(chart: GroupAccount[]) {
  const byCode = byCodeOf(chart);
  return (code: string, column: string): Kind => {
    const a = byCode.get(code);
    if (!a) return 'other';
    if (a.role === 'nci_profit') return 'nciProfit';
    if (a.type === 'income' || a.type === 'expense') return 'pl';
    // In the NCI column the CTA's movement is the NCI's share of the exchange differences, moved to NCI: an attribution.
    if (a.role === 'cta') return column === 'nci' ? 'rolled' : 'translation';
    if (a.role === 'rounding') return 'translation';
    if (a.role === 'retained_earnings' || a.role === 'nci_equity') return 'rolled';
    if (cashFlowOf(a) === 'cash') return 'cash';
    return 'other';
  };
}

export function figures(input: FlowInput, col: FlowColumn): Figures {
  const kindOf = classify(input.chart);
  const byCode = byCodeOf(input.chart);
  const f: Figures = { profit: 0n, nciProfit: 0n, oci: 0n, nciOci: 0n, flows: new Map(), acquisitions: new Map(), equityOther: 0n, openingCash: 0n, closingCash: 0n, cashFx: ZERO, ownersDividends: 0n, nciDividends: 0n, bargain: 0n, acquired: { capital: 0n, retained: 0n, translation: 0n, nci: 0n } };
  // (An account's first flow is kept as it is: adding it to zero made the same fraction anew.)
  const addFlow = (account: string, x: Frac) => {
    const before = f.flows.get(account);
    f.flows.set(account, before ? addF(before, x) : x);
  };
  // (A month's parts as they are when the column takes them all: no copy.)
  const parts = (m: FlowMonth | undefined) => (m && m.ok ? (m.parts.every((p) => col.include(p.column)) ? m.parts : m.parts.filter((p) => col.include(p.column))) : []);
  const stockOf = (ps: FlowPart[], k: Kind) => ps.reduce((s, p) => (kindOf(p.account, p.column) === k && byCode.get(p.account)?.type !== 'income' && byCode.get(p.account)?.type !== 'expense' ? s + p.cents : s), 0n);

  const [first, ...range] = col.months;
  f.openingCash = stockOf(parts(first), 'cash');
  let prev = parts(first);
  let prevPeriod = first?.period ?? '';
  for (const m of range) {
    const now = parts(m);
    const t = m.period;
    // Parts an acquisition month takes whole: the acquired entity's column, and its acquisition's entries but the investment's.
    const acquiredNow = [...input.acquisitions].filter(([, m0]) => m0 === t).map(([e]) => e);
    const acquisitionOf = (p: FlowPart): string | null => {
      for (const e of acquiredNow) {
        if (p.column === `entity:${e}`) return e;
        if (p.acquisition === e && (p.entity === e || p.entity === null)) return e;
      }
      return null;
    };
    // Per (column, account, entity, local?) the stock now and before.
    type Key = string;
    const cells = new Map<Key, { p: FlowPart; now: bigint; before: bigint; localNow: bigint; localBefore: bigint; acquired: string | null }>();
    // (A cell starts from its first part's figures: no sum made from zero.)
    for (const p of prev) {
      const k = p.key ?? partKey(p);
      const c = cells.get(k);
      if (!c) cells.set(k, { p, now: 0n, before: p.cents, localNow: 0n, localBefore: p.local ?? 0n, acquired: null });
      else {
        c.before += p.cents;
        if (p.local) c.localBefore += p.local;
      }
    }
    for (const p of now) {
      const k = p.key ?? partKey(p);
      const c = cells.get(k);
      if (!c) cells.set(k, { p, now: p.cents, before: 0n, localNow: p.local ?? 0n, localBefore: 0n, acquired: acquisitionOf(p) });
      else {
        c.now += p.cents;
        if (p.local) c.localNow += p.local;
        c.acquired ??= acquisitionOf(p);
      }
    }
    let plBefore = 0n;
    for (const c of cells.values()) {
      const k = kindOf(c.p.account, c.p.column);
      // (The account looked up once for the cell.)
      const a = byCode.get(c.p.account);
      const pl = k === 'pl' || k === 'nciProfit';
      // The month before's profit is rolled into retained earnings this month (by the entity, and by the entries restating it).
      if (pl) plBefore += c.before;
      const moved = pl ? c.now : c.now - c.before;
      if (c.acquired) {
        // The acquired balance sheet and the acquisition's entries: cash acquired less what it cost (their non-cash movements, negated).
        if (k !== 'cash') f.acquisitions.set(c.acquired, (f.acquisitions.get(c.acquired) ?? 0n) - moved);
        if (a?.role === 'bargain_purchase' && c.p.column !== `entity:${c.acquired}`) {
          // The gain is the group's profit (IFRS 3.34), though no cash: a non-cash item in the cash flow.
          f.profit -= c.now;
          f.bargain -= c.now;
        } else if (a && (pl || a.type === 'equity')) {
          const part = pl || a.role === 'retained_earnings' ? 'retained' : a.role === 'cta' || a.role === 'rounding' ? 'translation' : a.role === 'nci_equity' ? 'nci' : 'capital';
          f.acquired[part] -= moved;
        }
        continue;
      }
      // The NCI column's own movements of the subsidiaries' equity: the NCI's share of their dividends and capital (changes in equity).
      if (c.p.column === 'nci') {
        if (k === 'nciProfit') f.nciDividends -= c.before;
        else if (a?.type === 'equity' && (a.role === 'retained_earnings' || !a.role)) f.nciDividends += moved;
      }
      if (a?.role === 'retained_earnings') f.ownersDividends -= moved;
      if (pl) f.ownersDividends += c.before;
      if (k === 'pl') {
        f.profit -= c.now;
        continue;
      }
      if (k === 'nciProfit') {
        f.nciProfit += c.now;
        f.equityOther -= c.now;
        continue;
      }
      if (k === 'rolled') {
        f.equityOther -= moved;
        if (c.p.column === 'nci' && a?.role === 'cta') f.nciOci += moved;
        continue;
      }
      if (k === 'translation') {
        f.oci -= moved;
        continue;
      }
      // A non-cash account or cash: its flow at the average rate, the rest is its translation difference.
      const flow = flowOf(input, c.p, c.now, c.before, c.localNow, c.localBefore, t, prevPeriod, a);
      if (k === 'cash') f.cashFx = addF(f.cashFx, addF(cents(moved), { n: -flow.n, d: flow.d }));
      else addFlow(c.p.account, flow);
    }
    // The rolled accounts moved by last month's profit as well: that is not a movement of equity.
    f.equityOther += plBefore;
    prev = now;
    prevPeriod = t;
  }
  f.closingCash = stockOf(prev, 'cash');
  return f;
}

/** The flow (debit positive) of one cell's movement from `before` to `now`, exactly. */
function flowOf(input: FlowInput, p: FlowPart, now: bigint, before: bigint, localNow: bigint, localBefore: bigint, t: string, prevPeriod: string, account: GroupAccount | undefined): Frac {
  if (!p.entity) return cents(now - before);
  const r = input.rate(p.entity, t);
  if (!r) return cents(now - before);
  if (p.local !== null) return atRate(localNow - localBefore, r.average);
  // An entry naming a foreign entity, on an asset or liability at the closing rate: its local equivalent's movement at the average.
  const closingRated = account && (account.type === 'asset' || account.type === 'liability') && (!account.rateType || account.rateType === 'closing');
  if (!closingRated) return cents(now - before);
  const rp = before !== 0n ? input.rate(p.entity, prevPeriod) : null;
  if (before !== 0n && !rp) return cents(now - before);
  const x = reRate(now, r.average, r.closing);
  return rp ? addF(x, { n: -reRate(before, r.average, rp.closing).n, d: reRate(before, r.average, rp.closing).d }) : x;
}

/** A column's figures: stored ones when they answer, else computed from the parts. */
const figuresOf = (input: FlowInput, col: FlowColumn): Figures => input.stored?.figures(col) ?? figures(input, col);
const componentsAt = (input: FlowInput, m: FlowMonth | undefined, include?: (column: string) => boolean): Components => input.stored?.components(m, include) ?? componentsOf(input.chart, m, include);

// --- the statements -------------------------------------------------------------------------
/** `drill`: the line's key for its drill-down (flowDrill), when it has one. */
type Line = { kind: ReportRow['kind']; label: string; depth: number; cents: bigint[]; drill?: string };

function toStatement(columns: FlowColumn[], lines: Line[], balanced: boolean[], variance?: { current: number; base: number }): Statement {
  const cols: ReportColumn[] = columns.map((c) => ({ key: c.key, label: c.label, format: 'amount' }));
  if (variance) cols.push({ key: 'variance', label: 'Variance', format: 'amount' });
  const rows: ReportRow[] = lines.map((l) => {
    const values: (string | null)[] = l.kind === 'section' || l.kind === 'group' ? cols.map(() => null) : l.cents.map(centsText);
    if (variance && l.cents.length) values.push(centsText(l.cents[variance.current]! - l.cents[variance.base]!));
    return { kind: l.kind, label: l.label, depth: l.depth, values, ...(l.drill ? { drill: l.drill } : {}) };
  });
  return { columns: cols, rows, balanced };
}

/** Comprehensive income's lines over one column's figures (the statement and its drill-down use the same). */
const CI_LINES = {
  profit: (f) => f.profit,
  oci: (f) => f.oci,
  tci: (f) => f.profit + f.oci,
  'profit-owners': (f) => f.profit - f.nciProfit,
  'profit-nci': (f) => f.nciProfit,
  'oci-owners': (f) => f.oci - f.nciOci,
  'oci-nci': (f) => f.nciOci,
  'tci-owners': (f) => f.profit - f.nciProfit + f.oci - f.nciOci,
  'tci-nci': (f) => f.nciProfit + f.nciOci,
} satisfies Record<string, (f: Figures) => bigint>;

/** Comprehensive income (IAS 1.81A): profit, OCI (exchange differences on translating foreign operations), each split between the owners and NCI. */
export function comprehensiveIncome(input: FlowInput, columns: FlowColumn[], opts: { variance?: { current: number; base: number } } = {}): Statement {
  const fs = columns.map((c) => figuresOf(input, c));
  const v = (g: (f: Figures) => bigint) => fs.map(g);
  const lines: Line[] = [
    { kind: 'total', label: 'Profit for the period', depth: 0, cents: v(CI_LINES.profit), drill: 'profit' },
    { kind: 'section', label: 'Other comprehensive income', depth: 0, cents: [] },
    { kind: 'group', label: 'Items that may be reclassified to profit or loss', depth: 1, cents: [] },
    { kind: 'account', label: 'Exchange differences on translating foreign operations', depth: 2, cents: v(CI_LINES.oci), drill: 'oci' },
    { kind: 'subtotal', label: 'Other comprehensive income for the period', depth: 0, cents: v(CI_LINES.oci), drill: 'oci' },
    { kind: 'total', label: 'Total comprehensive income for the period', depth: 0, cents: v(CI_LINES.tci), drill: 'tci' },
    { kind: 'section', label: 'Profit attributable to', depth: 0, cents: [] },
    { kind: 'account', label: 'Owners of the parent', depth: 1, cents: v(CI_LINES['profit-owners']), drill: 'profit-owners' },
    { kind: 'account', label: 'Non-controlling interests', depth: 1, cents: v(CI_LINES['profit-nci']), drill: 'profit-nci' },
    { kind: 'section', label: 'Other comprehensive income attributable to', depth: 0, cents: [] },
    { kind: 'account', label: 'Owners of the parent', depth: 1, cents: v(CI_LINES['oci-owners']), drill: 'oci-owners' },
    { kind: 'account', label: 'Non-controlling interests', depth: 1, cents: v(CI_LINES['oci-nci']), drill: 'oci-nci' },
    { kind: 'section', label: 'Total comprehensive income attributable to', depth: 0, cents: [] },
    { kind: 'account', label: 'Owners of the parent', depth: 1, cents: v(CI_LINES['tci-owners']), drill: 'tci-owners' },
    { kind: 'account', label: 'Non-controlling interests', depth: 1, cents: v(CI_LINES['tci-nci']), drill: 'tci-nci' },
  ];
  // The check: the owners' OCI of the group over the column's months is the movement of the translation reserve between its balance sheets.
  const group = columns.map((c) => figuresOf(input, { ...c, include: () => true }));
  // (Less what an acquisition brought to it: the cents of rounding of the acquisition itself.)
  const reserve = columns.map((c, i) => componentsAt(input, c.months.at(-1)).translation - componentsAt(input, c.months[0]).translation - group[i]!.acquired.translation);
  lines.push({ kind: 'section', label: 'Checks', depth: 0, cents: [] });
  lines.push({ kind: 'account', label: "Group's other comprehensive income attributable to owners", depth: 1, cents: group.map((f) => f.oci - f.nciOci) });
  lines.push({ kind: 'account', label: 'Movement of the translation reserve in the balance sheet, other than on acquisitions', depth: 1, cents: reserve });
  const balanced = group.map((f, i) => f.oci - f.nciOci === reserve[i]!);
  return toStatement(columns, lines, balanced, opts.variance);
}

/** The accounts whose movements are the cash flow's lines of a category (the rolled equity accounts are profit, OCI and "other movements in equity"). */
function flowAccounts(chart: GroupAccount[], cat: CashFlowCategory): GroupAccount[] {
  return chart.filter((a) => a.type !== 'income' && a.type !== 'expense' && !(a.role && ['retained_earnings', 'nci_equity', 'cta', 'rounding', 'nci_profit'].includes(a.role)) && cashFlowOf(a) === cat);
}

/** The cash flow, indirect method (IAS 7): operating, investing, financing, the effect of exchange rates on cash, and its reconciliation to the balance sheet's cash. */
export function cashFlow(input: FlowInput, columns: FlowColumn[], opts: { variance?: { current: number; base: number }; showZero?: boolean } = {}): Statement {
  const fs = columns.map((c) => figuresOf(input, c));
  const width = columns.length;
  const showZero = opts.showZero ?? false;
  const lines: Line[] = [];
  const keep = (c: bigint[]) => showZero || c.some((x) => x !== 0n);
  /** An account's cash effect (a debit movement is cash spent), rounded once per column. */
  const effect = (code: string) => fs.map((f) => -round(f.flows.get(code) ?? ZERO));
  const sum = (rows: bigint[][]) => rows.reduce((s, r) => s.map((x, i) => x + r[i]!), Array<bigint>(width).fill(0n));
  const accountsOf = (cat: CashFlowCategory) => flowAccounts(input.chart, cat);
  const section = (title: string, body: Line[], total: string, drill: string): bigint[] => {
    lines.push({ kind: 'section', label: title, depth: 0, cents: [] });
    lines.push(...body);
    const t = sum(body.filter((l) => l.kind === 'account' || l.kind === 'subtotal').map((l) => l.cents));
    lines.push({ kind: 'total', label: total, depth: 0, cents: t, drill });
    return t;
  };
  const accountLines = (cat: CashFlowCategory, depth: number): Line[] =>
    accountsOf(cat)
      .map((a) => ({ kind: 'account' as const, label: cat === 'working_capital' ? `Change in ${a.name.toLowerCase()}` : a.name, depth, cents: effect(a.code), drill: `account:${a.code}` }))
      .filter((l) => keep(l.cents));

  // Operating: profit, non-cash items, working capital.
  const operating: Line[] = [{ kind: 'account', label: 'Profit for the period', depth: 1, cents: fs.map((f) => f.profit), drill: 'profit' }];
  const nonCash = accountLines('non_cash', 2);
  if (nonCash.length) operating.push({ kind: 'group', label: 'Adjustments for non-cash items', depth: 1, cents: [] }, ...nonCash);
  const wc = accountLines('working_capital', 2);
  if (wc.length) operating.push({ kind: 'group', label: 'Working capital movements', depth: 1, cents: [] }, ...wc);
  const bargain = fs.map((f) => -f.bargain);
  if (bargain.some((x) => x !== 0n)) {
    if (!nonCash.length) operating.push({ kind: 'group', label: 'Adjustments for non-cash items', depth: 1, cents: [] });
    operating.splice(operating.findIndex((l) => l.label === 'Adjustments for non-cash items') + 1, 0, { kind: 'account', label: 'Gain on bargain purchase', depth: 2, cents: bargain, drill: 'bargain' });
  }
  const op = section('Cash flows from operating activities', operating, 'Net cash from operating activities', 'operating');

  const investing: Line[] = accountLines('investing', 1);
  const acquired = [...new Set(fs.flatMap((f) => [...f.acquisitions.keys()]))].sort();
  for (const e of acquired) {
    const c = fs.map((f) => f.acquisitions.get(e) ?? 0n);
    if (keep(c)) investing.push({ kind: 'account', label: `Acquisition of ${input.names.get(e) ?? e}, net of cash acquired`, depth: 1, cents: c, drill: `acquisition:${e}` });
  }
  const inv = section('Cash flows from investing activities', investing, 'Net cash used in investing activities', 'investing');

  const financing: Line[] = accountLines('financing', 1);
  const other = fs.map((f) => f.equityOther);
  if (keep(other)) financing.push({ kind: 'account', label: 'Dividends paid and other movements in equity', depth: 1, cents: other, drill: 'equity-other' });
  const fin = section('Cash flows from financing activities', financing, 'Net cash from financing activities', 'financing');

  const net = op.map((x, i) => x + inv[i]! + fin[i]!);
  const opening = fs.map((f) => f.openingCash);
  const closing = fs.map((f) => f.closingCash);
  // The effect of exchange rates: what the cash moved besides the flows (its own exchange difference and the cents of rounding).
  const fx = closing.map((c, i) => c - opening[i]! - net[i]!);
  const own = fs.map((f) => round(f.cashFx));
  lines.push({ kind: 'total', label: 'Net increase (decrease) in cash and cash equivalents', depth: 0, cents: net, drill: 'net' });
  lines.push({ kind: 'account', label: 'Cash and cash equivalents at the beginning of the period', depth: 0, cents: opening, drill: 'opening-cash' });
  lines.push({ kind: 'account', label: 'Effect of exchange rate changes on cash and cash equivalents', depth: 0, cents: fx, drill: 'fx' });
  lines.push({ kind: 'total', label: 'Cash and cash equivalents at the end of the period', depth: 0, cents: opening.map((o, i) => o + net[i]! + fx[i]!), drill: 'closing-cash' });
  lines.push({ kind: 'section', label: 'Checks', depth: 0, cents: [] });
  lines.push({ kind: 'account', label: 'Cash in the balance sheet at the end of the period', depth: 1, cents: closing, drill: 'closing-cash' });
  lines.push({ kind: 'account', label: "Exchange difference on the cash itself (at the month's average rate)", depth: 1, cents: own, drill: 'fx-own' });
  const residue = fx.map((x, i) => x - own[i]!);
  if (residue.some((x) => x !== 0n)) lines.push({ kind: 'account', label: 'Rounding of translated flows (in the effect of exchange rates)', depth: 1, cents: residue });
  // Reconciled: opening + flows + effect = the balance sheet's cash at the end.
  const balanced = fx.map((x, i) => opening[i]! + net[i]! + x === closing[i]!);
  return toStatement(columns, lines, balanced, opts.variance);
}

/** The equity components of one month's consolidated figures (cents, shown positive for credits). */
export interface Components {
  capital: bigint;
  retained: bigint;
  translation: bigint;
  nci: bigint;
}

export function componentsOf(chart: GroupAccount[], m: FlowMonth | undefined, include: (column: string) => boolean = () => true): Components {
  const out: Components = { capital: 0n, retained: 0n, translation: 0n, nci: 0n };
  if (!m || !m.ok) return out;
  const byCode = byCodeOf(chart);
  for (const p of m.parts) {
    if (!include(p.column)) continue;
    const a = byCode.get(p.account);
    if (!a) continue;
    if (a.type === 'income' || a.type === 'expense') out.retained -= p.cents; // the month's profit not yet in retained earnings (the NCI's share, nci_profit, taken out)
    else if (a.type !== 'equity') continue;
    else if (a.role === 'retained_earnings') out.retained -= p.cents;
    else if (a.role === 'cta' || a.role === 'rounding') out.translation -= p.cents;
    else if (a.role === 'nci_equity') out.nci -= p.cents;
    else out.capital -= p.cents;
  }
  return out;
}

/** Changes in equity's value columns: the equity components, the owners' total, NCI and total. */
export const EQUITY_COLUMNS: ReportColumn[] = ['Share capital', 'Retained earnings', 'Translation reserve', 'Owners of the parent', 'Non-controlling interests', 'Total equity'].map((label, i) => ({ key: ['capital', 'retained', 'translation', 'owners', 'nci', 'total'][i]!, label, format: 'amount' as const }));

/** One row's components (capital, retained earnings, translation reserve, NCI), in cents. */
type Four = [bigint, bigint, bigint, bigint];
/** What a block's rows are made of: the range's figures, and the components at its opening and closing month. */
interface EquityParts {
  f: Figures;
  open: Components;
  close: Components;
}
const four = (c: Components): Four => [c.capital, c.retained, c.translation, c.nci];
/** Changes in equity's rows: [key, kind, label, depth, components]; a row left out when `when` says so. The statement and its drill-down use the same. */
const EQUITY_ROWS: { key: string; kind: ReportRow['kind']; label: string; depth: number; of: (x: EquityParts) => Four; when?: (x: EquityParts) => boolean }[] = [
  { key: 'opening', kind: 'account', label: 'Opening balance', depth: 1, of: (x) => four(x.open) },
  { key: 'profit', kind: 'account', label: 'Profit for the period', depth: 1, of: ({ f }) => [0n, f.profit - f.nciProfit, 0n, f.nciProfit] },
  { key: 'oci', kind: 'account', label: 'Other comprehensive income: exchange differences', depth: 1, of: ({ f }) => [0n, 0n, f.oci - f.nciOci, f.nciOci] },
  { key: 'tci', kind: 'subtotal', label: 'Total comprehensive income', depth: 1, of: ({ f }) => [0n, f.profit - f.nciProfit, f.oci - f.nciOci, f.nciProfit + f.nciOci] },
  // Dividends and other movements: what moved each component besides the rows above (retained earnings: the owners' dividends; NCI: its share of the subsidiaries' dividends).
  { key: 'dividends', kind: 'account', label: 'Dividends and other movements', depth: 1, of: ({ f }) => [0n, f.ownersDividends, 0n, f.nciDividends] },
  { key: 'capital', kind: 'account', label: 'Shares issued and other capital movements', depth: 1, of: (x) => [capitalMoved(x), 0n, 0n, 0n], when: (x) => capitalMoved(x) !== 0n },
  // Acquisitions: what the acquired balance sheets and their entries brought in each component, net: the NCI arising (and cents of rounding).
  { key: 'acquisitions', kind: 'account', label: 'Acquisitions: non-controlling interests arising', depth: 1, of: ({ f }) => four(f.acquired) },
  {
    key: 'closing',
    kind: 'total',
    label: 'Closing balance',
    depth: 0,
    of: (x) => [x.open.capital + capitalMoved(x) + x.f.acquired.capital, x.open.retained + x.f.profit - x.f.nciProfit + x.f.ownersDividends + x.f.acquired.retained, x.open.translation + x.f.oci - x.f.nciOci + x.f.acquired.translation, x.open.nci + x.f.nciProfit + x.f.nciOci + x.f.nciDividends + x.f.acquired.nci],
  },
  { key: 'balance', kind: 'account', label: 'Equity in the balance sheet at the end of the period', depth: 1, of: (x) => four(x.close) },
];
function capitalMoved({ f, open, close }: EquityParts): bigint {
  return close.capital - open.capital - f.acquired.capital;
}
/** The six columns of a row from its four components. */
const sixOf = (c: Four): bigint[] => {
  const owners = c[0] + c[1] + c[2];
  return [c[0], c[1], c[2], owners, c[3], owners + c[3]];
};
/** Every report column (a block or column of the consolidated figures): the stored components answer only for it. */
export const ALL_COLUMNS = (): boolean => true;
/**
 * A block's figures and components. `stored`: the months are whole report columns' (a statement's
 * block), so the figures the consolidation stored may answer; a drill-down's months hold some parts
 * only, so it always computes from them.
 */
function equityParts(input: FlowInput, months: FlowMonth[], include: (column: string) => boolean, stored = false): EquityParts {
  const col: FlowColumn = { key: 'block', label: '', include, months };
  if (!stored) return { f: figures(input, col), open: componentsOf(input.chart, months[0], include), close: componentsOf(input.chart, months.at(-1), include) };
  return { f: figuresOf(input, col), open: componentsAt(input, months[0], include), close: componentsAt(input, months.at(-1), include) };
}


/** A block of changes in equity: a range's rows over the parts of some report columns (all: consolidated). */
export interface EquityBlock {
  label: string;
  months: FlowMonth[];
  include?: (column: string) => boolean;
}

/**
 * Changes in equity (IAS 1.106): columns share capital, retained earnings, translation reserve,
 * owners' total, NCI, total; rows opening, profit, OCI, dividends, shares issued, acquisitions
 * (NCI arising), closing; then the balance sheet's equity at the end and whether they agree.
 * One block of rows per report column asked for (consolidated, an entity, eliminations, NCI,
 * adjustments) or, with a comparison, per range (the range, then the one it is compared with).
 * Each row carries its drill key `ce:<block>:<row>`.
 */
export function changesInEquity(input: FlowInput, blocks: EquityBlock[]): Statement {
  const rows: ReportRow[] = [];
  const balanced: boolean[] = [];
  blocks.forEach((b, bi) => {
    const x = equityParts(input, b.months, b.include ?? ALL_COLUMNS, true);
    rows.push({ kind: 'section', label: b.label, depth: 0, values: EQUITY_COLUMNS.map(() => null) });
    for (const r of EQUITY_ROWS) if (!r.when || r.when(x)) rows.push({ kind: r.kind, label: r.label, depth: r.depth, values: sixOf(r.of(x)).map(centsText), drill: `ce:${bi}:${r.key}` });
    const closing = EQUITY_ROWS.find((r) => r.key === 'closing')!.of(x);
    const close = four(x.close);
    balanced.push(closing.every((c, i) => c === close[i]));
  });
  // One flag per block, spread over the columns (every column of a block agrees or not).
  return { columns: EQUITY_COLUMNS, rows, balanced: EQUITY_COLUMNS.map(() => balanced.every(Boolean)) };
}

// --- drill-down -----------------------------------------------------------------------------
/** One part of a line's figure: what one report column's parts on one group account make of it (the line's signs). */
export interface FlowDrillPart {
  /** `entity:<key>`, eliminations, nci or adjustments. */
  column: string;
  account: string;
  cents: bigint;
}
export interface FlowDrill {
  /** The figure the statement shows. */
  total: bigint;
  /** Its parts by report column and group account (none nil), in the order of the columns and the chart. */
  parts: FlowDrillPart[];
  /** What the per-line rounding leaves (flows at an average rate are rounded once per line and column): total less the parts. */
  rounding: bigint;
  /** How the line is made, in a sentence (a computed line). */
  note: string | null;
}

const CF_NOTES: Record<string, string> = {
  operating: "Profit, the non-cash items and the working-capital movements, each account's at the month's average rate.",
  net: 'The operating, investing and financing flows.',
  'closing-cash': 'The cash accounts in the balance sheet at the end of the range.',
  fx: "The cash's own exchange difference (each cash account's movement less its flow at the month's average rate), and the cents the rounding of the translated flows leaves.",
  'fx-own': "Each cash account's movement less its flow at the month's average rate.",
  'equity-other': 'What moved retained earnings and NCI besides profit and OCI: dividends, and the month before\'s profit rolled in (shown under each income and expense account).',
  profit: 'Income and expenses but the NCI\'s share of profit.',
};

/** A line's value over some parts, exactly: its key in the statement (ReportRow.drill), for a value column (`equityColumn`: changes in equity's). Null: no such line. */
function lineValue(chart: GroupAccount[], kind: 'comprehensive-income' | 'changes-in-equity' | 'cash-flow', line: string, equityColumn: number): ((x: EquityParts) => Frac) | null {
  if (kind === 'comprehensive-income') {
    const v = (CI_LINES as Record<string, ((f: Figures) => bigint) | undefined>)[line];
    return v ? ({ f }) => cents(v(f)) : null;
  }
  if (kind === 'changes-in-equity') {
    const r = EQUITY_ROWS.find((x) => x.key === line.split(':')[2]);
    return r && equityColumn >= 0 ? (x) => cents(sixOf(r.of(x))[equityColumn]!) : null;
  }
  const code = /^account:(.+)$/.exec(line)?.[1];
  if (code) return ({ f }) => { const x = f.flows.get(code) ?? ZERO; return { n: -x.n, d: x.d }; };
  const acquired = /^acquisition:(.+)$/.exec(line)?.[1];
  if (acquired) return ({ f }) => cents(f.acquisitions.get(acquired) ?? 0n);
  // The sections' totals: their lines, exactly (what rounding each line once leaves is the drill's rounding row).
  const effects = (f: Figures, cats: CashFlowCategory[]) => cats.flatMap((c) => flowAccounts(chart, c)).reduce((t, a) => addF(t, f.flows.get(a.code) ?? ZERO), ZERO);
  const neg = (x: Frac): Frac => ({ n: -x.n, d: x.d });
  const operating = (f: Figures) => addF(cents(f.profit - f.bargain), neg(effects(f, ['non_cash', 'working_capital'])));
  const investing = (f: Figures) => addF(cents([...f.acquisitions.values()].reduce((t, c) => t + c, 0n)), neg(effects(f, ['investing'])));
  const financing = (f: Figures) => addF(cents(f.equityOther), neg(effects(f, ['financing'])));
  const simple: Record<string, (f: Figures) => Frac> = {
    operating,
    investing,
    financing,
    net: (f) => addF(addF(operating(f), investing(f)), financing(f)),
    profit: (f) => cents(f.profit),
    bargain: (f) => cents(-f.bargain),
    'equity-other': (f) => cents(f.equityOther),
    'opening-cash': (f) => cents(f.openingCash),
    'closing-cash': (f) => cents(f.closingCash),
    // The effect of exchange rates: the cash's own exchange difference; the rounding of the flows is the drill's rounding row.
    fx: (f) => f.cashFx,
    'fx-own': (f) => f.cashFx,
  };
  const v = simple[line];
  return v ? ({ f }) => v(f) : null;
}

/**
 * What makes one figure of comprehensive income, changes in equity or the cash flow: the line
 * (`line`, its ReportRow.drill key) in one value column, split by report column (each entity,
 * eliminations, NCI, adjustments) and group account. Every line is a sum over those parts, so
 * the parts add up to the figure; flows translated at an average rate are rounded once per line
 * and column, and what that leaves is `rounding`. `statement` is the statement as shown (its
 * figure is the total). Changes in equity: `column` is the block's (its rows' report columns and
 * months), `equityColumn` the component clicked (EQUITY_COLUMNS' key).
 */
export function flowDrill(input: FlowInput, kind: 'comprehensive-income' | 'changes-in-equity' | 'cash-flow', statement: Statement, column: FlowColumn, line: string, equityColumn?: string): FlowDrill | null {
  const ci = kind === 'changes-in-equity' ? EQUITY_COLUMNS.findIndex((c) => c.key === equityColumn) : -1;
  const value = lineValue(input.chart, kind, line, ci);
  const row = statement.rows.find((r) => r.drill === line);
  const at = kind === 'changes-in-equity' ? ci : statement.columns.findIndex((c) => c.key === column.key);
  const shown = row && at >= 0 ? row.values[at] : null;
  if (!value || shown === null || shown === undefined) return null;
  const total = BigInt(shown.replace('.', ''));
  // The column's parts, one set of months per report column and account.
  const groups = new Map<string, { column: string; account: string; months: FlowMonth[] }>();
  column.months.forEach((m, i) => {
    if (!m.ok) return;
    for (const p of m.parts) {
      if (!column.include(p.column)) continue;
      const key = `${p.column}\u0000${p.account}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { column: p.column, account: p.account, months: column.months.map((x) => ({ period: x.period, ok: x.ok, parts: [] })) }));
      g.months[i]!.parts.push(p);
    }
  });
  const order = new Map(input.chart.map((a, i) => [a.code, i]));
  const colRank = (c: string) => (c.startsWith('entity:') ? 0 : c === 'eliminations' ? 1 : c === 'nci' ? 2 : 3);
  const parts: FlowDrillPart[] = [];
  for (const g of groups.values()) {
    const c = round(value(equityParts(input, g.months, () => true)));
    if (c !== 0n) parts.push({ column: g.column, account: g.account, cents: c });
  }
  parts.sort((a, b) => colRank(a.column) - colRank(b.column) || (a.column < b.column ? -1 : a.column > b.column ? 1 : 0) || (order.get(a.account) ?? 1e9) - (order.get(b.account) ?? 1e9));
  const rounding = total - parts.reduce((t, p) => t + p.cents, 0n);
  const note = kind !== 'cash-flow' ? null : line.startsWith('acquisition:') ? "The acquired entity's balance sheet and the acquisition's entries (but the acquirer's investment), the month it is acquired: the cash acquired less the consideration." : line.startsWith('account:') ? "The account's movement at the month's average rate (a foreign entity's local movement); its translation difference is not a flow." : (CF_NOTES[line] ?? null);
  return { total, parts, rounding, note };
}

/** The months a range needs: the month before it (the opening) and its own. */
export const monthsWithOpening = (months: string[]): string[] => (months.length ? [addMonths(months[0]!, -1), ...months] : []);

// --- from the consolidation's results ---------------------------------------------------------
/** The report column an entry is in (as the consolidated trial balance's columns). */
export function entryColumn(kind: string, entity: string | null): string {
  if (kind === 'translation' || kind === 'rounding') return `entity:${entity ?? ''}`;
  if (kind === 'nci') return 'nci';
  if (kind === 'adjustment') return 'adjustments';
  return 'eliminations';
}

/** The acquired entity of an acquisition's entry id ("2026-01/acquisition/S"), else null. */
export const acquisitionOfEntry = (entryId: string): string | null => /\/acquisition\/(.+)$/.exec(entryId)?.[1] ?? null;

/** A translated line's local amount counts when it was translated at a rate of its own (not the presentation currency's, not rolled). */
export const hasOwnRate = (rateKind: string): boolean => rateKind !== 'same' && rateKind !== 'rolled';

/** One month's parts from the engine's results, grouped as the outputs' read groups them (MonthParts, below; warehouse/reports/store.ts flowParts reads the same). */
export function partsOfResult(r: { period: string; blocked: boolean; translated: { entity: string; groupAccount: string; presentation: bigint; local: bigint; rateKind: string }[]; entries: { kind: string; entity: string | null; groupAccount: string; amount: bigint; entryId: string }[] }): FlowMonth {
  if (r.blocked) return { period: r.period, ok: false, parts: [] };
  const parts = new MonthParts();
  parts.addTranslated(r.translated);
  parts.addEntries(r.entries);
  return parts.month(r.period, false);
}

/**
 * The flow parts' keys of a run, made once: every month names the same entities and accounts,
 * and a key made per part was a tenth of a 21-entity run's allocations (each a string of several
 * pieces kept for the month: promoted, then collected). Holds one key per column, entity, group
 * account and kind (with a local amount, or without) the run's translated lines and entries name.
 */
export class PartKeys {
  private readonly byColumn = new Map<string, Map<string | null, PartKeyMaps>>();
  /** A column's and entity's keys (by account: without a local amount, with one). */
  maps(column: string, entity: string | null): PartKeyMaps {
    let byEntity = this.byColumn.get(column);
    if (!byEntity) this.byColumn.set(column, (byEntity = new Map()));
    let maps = byEntity.get(entity);
    if (!maps) byEntity.set(entity, (maps = [new Map(), new Map()]));
    return maps;
  }
  of(p: Pick<FlowPart, 'column' | 'account' | 'entity' | 'local'>): string {
    return keyIn(this.maps(p.column, p.entity), p);
  }
}
type PartKeyMaps = [Map<string, string>, Map<string, string>];
/** The part's key from its column's and entity's maps (PartKeys.maps), made the first time. */
function keyIn(maps: PartKeyMaps, p: Pick<FlowPart, 'column' | 'account' | 'entity' | 'local'>): string {
  const byAccount = maps[p.local === null ? 0 : 1];
  let key = byAccount.get(p.account);
  if (key === undefined) byAccount.set(p.account, (key = partKey(p)));
  return key;
}

/**
 * One month's parts as the outputs' read groups them (warehouse/reports/store.ts flowParts: the
 * translated lines summed per entity, group account and whether at a rate of their own; the
 * entries per kind, entity, group account and acquisition entry), from the engine's results as
 * the consolidation writes them: entity by entity, then the month's entries. The same figures as
 * grouping the written rows, without reading them back.
 */
export class MonthParts {
  private readonly parts: FlowPart[] = [];
  /** `keys`: the run's part keys (PartKeys), shared by its months; without it, each part makes its own. */
  constructor(private readonly keys?: PartKeys) {}
  /** One entity's translated lines of the month (all of them, as written). */
  addTranslated(lines: readonly { entity: string; groupAccount: string; presentation: bigint; local: bigint; rateKind: string }[]): void {
    // Per entity (the lines are usually one entity's), by account: with a local amount, and without.
    type Groups = { column: string; own: Map<string, FlowPart>; other: Map<string, FlowPart>; keys: PartKeyMaps | undefined };
    const byEntity = new Map<string, Groups>();
    let last: Groups | undefined;
    let lastEntity: string | undefined;
    for (const t of lines) {
      if (t.entity !== lastEntity) {
        lastEntity = t.entity;
        last = byEntity.get(t.entity);
        if (!last) {
          const column = `entity:${t.entity}`;
          byEntity.set(t.entity, (last = { column, own: new Map(), other: new Map(), keys: this.keys?.maps(column, t.entity) }));
        }
      }
      const own = hasOwnRate(t.rateKind);
      const groups = own ? last!.own : last!.other;
      const g = groups.get(t.groupAccount);
      if (g) {
        g.cents += t.presentation;
        if (own) g.local! += t.local;
      } else {
        const part: FlowPart = { column: last!.column, account: t.groupAccount, cents: t.presentation, entity: t.entity, local: own ? t.local : null, acquisition: null };
        part.key = last!.keys ? keyIn(last!.keys, part) : partKey(part);
        groups.set(t.groupAccount, part);
        // (In the order the lines first name them, as before.)
        this.parts.push(part);
      }
    }
  }
  /** The month's entries. */
  addEntries(entries: readonly { kind: string; entity: string | null; groupAccount: string; amount: bigint; entryId: string }[]): void {
    // Grouped per kind, entity, group account and acquisition entry (nested maps: no key string
    // per entry, a month has thousands of journal lines), the groups in the order the entries
    // first name them.
    const groups = new Map<string, Map<string | null, Map<string, Map<string | null, FlowPart>>>>();
    const made: FlowPart[] = [];
    for (const x of entries) {
      // (An acquisition's entries are grouped by their entry id, as the read's `like '%/acquisition/%'`.)
      const acq = x.entryId.includes('/acquisition/') ? x.entryId : null;
      let byEntity = groups.get(x.kind);
      if (!byEntity) groups.set(x.kind, (byEntity = new Map()));
      let byAccount = byEntity.get(x.entity);
      if (!byAccount) byEntity.set(x.entity, (byAccount = new Map()));
      let byAcq = byAccount.get(x.groupAccount);
      if (!byAcq) byAccount.set(x.groupAccount, (byAcq = new Map()));
      const g = byAcq.get(acq);
      if (g) g.cents += x.amount;
      else {
        const part: FlowPart = { column: entryColumn(x.kind, x.entity), account: x.groupAccount, cents: x.amount, entity: x.entity, local: null, acquisition: acq ? acquisitionOfEntry(acq) : null };
        part.key = this.keys ? this.keys.of(part) : partKey(part);
        byAcq.set(acq, part);
        made.push(part);
      }
    }
    for (const g of made) this.parts.push(g);
  }
  /** The month: its parts when consolidated, none when blocked. */
  month(period: string, blocked: boolean): FlowMonth {
    return blocked ? { period, ok: false, parts: [] } : { period, ok: true, parts: this.parts };
  }
}

/** An entity's rates as the engine applies them, from the configuration's (null for the presentation currency's entities). */
export function ratesOf(config: { settings: { presentationCurrency: string }; entities: { entity: string; currency: string | null }[]; rates: { currency: string; period: string; closing: bigint; average: bigint; quote?: 'direct' | 'indirect' }[] }) {
  const currency = new Map(config.entities.map((e) => [e.entity, e.currency]));
  const byKey = new Map(config.rates.map((r) => [`${r.currency}\u0000${r.period}`, r]));
  // Each entity's answer per month, made once (asked once per figure of a month).
  const made = new Map<string, Map<string, { closing: FlowRate; average: FlowRate } | null>>();
  return (entity: string, period: string): { closing: FlowRate; average: FlowRate } | null => {
    let byPeriod = made.get(entity);
    if (!byPeriod) made.set(entity, (byPeriod = new Map()));
    const hit = byPeriod.get(period);
    if (hit !== undefined) return hit;
    const c = currency.get(entity);
    const r = !c || c === config.settings.presentationCurrency ? undefined : byKey.get(`${c}\u0000${period}`);
    const indirect = r?.quote === 'indirect';
    const out = r ? { closing: { value: r.closing, indirect }, average: { value: r.average, indirect } } : null;
    byPeriod.set(period, out);
    return out;
  };
}
