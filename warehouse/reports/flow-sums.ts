// What the statements beyond the balance sheet read, stored when the consolidation writes (issue
// 34): comprehensive income, changes in equity and the cash flow (common/reports/flows.ts) add up,
// per report column, each month's movement from the month before (its profit, OCI, the flows of
// each account at the month's average rate, acquisitions, dividends, ...), and take the cash and
// the equity components at the range's two ends. Those figures add up over months and over report
// columns exactly (BigInt cents; the flows as exact fractions, rounded only when a statement shows
// them), so the consolidation stores them once per month and column (`consolidation_flow_sums`:
// period, col, figures JSON, flows JSON; col `*` is every column's sum, with the month's equity
// components) and a statement over any range adds up its months' rows instead of grouping and
// walking the translated lines of 13 months per request.
//
// Built while the consolidation writes its months (FlowSumsBuilder): each month it writes from the
// engine's results, grouped as the outputs would be (common/reports/flows.ts partsOfResult's
// parts, summed per entity, account and rate), each month it keeps from the outputs' parts, with
// the same arithmetic (flows.ts `figures`) as a request without them: month by month, each
// column's parts of the month and the month before. Every calendar month from the first to the
// last consolidated one gets rows (a blocked month too: its movement is the month before's stock
// going away). The rows hold what the chart, the rates, the acquisitions and the entities'
// currencies were then (a key of them is stored, row col `#inputs`): a request whose inputs differ
// (an account's cash-flow category edited, a rate changed since) or whose months are not all
// stored computes from the parts, as before. The table is swapped in with the outputs, in the same
// transaction. rebuildFlowSums builds the same from the outputs as they are.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { GroupAccount } from '../../common/consolidation/types';
import { addMonths } from '../../common/reports/periods';
import { gcd } from '../../common/consolidation/decimal';
import { addF, cashFlowOf, componentsOf, figures, ratesOf, type Components, type Figures, type FlowColumn, type FlowInput, type FlowMonth, type FlowPart, type Frac } from '../../common/reports/flows';
import { FLOW_SUMS_TABLE } from '../consolidation/report-sums';
import { readAcquisitions, readChart, readEntities, readSettings } from '../consolidation/store';
import type { OrgDatabase, OrgDialect } from '../connection';
import { DIALECTS } from '../dialect';
import { flowParts, flowRates } from './store';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

export { FLOW_SUMS_TABLE };
const ALL = '*';
const INPUTS = '#inputs';

// --- inputs ---------------------------------------------------------------------------------
/** What the flows read besides the outputs: the chart, the entities' currencies and names, the acquisitions, the rates as saved. */
export interface FlowConfig {
  chart: GroupAccount[];
  currency: string;
  entities: { entity: string; name: string; currency: string | null }[];
  acquisitions: Map<string, string>;
  rates: Awaited<ReturnType<typeof flowRates>>;
}

export async function readFlowConfig(db: Db, chart?: GroupAccount[]): Promise<FlowConfig> {
  const [settings, c, entities, acquisitions, rates] = await Promise.all([readSettings(db), chart ? Promise.resolve(chart) : readChart(db), readEntities(db), readAcquisitions(db), flowRates(db)]);
  return {
    chart: c,
    currency: settings.presentationCurrency,
    entities: entities.map((e) => ({ entity: e.entity, name: e.name, currency: e.currency })),
    acquisitions: new Map(acquisitions.config.map((a) => [a.entity, a.date.slice(0, 7)])),
    rates,
  };
}

export function flowInputOf(cfg: FlowConfig, months: FlowMonth[]): FlowInput {
  return {
    chart: cfg.chart,
    months,
    rate: ratesOf({ settings: { presentationCurrency: cfg.currency }, entities: cfg.entities, rates: cfg.rates }),
    acquisitions: cfg.acquisitions,
    names: new Map(cfg.entities.map((e) => [e.entity, e.name])),
  };
}

/** A key of everything in the inputs that moves a figure (not the names): stored figures answer only for the same. */
/** The stored rows' format: 2, every column's row holds its month's equity components too. */
const FORMAT = 2;

export function flowInputsKey(cfg: FlowConfig): string {
  const chart = cfg.chart.map((a) => [a.code, a.type, a.role ?? '', a.rateType ?? '', cashFlowOf(a)]);
  const entities = cfg.entities.map((e) => [e.entity, e.currency ?? '']).sort();
  const acquisitions = [...cfg.acquisitions].sort();
  const rates = cfg.rates.map((r) => [r.currency, r.period, String(r.closing), String(r.average), r.quote ?? '']).sort();
  // (FORMAT: what the rows hold; a table written in an older format does not answer.)
  return createHash('sha256').update(JSON.stringify([FORMAT, cfg.currency, chart, entities, acquisitions, rates])).digest('hex');
}

