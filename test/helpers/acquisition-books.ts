// The books of ../shared/DOMAIN.md's acquisition example (test/consolidation/acquisitions.test.ts,
// case A): P (USD) buys 70 % of S (EUR) at the end of 2026-01 for USD 1,100; S's land gets a
// fair-value adjustment of EUR 100. As a CSV a user saves as a table (the default chart's codes, so
// every mapping suggestion is "same code"), the EUR rates, and the calls that set the group up
// (without the acquisition: the tests set it up through the api or the browser). Shared by the api
// and the browser tests.
import type { Express } from 'express';
import request from 'supertest';

const ROWS: [string, string, string, string, string, number][] = [];
const book = (entity: string, period: string, lines: Record<string, [string, string, number]>) => {
  for (const [code, [name, type, net]] of Object.entries(lines)) ROWS.push([entity, period, code, name, type, net]);
};
for (const period of ['2026-01', '2026-02']) book('P', period, { '1000': ['Cash', 'asset', 900], '1700': ['Investment in S', 'asset', 1100], '3000': ['Share capital', 'equity', -2000] });
book('S', '2026-01', { '1000': ['Bank', 'asset', 900], '1500': ['Land', 'asset', 500], '2000': ['Creditors', 'liability', -500], '3000': ['Capital', 'equity', -600], '3100': ['Retained earnings', 'equity', -300] });
book('S', '2026-02', { '1000': ['Bank', 'asset', 1100], '1500': ['Land', 'asset', 500], '2000': ['Creditors', 'liability', -500], '3000': ['Capital', 'equity', -600], '3100': ['Retained earnings', 'equity', -300], '4000': ['Revenue', 'income', -500], '6000': ['Expenses', 'expense', 300] });

export const ACQUISITION_LEDGER_CSV = ['entity,period,account_code,account_name,account_type,debit,credit,currency', ...ROWS.map(([e, p, c, n, t, net]) => `${e},${p},${c},${n},${t},${net > 0 ? net : 0},${net < 0 ? -net : 0},${e === 'P' ? 'USD' : 'EUR'}`), ''].join('\n');
export const ACQUISITION_RATES_CSV = 'currency,period,closing,average\nEUR,2026-01,1.10,1.08\nEUR,2026-02,1.20,1.15\n';
/** The acquisition as the api takes it (proportionate NCI). */
export const ACQUISITION_BODY = { date: '2026-01-31', consideration: '1100', considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [{ groupAccount: '1500', amount: '100', usefulLifeMonths: null, amortizationAccount: null }] };

/**
 * The group set up on an onboarded organization: the ledger saved and the pipelines run, every
 * suggestion accepted (10), P's investment marked investment/equity with S, P "Parent Inc" (USD)
 * owning 70 % of S "Sub GmbH" (EUR), the rates saved. No acquisition yet.
 */
export async function setUpAcquisitionGroup(app: Express, token: string, orgId: string): Promise<void> {
  const api = (method: 'get' | 'put' | 'post', path: string) => request(app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);
  const saved = await request(app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).field('orgID', orgId).field('tableName', 'ledger').attach('file', Buffer.from(ACQUISITION_LEDGER_CSV), { filename: 'ledger.csv', contentType: 'text/csv' });
  expect(saved.status).toBe(200);
  expect((await api('get', `/pipeline/run-pipeline/${orgId}`)).body.message).toBe('All pipelines ran successfully!');
  expect((await api('post', `/consolidation/${orgId}/mappings/accept-suggestions`).send({})).body.data.saved).toBe(10);
  expect((await api('put', `/consolidation/${orgId}/mappings`).send({ mappings: [{ entity: 'P', sourceAccount: '1700', groupAccount: '1700', icCounterparty: 'S', icCategory: 'investment_equity' }] })).status).toBe(200);
  expect((await api('put', `/consolidation/${orgId}/settings`).send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '0', tolerancePct: '0', fiscalYearStartMonth: 1 })).status).toBe(200);
  expect((await api('put', `/consolidation/${orgId}/entities/P`).send({ name: 'Parent Inc', currency: 'USD', ownership: '100', parent: null, included: true, basis: 'balances' })).status).toBe(200);
  expect((await api('put', `/consolidation/${orgId}/entities/S`).send({ name: 'Sub GmbH', currency: 'EUR', ownership: '70', parent: 'P', included: true, basis: 'balances' })).status).toBe(200);
  expect((await api('post', `/consolidation/${orgId}/rates/import`).set('Content-Type', 'text/csv').send(ACQUISITION_RATES_CSV)).body.data.saved).toBe(2);
}
