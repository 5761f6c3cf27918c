// What the demo sets up on top of the synced books (common/demo-plan.ts): the group's settings,
// each entity's name, currency, ownership and parent, every source account's group account, the
// GBP and AUD rates, the subsidiaries' historical capital rates, DE's acquisition and the budget CSV. All of it comes from
// the books the simulators serve (demo-books.ts), so the two cannot drift apart. main.ts writes it
// into a file the api's demo seed reads (its path reaches the api in DEMO_CONNECTIONS).
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DemoPlan } from '../common/demo-plan';
import { formatFixed } from '../common/consolidation/decimal';
import { DEMO_DE_ACQUISITION, DEMO_GROUP, DEMO_ROLES, demoBudgetCsv, type DemoBooks } from './demo-books';

/** Intercompany differences up to USD 100 a pair are within tolerance (the UK pair's FX difference); the missing invoice is not. */
export const DEMO_TOLERANCE_USD = '100';

export function demoPlan(books: DemoBooks): DemoPlan {
  return {
    months: books.months,
    monthInProgress: books.inProgress.month,
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
    ratesCsv: ['currency,period,closing,average', ...(['GBP', 'AUD'] as const).flatMap((c) => [...books.rates[c], books.inProgress.rates[c]].map((r) => `${c},${r.month},${r.closing},${r.average}`)), ''].join('\n'),
    historicalRates: (['UK', 'DE', 'CA', 'AU'] as const).map((role) => ({ role, groupAccount: books.historicalRates[role].groupAccount, rate: books.historicalRates[role].rate })),
    budgetCsv: demoBudgetCsv(books),
    acquisitions: [
      {
        role: books.acquisition.role,
        date: books.acquisition.date,
        consideration: formatFixed(books.acquisition.considerationUsdCents, 2),
        considerationCurrency: 'USD',
        nciMeasurement: 'proportionate',
        nciFairValue: null,
        adjustments: [{ groupAccount: DEMO_DE_ACQUISITION.adjustment.groupAccount, amount: formatFixed(DEMO_DE_ACQUISITION.adjustment.eurCents, 2), usefulLifeMonths: DEMO_DE_ACQUISITION.adjustment.usefulLifeMonths, amortizationAccount: DEMO_DE_ACQUISITION.adjustment.amortizationAccount }],
      },
    ],
  };
}

/** Writes the plan of these books to dir/demo-plan.json (whole or not at all) and answers its path. */
export function writeDemoPlan(dir: string, books: DemoBooks): string {
  const file = join(dir, 'demo-plan.json');
  writeFileSync(`${file}.tmp`, JSON.stringify(demoPlan(books)), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  return file;
}