// --- figures as stored ----------------------------------------------------------------------
const lcm = (a: bigint, b: bigint): bigint => (a / gcd(a, b)) * b;
const zeroComponents = (): Components => ({ capital: 0n, retained: 0n, translation: 0n, nci: 0n });
const zeroFigures = (): Figures => ({ profit: 0n, nciProfit: 0n, oci: 0n, nciOci: 0n, flows: new Map(), acquisitions: new Map(), equityOther: 0n, openingCash: 0n, closingCash: 0n, cashFx: { n: 0n, d: 1n }, ownersDividends: 0n, nciDividends: 0n, bargain: 0n, acquired: zeroComponents() });

/** Adds `b` into `a` (every field; the cash at the ends too: the sum of columns). */
function addFigures(a: Figures, b: Figures): void {
  addScalars(a, b);
  // (`a`'s fractions are its own: one over the same denominator is added to in place, no new object.)
  // (forEach: no [key, value] array made per entry, as for...of over a map makes.)
  b.flows.forEach((v, k) => {
    const x = a.flows.get(k);
    if (!x) a.flows.set(k, { n: v.n, d: v.d });
    else if (x.d === v.d) x.n += v.n;
    else a.flows.set(k, addF(x, v));
  });
}

/**
 * A running total's flows over one denominator, kept as the months add up (the builder's): the
 * accounts' numerators over `d`, the least common multiple of every denominator added. A month
 * at an indirect rate brings a new denominator (its rate): the numerators are scaled once for it,
 * instead of a gcd per account and month (the figures are the same; only unreduced).
 */
class RunningFlows {
  d = 1n;
  readonly n = new Map<string, bigint>();
  /** The accounts in order, sorted again only when one was added (each month writes them all). */
  private sorted: string[] = [];
  sortedAccounts(): readonly string[] {
    if (this.sorted.length !== this.n.size) this.sorted = [...this.n.keys()].sort();
    return this.sorted;
  }
  add(flows: Map<string, Frac>): void {
    // The month's denominators (a handful: one per rate), each scaled to once. (In an array
    // searched by value: a map keyed by bigints hashes the number on every lookup.)
    const ds: bigint[] = [];
    flows.forEach((v) => {
      if (!ds.includes(v.d)) ds.push(v.d);
    });
    for (const d of ds) {
      if (this.d % d === 0n) continue;
      const next = lcm(this.d, d);
      const scale = next / this.d;
      this.n.forEach((x, k) => this.n.set(k, x * scale));
      this.d = next;
    }
    const factors = ds.map((d) => this.d / d);
    flows.forEach((v, k) => {
      const f = factors.length === 1 ? factors[0]! : factors[ds.indexOf(v.d)]!;
      const x = this.n.get(k);
      const add = f === 1n ? v.n : v.n * f;
      this.n.set(k, x === undefined ? add : x + add);
    });
  }
}

/** Adds every field of `b` into `a` but the flows. */
function addScalars(a: Figures, b: Figures): void {
  a.profit += b.profit;
  a.nciProfit += b.nciProfit;
  a.oci += b.oci;
  a.nciOci += b.nciOci;
  b.acquisitions.forEach((v, k) => a.acquisitions.set(k, (a.acquisitions.get(k) ?? 0n) + v));
  a.equityOther += b.equityOther;
  a.openingCash += b.openingCash;
  a.closingCash += b.closingCash;
  a.cashFx = addF(a.cashFx, b.cashFx);
  a.ownersDividends += b.ownersDividends;
  a.nciDividends += b.nciDividends;
  a.bargain += b.bargain;
  for (const k of ['capital', 'retained', 'translation', 'nci'] as const) a.acquired[k] += b.acquired[k];
}

/** The figures with every sign turned (to take a running total away). */
function negated(f: Figures): Figures {
  const neg = (c: Components): Components => ({ capital: -c.capital, retained: -c.retained, translation: -c.translation, nci: -c.nci });
  return {
    ...Object.fromEntries(SCALARS.map((k) => [k, -f[k]])),
    flows: new Map([...f.flows].map(([k, v]) => [k, { n: -v.n, d: v.d }])),
    acquisitions: new Map([...f.acquisitions].map(([k, v]) => [k, -v])),
    openingCash: -f.openingCash,
    closingCash: -f.closingCash,
    cashFx: { n: -f.cashFx.n, d: f.cashFx.d },
    acquired: neg(f.acquired),
  } as Figures;
}

