// Budgets without the stack (issue 34): the translation of a line at the average rate (direct and
// indirect quotes, half-even to the cent), the checks' messages, the tables' T-SQL behind their
// guards, and the demo group's budget workbook mapped and checked against the demo's own set-up.
//
// By hand: 310.25 EUR at 1.22 = 378.505 -> 378.50 (half-even: 50 is even); at 1.15 = 356.7875 ->
// 356.79. Indirect: 1,000.00 CAD at 1.25 CAD per USD = 800.00 USD; 100.00 at 0.3 = 333.333... ->
// 333.33; 0.005 at 1 (same currency, 4 decimals entered) = 0.005 -> 0.00 (half-even), 0.015 -> 0.02.
// Figures: a group line 6000 of 100 (an expense: net +10,000 cents), an income line 4000 of 250
// (net -25,000 cents); an excluded entity's lines are left out; a line of a month with no rate is
// left out and named.
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import { parseDecimal, RATE_SCALE } from '../../common/consolidation/decimal';
import { budgetFigures, checkBudget, missingRatesNotice, translateAmount, type BudgetSetup } from '../../common/reports/budget';
import { budgetForReports } from '../../api/demo/seed';
import { budgetsSchemaDdl } from '../../warehouse/reports/budgets';
import { demoBooks, demoBudgetCsv } from '../../simulators/demo-books';
import { demoPlan } from '../../simulators/demo-plan';
import { parse } from 'csv-parse/sync';
import { tsqlCompileOnly } from '../helpers/tsql';

const rate = (text: string) => parseDecimal(text, RATE_SCALE)!;
const amt = (text: string) => parseDecimal(text, 4)!;

describe('translating a budget line', () => {
  it('at the average rate, rounded once, half-even, to the cent', () => {
    expect(translateAmount(amt('310.25'), { average: rate('1.22') })).toBe(37850n);
    expect(translateAmount(amt('310.25'), { average: rate('1.15') })).toBe(35679n);
    expect(translateAmount(amt('1000'), { average: rate('1.25'), quote: 'indirect' })).toBe(80000n);
    expect(translateAmount(amt('100'), { average: rate('0.3'), quote: 'indirect' })).toBe(33333n);
    expect(translateAmount(amt('0.005'), null)).toBe(0n);
    expect(translateAmount(amt('0.015'), null)).toBe(2n);
    expect(translateAmount(amt('-310.25'), { average: rate('1.22') })).toBe(-37850n);
  });
});

const setup: BudgetSetup & { presentationCurrency: string; rates: { currency: string; period: string; closing: bigint; average: bigint }[] } = {
  entities: [
    { entity: 'P', name: 'Parent Inc', currency: 'USD', included: true },
    { entity: 'S', name: 'Sub GmbH', currency: 'EUR', included: true },
    { entity: 'X', name: 'Left Out Ltd', currency: 'USD', included: false },
    { entity: 'N', name: 'No Currency', currency: null, included: true },
  ],
  chart: DEFAULT_GROUP_CHART,
  mappings: [
    { entity: 'S', sourceAccount: '4000', groupAccount: '4000' },
    { entity: 'X', sourceAccount: '4000', groupAccount: '4000' },
  ],
  presentationCurrency: 'USD',
  rates: [{ currency: 'EUR', period: '2026-02', closing: rate('1.25'), average: rate('1.22') }],
};

