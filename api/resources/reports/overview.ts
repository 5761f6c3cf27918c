// The Dashboard overview (issue 19): per month revenue, gross margin, net income attributable to
// owners and cash, and each entity's contribution to the profit of the range, read from the
// consolidation's outputs. Exact: SQL sums integer cents, the rest is BigInt, answers are decimal
// text. A month the consolidation has not produced is listed with null figures, never as zero.
import { sql, type Kysely } from 'kysely';
import type { OverviewAnswer } from '../../../common/contract/reports';
import { CENTS_SQL, ENTITY_COLUMNS_VIEW, readChart, readEntities, readSettings } from '../../../warehouse/consolidation/store';
import type { AccountType } from '../../../common/consolidation/types';
import type { OrgDialect } from '../../../warehouse/connection';
import { addMonths, monthLabel, monthOf } from '../../../common/reports/periods';
import { blockedReason, freshness, groupOrder, momentLabel } from '../../../warehouse/reports/answers';
import { centsText } from '../../../common/reports/statements';
import { monthStates } from '../../../warehouse/reports/store';
import { overviewBudget } from '../../../warehouse/reports/budget-figures';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

export interface OverviewQuery {
  /** The last month shown; the latest consolidated month when absent. */
  to?: string;
  months: number;
  /** The budget drawn beside the figures (else the one saved last). */
  budget?: string;
}

export const COST_OF_SALES_LINE = 'Expenses > Cost of sales';
export const CASH_LINE = 'Assets > Current assets > Cash';

const big = (v: unknown): bigint => (v === null || v === undefined ? 0n : BigInt(typeof v === 'number' ? Math.round(v) : String(v)));
/** A statement line at or under `path` ("A > B" holds "A > B" and "A > B > C", not "A > Bc"). */
const under = (line: string, path: string) => line === path || line.startsWith(`${path} >`);

type Kind = 'revenue' | 'costOfSales' | 'otherPl' | 'cash' | 'other';

/**
 * How each group account counts: by the group chart (as the statements lay it out), else by what
 * the run stored beside the figure (an account removed from the chart since).
 */
function classifier(chart: { code: string; type: AccountType; line: string }[]) {
  const byCode = new Map(chart.map((a) => [a.code, a]));
  return (code: string, storedType: string | null, storedLine: string | null): Kind => {
    const a = byCode.get(code);
    const type = a?.type ?? storedType;
    const line = a?.line ?? storedLine ?? '';
    if (type === 'income') return 'revenue';
    if (type === 'expense') return under(line, COST_OF_SALES_LINE) ? 'costOfSales' : 'otherPl';
    if (type === 'asset' && line.startsWith(CASH_LINE)) return 'cash';
    return 'other';
  };
}

/** The latest month the consolidation produced (its checks say ok), if any. */
async function latestConsolidated(db: Db): Promise<string | null> {
  const r = (await db.selectFrom('consolidation_checks').select(sql<string | null>`max(period)`.as('p')).where('status', '=', 'ok').executeTakeFirst()) as { p: string | null } | undefined;
  return r?.p ?? null;
}