const s = (v: bigint) => v.toString();
const comps = (c: Components) => [s(c.capital), s(c.retained), s(c.translation), s(c.nci)];
const compsOf = (x: string[]): Components => ({ capital: BigInt(x[0]!), retained: BigInt(x[1]!), translation: BigInt(x[2]!), nci: BigInt(x[3]!) });

/** The scalars of a month's figures, and the month's equity components (of the column, or of every column in the `*` row). */
interface StoredScalars {
  k: string;
  v: string[];
  x: [string, string];
  q: string[];
  a: [string, string][];
  c?: string[];
}
/** The flows of a month's figures over one denominator: account, numerator. */
interface StoredFlows {
  d: string;
  a: string[];
  n: string[];
}
const SCALARS = ['profit', 'nciProfit', 'oci', 'nciOci', 'equityOther', 'ownersDividends', 'nciDividends', 'bargain'] as const;

/** A column's running total up to a month, with that month's own cash (`k`, a stock). */
function storedRow(f: Figures, stock: bigint, components: Components | undefined, running: RunningFlows): [string, string] {
  const scalars: StoredScalars = { k: s(stock), v: SCALARS.map((k) => s(f[k])), x: [s(f.cashFx.n), s(f.cashFx.d)], q: comps(f.acquired), a: [...f.acquisitions].map(([e, c]) => [e, s(c)]), ...(components ? { c: comps(components) } : {}) };
  // The flows over the running total's one denominator; in account order: the same figures are
  // the same text, whichever order they were added in.
  const flows: StoredFlows = { d: s(running.d), a: [], n: [] };
  for (const k of running.sortedAccounts()) {
    const n = running.n.get(k)!;
    if (n === 0n) continue;
    flows.a.push(k);
    flows.n.push(s(n));
  }
  return [JSON.stringify(scalars), JSON.stringify(flows)];
}

// --- the build (after the consolidation's outputs are swapped in) ----------------------------
function byColumn(m: FlowMonth | undefined): Map<string, FlowPart[]> {
  const out = new Map<string, FlowPart[]>();
  if (!m || !m.ok) return out;
  for (const p of m.parts) {
    let list = out.get(p.column);
    if (!list) out.set(p.column, (list = []));
    list.push(p);
  }
  return out;
}

async function createTable(db: Db, dialect: OrgDialect, name: string): Promise<void> {
  const t = DIALECTS[dialect].types;
  await db.schema.createTable(name).addColumn('period', sql.raw(t.text(200)), (c) => c.notNull()).addColumn('col', sql.raw(t.text(200)), (c) => c.notNull()).addColumn('figures', sql.raw(t.text()), (c) => c.notNull()).addColumn('flows', sql.raw(t.text())).execute();
}

/**
 * Builds the stored flow figures month by month, in calendar order, into a staging table: the
 * consolidation feeds it each month as it writes it (the engine's results, partsOfResult's
 * grouping) or carries it (the outputs' parts), and swaps the table in with its outputs;
 * rebuildFlowSums feeds it from the outputs as they are. Rows go from the first month with a
 * check (consolidated, or blocked) to the last; the months between without one get rows too (their
 * movement is the month before's stock going away). Memory: one month's parts and the month
 * before's, and a running total per column.
 */
export class FlowSumsBuilder {
  private readonly input: FlowInput;
  private prev = new Map<string, FlowPart[]>();
  /** Per column, the running total of its months' figures (every column seen so far gets a row each month). */
  private readonly running = new Map<string, { f: Figures; flows: RunningFlows }>();
  private readonly total = { f: zeroFigures(), flows: new RunningFlows() };
  /** The last month given rows. */
  private last: string | undefined;
  written = 0;
  constructor(
    private readonly org: Pick<OrgDatabase, 'db' | 'dialect' | 'insertRows'>,
    private readonly cfg: FlowConfig,
    /** The staging table written. */
    readonly staged: string,
  ) {
    this.input = flowInputOf(cfg, []);
  }

  async start(): Promise<void> {
    await this.org.db.schema.dropTable(this.staged).ifExists().execute();
    await createTable(this.org.db, this.org.dialect, this.staged);
  }