describe('checking lines', () => {
  it('names each problem by line and column', () => {
    const { problems } = checkBudget(
      [
        { entity: 'N', period: '2026-01', groupAccount: '4000', amount: '1' },
        { entity: 'S', period: '2026-1', account: '4000', amount: '1' },
        { entity: 'S', period: '2026-01', account: '9999', amount: '1' },
        { entity: 'group', period: '2026-01', account: '2000', amount: '1' },
        { entity: 'S', period: '2026-01', account: '4000', amount: '1e3' },
      ],
      setup,
      (i) => `Line ${i + 1}`,
    );
    expect(problems).toEqual([
      'Line 1, column entity: No Currency has no functional currency yet (set it on the Consolidation page)',
      'Line 2, column period: "2026-1" is not a month (YYYY-MM)',
      "Line 3, column account: Sub GmbH's account \"9999\" is not mapped to a group account (map it on the Consolidation page, or give a group_account)",
      'Line 4, column account: "2000" is 2000 Trade payables, a liability account; a budget holds income and expenses only',
      'Line 5, column amount: "1e3" is not an amount (digits, an optional sign and a "." before at most 4 decimals, e.g. -1234.50; no thousands separators)',
    ]);
    expect(checkBudget([], setup, (i) => `Line ${i + 1}`).problems).toEqual(['A budget needs at least one line']);
  });

  it('maps, translates and sums the lines of the months asked, leaving out excluded entities and lines no rate translates', () => {
    const { lines, problems } = checkBudget(
      [
        { entity: 'S', period: '2026-02', account: '4000', amount: '310.25' },
        { entity: 'group', period: '2026-02', account: '6000', amount: '100' },
        { entity: 'P', period: '2026-02', groupAccount: '4000', amount: '250' },
        { entity: 'Left Out Ltd', period: '2026-02', account: '4000', amount: '999' },
        { entity: 'S', period: '2026-03', account: '4000', amount: '10' },
        { entity: 'P', period: '2026-04', groupAccount: '4000', amount: '5' },
      ],
      setup,
      (i) => `Line ${i + 1}`,
    );
    expect(problems).toEqual([]);
    const f = budgetFigures(lines, setup, ['2026-02', '2026-03']);
    // Revenue: -(378.50 + 250.00) debit positive; operating expenses +100.00; April is not asked.
    expect(Object.fromEntries(f.nets)).toEqual({ '4000': -62850n, '6000': 10000n });
    expect(f.missingRates).toEqual([{ currency: 'EUR', period: '2026-03' }]);
    expect(missingRatesNotice('Plan', f.missingRates)).toBe('The budget "Plan" leaves out lines with no average rate: EUR for March 2026.');
  });
});

describe('the budget tables on Azure SQL', () => {
  it('are created behind their guards, with the lines indexed by budget and month', () => {
    const db = tsqlCompileOnly();
    expect(budgetsSchemaDdl(db, 'mssql')).toEqual([
      `if object_id(N'dbo.budgets', N'U') is null create table "budgets" ("id" nvarchar(200) not null, "name" nvarchar(400) not null, "version" int not null, "line_count" int not null, "updated_by" nvarchar(400), "updated_at" nvarchar(200), constraint "budgets_pk" primary key ("id"))`,
      `if object_id(N'dbo.budget_lines', N'U') is null create table "budget_lines" ("budget_id" nvarchar(200) not null, "entity" nvarchar(200), "period" nvarchar(200) not null, "account" nvarchar(200) not null, "direct" int not null, "amount" nvarchar(200) not null)`,
      expect.stringMatching(/^if not exists .*budget_lines_ix0.* create index "budget_lines_ix0" on "budget_lines" \("budget_id", "period"\)$/),
    ]);
  });
});

describe('the demo group budget', () => {
  it("maps the demo's budget workbook onto its group with no problem", () => {
    const books = demoBooks(new Date('2026-11-15T00:00:00Z'));
    const plan = demoPlan(books);
    const csv = budgetForReports(demoBudgetCsv(books));
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    const demoSetup: BudgetSetup = { entities: plan.entities.map((e) => ({ entity: e.entityKey, name: e.name, currency: e.currency, included: true })), chart: DEFAULT_GROUP_CHART, mappings: [] };
    const { lines, problems } = checkBudget(rows.map((r) => ({ entity: r.entity, period: r.period ?? '', groupAccount: r.group_account, amount: r.amount ?? '' })), demoSetup, (i) => `Row ${i + 2}`);
    expect(problems).toEqual([]);
    expect(lines.length).toBe(books.budget.length);
    expect(new Set(lines.map((l) => l.entity)).size).toBe(plan.entities.length);
  });
});