export async function overview(db: Db, dialect: OrgDialect, q: OverviewQuery, now: Date = new Date()): Promise<OverviewAnswer> {
  const [settings, chart, entityRows, latest, fresh] = await Promise.all([readSettings(db), readChart(db), readEntities(db), q.to ? Promise.resolve(q.to) : latestConsolidated(db), freshness(db)]);
  const currency = settings.presentationCurrency;
  const zero = centsText(0n);
  if (!latest) {
    return {
      currency,
      range: null,
      months: [],
      contribution: { entities: [], eliminations: zero, nci: zero, adjustments: zero, netIncome: zero },
      notices: ['Nothing is consolidated yet. Run the consolidation to see the overview.'],
      budget: null,
      ...fresh,
    };
  }
  const to = latest;
  const from = addMonths(to, -(q.months - 1));
  const periods = Array.from({ length: q.months }, (_, i) => addMonths(from, i));
  const states = await monthStates(db, periods);
  const done = states.filter((s) => s.status === 'ok').map((s) => s.period);
  const kindOf = classifier(chart);
  const cents = CENTS_SQL[dialect];

  type Figures = { revenue: bigint; costOfSales: bigint; pl: bigint; cash: bigint };
  const perMonth = new Map<string, Figures>(done.map((p) => [p, { revenue: 0n, costOfSales: 0n, pl: 0n, cash: 0n }]));
  let eliminations = 0n;
  let nci = 0n;
  let adjustments = 0n;
  const byEntity = new Map<string, bigint>();
  if (done.length) {
    const ctb = (await db
      .selectFrom('consolidated_trial_balance')
      .select([
        'period',
        'group_account',
        sql<string | null>`max(account_type)`.as('type'),
        sql<string | null>`max(line)`.as('line'),
        sql`sum(${sql.raw(cents('consolidated'))})`.as('con'),
        sql`sum(${sql.raw(cents('eliminations'))})`.as('el'),
        sql`sum(${sql.raw(cents('nci'))})`.as('nci'),
      ])
      .where('period', 'in', done)
      .groupBy(['period', 'group_account'])
      .execute()) as { period: string; group_account: string; type: string | null; line: string | null; con: unknown; el: unknown; nci: unknown }[];
    for (const r of ctb) {
      const f = perMonth.get(r.period)!;
      const kind = kindOf(r.group_account, r.type, r.line);
      const con = big(r.con);
      if (kind === 'cash') f.cash += con;
      if (kind === 'revenue' || kind === 'costOfSales' || kind === 'otherPl') {
        // Debit positive: income is negative, expenses (the NCI's share of profit among them) positive.
        f.pl += con;
        if (kind === 'revenue') f.revenue -= con;
        if (kind === 'costOfSales') f.costOfSales += con;
        eliminations += big(r.el);
        nci += big(r.nci);
      }
    }
    // Posted consolidation journals (entries of kind 'adjustment'): their part of the profit.
    const adjusted = (await db
      .selectFrom('consolidation_entries')
      .select(['group_account', sql`sum(${sql.raw(cents('amount'))})`.as('c')])
      .where('period', 'in', done)
      .where('kind', '=', 'adjustment')
      .groupBy('group_account')
      .execute()) as { group_account: string; c: unknown }[];
    const typeOf = new Map(chart.map((a) => [a.code, a]));
    for (const r of adjusted) {
      const a = typeOf.get(r.group_account);
      const kind = kindOf(r.group_account, a?.type ?? null, a?.line ?? null);
      if (kind === 'revenue' || kind === 'costOfSales' || kind === 'otherPl') adjustments += big(r.c);
    }
    const parts = (await db
      .selectFrom(ENTITY_COLUMNS_VIEW)
      .select(['entity', 'group_account', sql`sum(amount_cents)`.as('c')])
      .where('period', 'in', done)
      .groupBy(['entity', 'group_account'])
      .execute()) as { entity: string; group_account: string; c: unknown }[];
    for (const p of parts) {
      const kind = kindOf(p.group_account, null, null);
      if (kind === 'revenue' || kind === 'costOfSales' || kind === 'otherPl') byEntity.set(p.entity, (byEntity.get(p.entity) ?? 0n) - big(p.c));
    }
  }

  // Included entities, and any other the range's months consolidated (excluded since): their profit is in the net income.
  const names = new Map(entityRows.map((e) => [e.entity, e.name]));
  for (const e of entityRows) if (e.included && !byEntity.has(e.entity)) byEntity.set(e.entity, 0n);
  // In the group's order: the parent first, then its subsidiaries by the tree.
  const order = new Map(groupOrder(entityRows).map((e, i) => [e.entity, i]));
  const entities = [...byEntity]
    .sort(([a], [b]) => (order.get(a) ?? 1e9) - (order.get(b) ?? 1e9) || a.localeCompare(b))
    .map(([entity, profit]) => ({ entity, entityName: names.get(entity) ?? entity, profit: centsText(profit) }));
  const totalPl = [...perMonth.values()].reduce((s, f) => s + f.pl, 0n);

  const notices: string[] = [];
  // Never a month still to come; a blocked month with its reason.
  const today = monthOf(now);
  const missing = states.filter((m) => m.status === 'missing' && m.period <= today);
  const blocked = states.filter((m) => m.status === 'blocked' && m.period <= today);
  if (missing.length) notices.push(`Not consolidated yet: ${missing.map((m) => monthLabel(m.period)).join(', ')}.`);
  for (const m of blocked) notices.push(m.period === today ? `${monthLabel(m.period)} is in progress and blocked: ${blockedReason(m)} yet.` : `${monthLabel(m.period)} is blocked: ${blockedReason(m)}.`);
  if (fresh.stale) notices.push(`Not consolidated since the ${fresh.stale.what} of ${momentLabel(fresh.stale.at)}: these figures do not include it yet.`);

  return {
    currency,
    range: { from, to, label: from === to ? monthLabel(to) : `${monthLabel(from)} to ${monthLabel(to)}` },
    months: states.map((s) => {
      const f = perMonth.get(s.period);
      return {
        period: s.period,
        label: monthLabel(s.period),
        status: s.status,
        locked: s.locked,
        messages: s.messages,
        revenue: f ? centsText(f.revenue) : null,
        grossMargin: f ? centsText(f.revenue - f.costOfSales) : null,
        netIncome: f ? centsText(-f.pl) : null,
        cash: f ? centsText(f.cash) : null,
      };
    }),
    contribution: { entities, eliminations: centsText(-eliminations), nci: centsText(-nci), adjustments: centsText(-adjustments), netIncome: centsText(-totalPl) },
    notices,
    budget: await overviewBudget(db, q.budget, periods),
    ...fresh,
  };
}