  /**
   * The next month (calendar order): `checked` when the outputs hold a check for it (consolidated
   * or blocked); its parts when consolidated (`month.ok`). A month without a check gets rows only
   * once a later month has one.
   */
  async add(month: FlowMonth, checked: boolean): Promise<void> {
    if (!checked) return;
    if (this.last !== undefined) for (let t = addMonths(this.last, 1); t < month.period; t = addMonths(t, 1)) await this.month({ period: t, ok: false, parts: [] });
    await this.month(month);
  }

  private async month(month: FlowMonth): Promise<void> {
    const t = month.period;
    const now = byColumn(month);
    const before = addMonths(t, -1);
    let stock = 0n;
    const stocks = new Map<string, bigint>();
    for (const col of new Set([...this.prev.keys(), ...now.keys()])) {
      const column: FlowColumn = { key: col, label: col, include: () => true, months: [{ period: before, ok: true, parts: this.prev.get(col) ?? [] }, { period: t, ok: true, parts: now.get(col) ?? [] }] };
      const f = figures(this.input, column);
      let r = this.running.get(col);
      if (!r) this.running.set(col, (r = { f: zeroFigures(), flows: new RunningFlows() }));
      addScalars(r.f, f);
      r.flows.add(f.flows);
      addScalars(this.total.f, f);
      this.total.flows.add(f.flows);
      stocks.set(col, f.closingCash);
      stock += f.closingCash;
    }
    const rows: unknown[][] = [...this.running].sort(([a], [b]) => (a < b ? -1 : 1)).map(([col, r]) => [t, col, ...storedRow(r.f, stocks.get(col) ?? 0n, componentsOf(this.cfg.chart, { period: t, ok: month.ok, parts: now.get(col) ?? [] }), r.flows)]);
    rows.push([t, ALL, ...storedRow(this.total.f, stock, componentsOf(this.cfg.chart, month), this.total.flows)]);
    await this.org.insertRows(this.staged, ['period', 'col', 'figures', 'flows'], rows);
    this.prev = now;
    this.last = t;
    this.written++;
  }

  /** The inputs' key row: the table is complete (swap it in next). */
  async finish(): Promise<void> {
    await this.org.insertRows(this.staged, ['period', 'col', 'figures', 'flows'], [['', INPUTS, flowInputsKey(this.cfg), null]]);
  }
}

/** Replaces the stored flow figures with `staged` (inside the caller's transaction, with the outputs they were built from); null: none (nothing consolidated). */
export async function swapFlowSums(trx: Db, staged: string | null): Promise<void> {
  await trx.schema.dropTable(FLOW_SUMS_TABLE).ifExists().execute();
  if (!staged) return;
  await trx.schema.createIndex(`${FLOW_SUMS_TABLE}_ix0`).on(staged).columns(['period']).execute();
  await trx.schema.alterTable(staged).renameTo(FLOW_SUMS_TABLE).execute();
}

/**
 * Writes the stored flow figures from the outputs as they are (`suffix` names its staging
 * table): every month from the first consolidated to the last, one month's parts and the month
 * before's in memory at a time. Answers the months written. (The consolidation builds them as it
 * writes its months instead; this is the same build from the outputs, which a test compares.)
 */
export async function rebuildFlowSums(org: Pick<OrgDatabase, 'db' | 'dialect' | 'insertRows'>, suffix = '__next'): Promise<number> {
  const { db, dialect } = org;
  const range = (await db.selectFrom('consolidation_checks').select([sql<string | null>`min(period)`.as('first'), sql<string | null>`max(period)`.as('last')]).executeTakeFirst()) as { first: string | null; last: string | null } | undefined;
  if (!range?.first || !range.last) {
    await db.transaction().execute((trx) => swapFlowSums(trx, null));
    return 0;
  }
  const builder = new FlowSumsBuilder(org, await readFlowConfig(db), `${FLOW_SUMS_TABLE}${suffix}`);
  await builder.start();
  for (let t = range.first; t <= range.last; t = addMonths(t, 1)) {
    const [month] = await flowParts(db, dialect, [t]);
    // (Every month of the range gets rows: one without a check is a month with no parts.)
    await builder.add(month!, true);
  }
  await builder.finish();
  await db.transaction().execute((trx) => swapFlowSums(trx, builder.staged));
  return builder.written;
}

// --- the read -------------------------------------------------------------------------------
const missingTable = (err: unknown): boolean => /no such table|Invalid object name/i.test(String((err as { message?: unknown } | null)?.message ?? ''));

/**
 * The stored figures for these months (each value column's: its range's months, the month before
 * first), or null when they do not answer: no table (not consolidated since), other inputs than
 * the request's, or a month of a range not stored (or an opening month consolidated but not
 * stored). `withFlows`: the cash flow's per-account flows are read too.
 */
