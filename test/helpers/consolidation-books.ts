// The books of the consolidation's worked example (test/consolidation/engine.test.ts): P (USD)
// owns S (EUR) over three months on the balances basis, as a CSV a user saves as a table, with
// account codes as the default group chart's (so every mapping suggestion is "same code"), and
// the month's EUR rates as the rates CSV; and the calls that set a group up with them and
// consolidate it. Shared by the api and the browser tests.
import type { Express } from 'express';
import request from 'supertest';
import { waitFor } from './wait';

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

/** An admin's calls to the api of `app`. */
const apiOf = (app: Express, token: string) => (method: 'get' | 'put' | 'post', path: string) => request(app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);
const uniq = (p: string) => `${p}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;

/** Onboards an organization through the api (the onboarding workflow) and waits for it. */
export async function onboardThroughApi(app: Express, token: string, orgId: string, prefix: string): Promise<void> {
  const api = apiOf(app, token);
  expect((await api('post', '/onboard/start').send({ orgID: orgId, containerName: uniq(prefix), databaseName: uniq(`${prefix}db`), dataFactoryName: uniq(`${prefix}f`) })).status).toBe(202);
  await waitFor('onboarding', async () => (await api('get', `/onboard/status/${orgId}`)).body.data.status === 'completed', 120_000, 250);
}

/**
 * The worked example consolidated through the api on an onboarded organization: the ledger saved
 * as a table and the pipelines run, every suggestion accepted (`mapped` of them), P (USD, "Parent
 * Inc") owning 80 % of S (EUR, "Sub GmbH"), the rates and S's historical capital rate, and the
 * consolidation run over its three months.
 */
export async function consolidateWorkedExample(app: Express, token: string, orgId: string, { ledger = LEDGER_CSV, mapped = 11 } = {}): Promise<void> {
  const api = apiOf(app, token);
  const saved = await request(app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).field('orgID', orgId).field('tableName', 'ledger').attach('file', Buffer.from(ledger), { filename: 'ledger.csv', contentType: 'text/csv' });
  expect(saved.status).toBe(200);
  expect((await api('get', `/pipeline/run-pipeline/${orgId}`)).body.message).toBe('All pipelines ran successfully!');
  expect((await api('post', `/consolidation/${orgId}/mappings/accept-suggestions`).send({})).body.data.saved).toBe(mapped);
  expect((await api('put', `/consolidation/${orgId}/settings`).send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1 })).status).toBe(200);
  expect((await api('put', `/consolidation/${orgId}/entities/P`).send({ name: 'Parent Inc', currency: 'USD', ownership: '100', parent: null, included: true, basis: 'balances' })).status).toBe(200);
  expect((await api('put', `/consolidation/${orgId}/entities/S`).send({ name: 'Sub GmbH', currency: 'EUR', ownership: '80', parent: 'P', included: true, basis: 'balances' })).status).toBe(200);
  expect((await api('post', `/consolidation/${orgId}/rates/import`).set('Content-Type', 'text/csv').send(RATES_CSV)).body.data.saved).toBe(3);
  expect((await api('put', `/consolidation/${orgId}/historical-rates`).send({ rates: [{ entity: 'S', groupAccount: '3000', rate: '1.10' }] })).status).toBe(200);
  expect((await api('post', `/consolidation/${orgId}/run`).send({})).body.data).toMatchObject({ periods: 3, blocked: 0 });
}
