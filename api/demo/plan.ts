// What the demo sets up on top of the synced books: the group's settings, each entity's name,
// currency, ownership and parent, every source account's group account (intercompany accounts
// with their counterparty and category), the GBP rates (NetSuite brings EUR and CAD itself), the
// subsidiaries' historical capital rates and the budget CSV. All of it comes from the books the
// simulators serve (simulators/demo-books.ts), so the two cannot drift apart.
import { DEMO_GROUP, DEMO_ROLES, demoBooks, demoBudgetCsv, type DemoIcCategory, type DemoRole, type DemoSourceSystem } from '../../simulators/demo-books';

export type { DemoRole };

export interface DemoPlan {
  months: string[];
  settings: { presentationCurrency: string; method: 'full'; toleranceAmount: string; tolerancePct: string; fiscalYearStartMonth: number };
  entities: {
    role: DemoRole;
    name: string;
    currency: string;
    ownership: string;
    parentRole: DemoRole | null;
    source: DemoSourceSystem;
    /** The entity key trial_balance gives it. */
    entityKey: string;
    accounts: { code: string; groupAccount: string; icCounterpartyRole?: DemoRole; icCategory?: DemoIcCategory }[];
  }[];
  ratesCsv: string;
  historicalRates: { role: DemoRole; groupAccount: string; rate: string }[];
  budgetCsv: string;
}

/** Intercompany differences up to USD 100 a pair are within tolerance (the UK pair's FX difference); the missing invoice is not. */
export const DEMO_TOLERANCE_USD = '100';

export function demoPlan(now = new Date()): DemoPlan {
  const books = demoBooks(now);
  return {
    months: books.months,
    settings: { presentationCurrency: 'USD', method: 'full', toleranceAmount: DEMO_TOLERANCE_USD, tolerancePct: '0', fiscalYearStartMonth: 1 },
    entities: DEMO_ROLES.map((role) => {
      const e = DEMO_GROUP[role];
      return {
        role,
        name: e.name,
        currency: e.currency,
        ownership: e.ownership,
        parentRole: e.parent,
        source: e.source,
        entityKey: e.entityKey,
        accounts: e.accounts.map((a) => ({ code: a.code, groupAccount: a.group, ...(a.ic ? { icCounterpartyRole: a.ic.counterparty, icCategory: a.ic.category } : {}) })),
      };
    }),
    ratesCsv: ['currency,period,closing,average', ...books.rates.GBP.map((r) => `GBP,${r.month},${r.closing},${r.average}`), ''].join('\n'),
    historicalRates: (['UK', 'DE', 'CA'] as const).map((role) => ({ role, groupAccount: books.historicalRates[role].groupAccount, rate: books.historicalRates[role].rate })),
    budgetCsv: demoBudgetCsv(books),
  };
}