export async function storedFlowFigures(db: Db, cfg: FlowConfig, months: FlowMonth[], ranges: string[][], withFlows: boolean): Promise<FlowInput['stored'] | null> {
  // A range's figures are the running totals at its last month and its opening month; its first month's row says the months between are stored (every month from the first consolidated one to the last is).
  const periods = [...new Set(ranges.flatMap((l) => [l[0]!, l[1] ?? l[0]!, l.at(-1)!]))];
  if (!periods.length) return null;
  let rows: { period: string; col: string; figures: string; flows: string | null }[];
  try {
    rows = (await db
      .selectFrom(FLOW_SUMS_TABLE)
      .select(['period', 'col', 'figures', ...(withFlows ? (['flows'] as const) : [])])
      .where((eb) => eb.or([eb('period', 'in', periods), eb('col', '=', INPUTS)]))
      .execute()) as typeof rows;
  } catch (err) {
    if (missingTable(err)) return null;
    throw err;
  }
  if (rows.find((r) => r.col === INPUTS)?.figures !== flowInputsKey(cfg)) return null;
  const byMonth = new Map<string, Map<string, { figures: string; flows: string | null }>>();
  const columns = new Set<string>();
  for (const r of rows) {
    if (r.col === INPUTS) continue;
    let m = byMonth.get(r.period);
    if (!m) byMonth.set(r.period, (m = new Map()));
    m.set(r.col, r);
    if (r.col !== ALL) columns.add(r.col);
  }
  const ok = new Map(months.map((m) => [m.period, m.ok]));
  for (const list of ranges) {
    const [opening, ...range] = list;
    if (!range.length) continue;
    if (!byMonth.get(range[0]!)?.has(ALL) || !byMonth.get(range.at(-1)!)?.has(ALL)) return null;
    if (opening && ok.get(opening) && !byMonth.get(opening)?.has(ALL)) return null;
  }
  const parsed = new Map<string, { f: Figures; stock: bigint; c: Components | null }>();
  /** A column's running total at a month (its flows over one denominator), that month's own cash and (col *) equity components. */
  const read = (period: string, col: string): { f: Figures; stock: bigint; c: Components | null } | null => {
    const key = `${period}\u0000${col}`;
    const hit = parsed.get(key);
    if (hit) return hit;
    const r = byMonth.get(period)?.get(col);
    if (!r) return null;
    const sc = JSON.parse(r.figures) as StoredScalars;
    const f = zeroFigures();
    SCALARS.forEach((k, i) => (f[k] = BigInt(sc.v[i]!)));
    f.cashFx = { n: BigInt(sc.x[0]), d: BigInt(sc.x[1]) };
    f.acquired = compsOf(sc.q);
    for (const [e, c] of sc.a) f.acquisitions.set(e, BigInt(c));
    if (r.flows) {
      const fl = JSON.parse(r.flows) as StoredFlows;
      const d = BigInt(fl.d);
      fl.a.forEach((a, i) => f.flows.set(a, { n: BigInt(fl.n[i]!), d }));
    }
    const out = { f, stock: BigInt(sc.k), c: sc.c ? compsOf(sc.c) : null };
    parsed.set(key, out);
    return out;
  };
  const none = { f: zeroFigures(), stock: 0n, c: null };
  return {
    figures: (col) => {
      const [first, ...range] = col.months;
      if (!first || !range.length) return zeroFigures();
      const chosen = [...columns].filter((c) => col.include(c));
      const keys = chosen.length === columns.size ? [ALL] : chosen;
      const out = zeroFigures();
      for (const k of keys) {
        // The range's figures: the running total at its last month less the one at its opening month (none before the first stored).
        const end = read(range.at(-1)!.period, k) ?? none;
        const start = read(first.period, k) ?? none;
        addFigures(out, end.f);
        addFigures(out, negated(start.f));
        out.openingCash += start.stock;
        out.closingCash += end.stock;
      }
      return out;
    },
    components: (m, include) => {
      if (!m) return zeroComponents();
      const chosen = include ? [...columns].filter((c) => include(c)) : null;
      const keys = !chosen || chosen.length === columns.size ? [ALL] : chosen;
      const out = zeroComponents();
      for (const k of keys) {
        const c = read(m.period, k)?.c;
        if (!c) continue;
        out.capital += c.capital;
        out.retained += c.retained;
        out.translation += c.translation;
        out.nci += c.nci;
      }
      return out;
    },
  };
}
