// The books of the consolidation's worked example (test/consolidation/engine.test.ts): P (USD)
// owns S (EUR) over three months on the balances basis, as a CSV a user saves as a table, with
// account codes as the default group chart's (so every mapping suggestion is "same code"), and
// the month's EUR rates as the rates CSV. Shared by the api and the browser tests.
const BOOKS: [string, string, string, string, string, number][] = [];
const book = (entity: string, period: string, lines: Record<string, [string, string, number]>) => {
  for (const [code, [name, type, net]] of Object.entries(lines)) BOOKS.push([entity, period, code, name, type, net]);
};
const P = (period: string, cash: number, retained: number, revenue: number, expenses: number) =>
  book('P', period, { '1000': ['Cash', 'asset', cash], '3000': ['Share capital', 'equity', -5000], ...(retained ? { '3100': ['Retained earnings', 'equity', -retained] } : {}), '4000': ['Sales', 'income', -revenue], '6000': ['Overheads', 'expense', expenses] });
const S = (period: string, cash: number, payable: number, retained: number, revenue: number, expenses: number) =>
  book('S', period, { '1000': ['Bank', 'asset', cash], '2000': ['Creditors', 'liability', -payable], '3000': ['Capital', 'equity', -500], ...(retained ? { '3100': ['Retained earnings', 'equity', -retained] } : {}), '4000': ['Revenue', 'income', -revenue], '6000': ['Expenses', 'expense', expenses] });
P('2026-01', 5600, 0, 1000, 400);
P('2026-02', 6000, 600, 700, 300);
P('2026-03', 6500, 1000, 800, 300);
S('2026-01', 1000, 400, 0, 300, 200);
S('2026-02', 1200, 450, 100, 400, 250);
S('2026-03', 1300, 500, 250, 350, 300);

export const LEDGER_CSV = ['entity,period,account_code,account_name,account_type,debit,credit,currency', ...BOOKS.map(([e, p, c, n, t, net]) => `${e},${p},${c},${n},${t},${net > 0 ? net : 0},${net < 0 ? -net : 0},${e === 'P' ? 'USD' : 'EUR'}`), ''].join('\n');
export const RATES_CSV = 'currency,period,closing,average\nEUR,2026-01,1.20,1.15\nEUR,2026-02,1.25,1.22\nEUR,2026-03,1.18,1.21\n';
