// A budget's figures for the reports: as a statement's value column, and as the overview's line
// (the mappings and rates read when the report is asked for, so a changed rate shows at once).
import type { Kysely } from 'kysely';
import { ApiError } from '../../common/api-error';
import { budgetFigures, missingRatesNotice, type BudgetSetup } from '../../common/reports/budget';
import type { ReportRange } from '../../common/reports/periods';
import { centsText, type ValueColumn } from '../../common/reports/statements';
import { readConfig } from '../consolidation/store';
import { listBudgets, readBudget, readBudgetLines, type StoredBudget } from './budgets';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

/** What a budget is checked and translated with: the group's entities, chart, mappings and rates. */
export async function setupOf(db: Db): Promise<BudgetSetup & { presentationCurrency: string; rates: Awaited<ReturnType<typeof readConfig>>['rates'] }> {
  const c = await readConfig(db);
  return { entities: c.entities.map((e) => ({ entity: e.entity, name: e.name, currency: e.currency, included: e.included })), chart: c.accounts, mappings: c.mappings, presentationCurrency: c.settings.presentationCurrency, rates: c.rates };
}

/** A budget as a report's value column over a range's months, with a notice of lines no rate translates. 404 for an unknown budget. */
export async function budgetColumn(db: Db, id: string, range: ReportRange): Promise<{ budget: StoredBudget; column: ValueColumn; notice: string | null }> {
  const budget = await readBudget(db, id);
  if (!budget) throw new ApiError(404, 'Budget not found');
  const [lines, setup] = await Promise.all([readBudgetLines(db, id, range.months), setupOf(db)]);
  const figures = budgetFigures(lines, setup, range.months);
  return { budget, column: { key: 'budget', label: budget.name, nets: figures.nets }, notice: missingRatesNotice(budget.name, figures.missingRates) };
}

/**
 * The overview's budget line: per month, the budget's revenue (income accounts) and net income
 * (income less expenses, the NCI's share among them, as the overview's net income), in decimal
 * text. The budget asked for (404 when unknown), else the one saved last; null when there is none.
 */
export async function overviewBudget(db: Db, id: string | undefined, months: string[]): Promise<OverviewBudget | null> {
  let budget = id ? await readBudget(db, id) : null;
  if (id && !budget) throw new ApiError(404, 'Budget not found');
  if (!budget) budget = (await listBudgets(db)).sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''))[0] ?? null;
  if (!budget) return null;
  const [lines, setup] = await Promise.all([readBudgetLines(db, budget.id, months), setupOf(db)]);
  const figures = budgetFigures(lines, setup, months);
  const types = new Map(setup.chart.map((a) => [a.code, a.type]));
  return {
    id: budget.id,
    name: budget.name,
    months: months.map((period) => {
      const m = figures.byMonth.get(period);
      let revenue = 0n;
      let pl = 0n;
      for (const [code, net] of m ?? []) {
        pl += net;
        if (types.get(code) === 'income') revenue -= net;
      }
      return { period, revenue: m ? centsText(revenue) : null, netIncome: m ? centsText(-pl) : null };
    }),
  };
}

export interface OverviewBudget {
  id: string;
  name: string;
  /** Per month of the overview: null where the budget has no line. */
  months: { period: string; revenue: string | null; netIncome: string | null }[];
}

