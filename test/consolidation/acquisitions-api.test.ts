// Acquisitions through the api on the real stack (Temporal dev server, FerretDB, the organization's
// SQLite database): ../shared/DOMAIN.md's example (test/helpers/acquisition-books.ts; figures
// computed by hand in test/consolidation/acquisitions.test.ts, case A) set up, consolidated by the
// worker and read back to the cent; every bad input refused with nothing changed; effective-dated
// ownership; the tenant check.
//   proportionate NCI: 2026-01 goodwill 330, NCI 330, land 660, cash 1,890, assets 2,880;
//                      2026-02 goodwill 360, NCI 432, CTA 107 (credit), NCI's profit 69, assets 3,300.
//   NCI at fair value EUR 380: 2026-02 goodwill 456, NCI 528, CTA 107, assets 3,396.
//   Without the acquisition (S's equity not marked): the investment 1,100 is marked one-sided.
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { startStack, type TestStack } from '../helpers/stack';
import { userWithToken } from '../helpers/users';
import { waitFor } from '../helpers/wait';
import { ACQUISITION_BODY, setUpAcquisitionGroup } from '../helpers/acquisition-books';
import { flowDrilldownSchema } from '../../common/contract/reports';

let stack: TestStack;
let token: string;
let orgID: string;
const uniq = (p: string) => `${p}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const api = (method: 'get' | 'put' | 'post' | 'delete', path: string, t = token) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'acquisitions-admin@example.com', role: 'admin', fullName: 'Aki Admin' }));
  const org = await Organization.create({ organizationName: 'Acquiring Co' });
  orgID = String(org._id);
  expect((await api('post', '/onboard/start').send({ orgID, containerName: uniq('acq'), databaseName: uniq('acqdb'), dataFactoryName: uniq('acqf') })).status).toBe(202);
  await waitFor('onboarding', async () => (await api('get', `/onboard/status/${orgID}`)).body.data.status === 'completed', 90_000, 250);
  await setUpAcquisitionGroup(stack.app, token, orgID);
}, 180_000);
afterAll(() => stack.stop());

async function run() {
  const r = await api('post', `/consolidation/${orgID}/run`).send({});
  expect(r.status).toBe(200);
  return r.body.data as { periods: number; blocked: number; summary: { period: string; messages: string[] }[] };
}
// suspense: the debit side's suspense account (9150), where a debit difference sits (counterparty.ts).
async function figures(period: string) {
  const data = (await api('get', `/consolidation/${orgID}/results?period=${period}`)).body.data;
  const at = (code: string) => data.rows.find((r: { groupAccount: string }) => r.groupAccount === code)?.consolidated ?? '0.00';
  return { goodwill: at('1650'), land: at('1500'), cash: at('1000'), investment: at('1700'), cta: at('3200'), nci: at('3300'), nciProfit: at('8900'), suspense: at('9150'), assets: data.check.assets, status: data.check.status, mismatches: data.mismatches };
}
const state = async () => (await api('get', `/consolidation/${orgID}/acquisitions`)).body.data;

describe('acquisitions through the api', () => {
  it('without an acquisition the investment is one-sided in the mismatch report', async () => {
    expect(await run()).toMatchObject({ periods: 2, blocked: 0 });
    const jan = await figures('2026-01');
    expect(jan.suspense).toBe('1100.00'); // the investment's debit, moved to the suspense line
    expect(jan.mismatches).toMatchObject([{ entityA: 'P', entityB: 'S', category: 'investment_equity', amountA: '1100.00', likelyCause: 'one-sided booking: only one entity recorded it' }]);
  });

  it('refuses every bad acquisition with a message naming the fault, and changes nothing', async () => {
    const before = await state();
    expect(before).toEqual({ acquisitions: [], ownershipChanges: [] });
    const put = (body: object, entity = 'S') => api('put', `/consolidation/${orgID}/acquisitions/${entity}`).send({ ...ACQUISITION_BODY, ...body });
    const cases: [string, request.Test][] = [
      ['a date that is not a month end', put({ date: '2026-01-15' })],
      ['a consideration in a third currency', put({ considerationCurrency: 'GBP' })],
      ['a consideration with a thousands separator', put({ consideration: '1,100' })],
      ['NCI at fair value without its amount', put({ nciMeasurement: 'fair_value' })],
      ['an adjustment to an unknown account', put({ adjustments: [{ groupAccount: '9999', amount: '100' }] })],
      ['an adjustment to an equity account', put({ adjustments: [{ groupAccount: '3000', amount: '100' }] })],
      ['a useful life without its amortization account', put({ adjustments: [{ groupAccount: '1600', amount: '100', usefulLifeMonths: 12 }] })],
      ['an unknown NCI method', put({ nciMeasurement: 'partial' })],
      ['a disposal', put({ disposalDate: '2026-06-30' })],
      ['a step acquisition', put({ additionalStake: '10' })],
      ['the parent without a parent of its own', put({}, 'P')],
    ];
    const answers = [];
    for (const [what, call] of cases) {
      const res = await call;
      answers.push([what, res.status, res.body.errors?.[0]?.msg ?? res.body.message]);
    }
    expect(answers).toEqual([
      ['a date that is not a month end', 400, 'Acquisition of Sub GmbH not saved: Acquisition of Sub GmbH: the acquisition date "2026-01-15" must be a month end (YYYY-MM-DD, e.g. 2026-01-31): the consolidation is monthly, and the month\'s trial balance is the equity at acquisition'],
      ['a consideration in a third currency', 400, 'Acquisition of Sub GmbH not saved: Acquisition of Sub GmbH: the consideration is in GBP; give it in EUR (the entity\'s currency) or USD (the presentation currency)'],
      ['a consideration with a thousands separator', 400, 'Acquisition of Sub GmbH not saved: The consideration must be a number below 1,000,000,000,000,000 with at most 4 decimals (got "1,100")'],
      ['NCI at fair value without its amount', 400, 'Acquisition of Sub GmbH not saved: Acquisition of Sub GmbH: NCI at fair value needs its amount (more than 0, in EUR)'],
      ['an adjustment to an unknown account', 400, 'Acquisition of Sub GmbH not saved: Acquisition of Sub GmbH, fair-value adjustment 1: group account "9999" is not in the group chart'],
      ['an adjustment to an equity account', 400, 'Acquisition of Sub GmbH not saved: Acquisition of Sub GmbH, fair-value adjustment 1: 3000 Share capital is an equity account; a fair-value adjustment is to an asset or a liability'],
      ['a useful life without its amortization account', 400, 'Acquisition of Sub GmbH not saved: Acquisition of Sub GmbH, fair-value adjustment 1: an adjustment with a useful life needs the expense account its amortization goes to'],
      ['an unknown NCI method', 400, 'NCI is measured at its proportionate share (proportionate) or at fair value (fair_value)'],
      ['a disposal', 400, 'Acquisition of Sub GmbH not saved: disposals are not supported yet (step acquisitions and disposals are not supported yet): the entity stays in the group with its acquisition as it is'],
      ['a step acquisition', 400, 'Acquisition of Sub GmbH not saved: step acquisitions (buying a further stake) are not supported yet (step acquisitions and disposals are not supported yet)'],
      ['the parent without a parent of its own', 400, 'Acquisition of Parent Inc not saved: Acquisition of Parent Inc: the entity has no parent (the acquirer): set its parent first'],
    ]);
    expect((await api('put', `/consolidation/${orgID}/acquisitions/NOPE`).send(ACQUISITION_BODY)).status).toBe(404);
    expect(await state()).toEqual(before);
  });

  it("DOMAIN.md's example with NCI at its proportionate share: goodwill 330 then 360, NCI 330 then 432, group CTA 107", async () => {
    const saved = await api('put', `/consolidation/${orgID}/acquisitions/S`).send(ACQUISITION_BODY);
    expect([saved.status, saved.body.message]).toEqual([200, 'Acquisition saved']);
    expect((await state()).acquisitions).toMatchObject([{ entity: 'S', entityName: 'Sub GmbH', date: '2026-01-31', consideration: '1100', considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [{ groupAccount: '1500', groupAccountName: 'Property, plant and equipment', amount: '100', usefulLifeMonths: null, amortizationAccount: null }], updatedBy: 'Aki Admin' }]);
    expect(await run()).toMatchObject({ periods: 2, blocked: 0 });
    expect(await figures('2026-01')).toEqual({ goodwill: '330.00', land: '660.00', cash: '1890.00', investment: '0.00', cta: '0.00', nci: '-330.00', nciProfit: '0.00', suspense: '0.00', assets: '2880.00', status: 'ok', mismatches: [] });
    expect(await figures('2026-02')).toEqual({ goodwill: '360.00', land: '720.00', cash: '2220.00', investment: '0.00', cta: '-107.00', nci: '-432.00', nciProfit: '69.00', suspense: '0.00', assets: '3300.00', status: 'ok', mismatches: [] });
    const drill = (await api('get', `/consolidation/${orgID}/drilldown?period=2026-02&groupAccount=1650`)).body.data;
    expect(drill.entries).toMatchObject([{ kind: 'acquisition', entity: 'S', amount: '360.00', memo: 'Goodwill on Sub GmbH (300 EUR at the closing rate)' }]);
  });

  // The statements beyond the balance sheet over the same outputs (figures by hand in test/reports/flows.test.ts, case A).
  // The books have no month before 2026-01: Jan-Feb opens from nothing (P's capital 2,000 comes in as financing).
  it("the statements of DOMAIN.md's example through the api: comprehensive income, changes in equity, cash flow to the cent", async () => {
    const get = async (statement: string, extra = '') => {
      const r = await api('get', `/reports/${orgID}/statements/${statement}?period=2026-02${extra}`);
      expect(r.status).toBe(200);
      return r.body.data as { title: string; columns: { key: string; label: string }[]; rows: { kind: string; label: string; values: (string | null)[] }[]; balanced: boolean[]; notices: string[] };
    };
    const at = (d: Awaited<ReturnType<typeof get>>, label: string, key: string, nth = 0) => d.rows.filter((r) => r.label === label)[nth]?.values[d.columns.findIndex((c) => c.key === key)];
    const ci = await get('comprehensive-income');
    expect(ci.title).toBe('Comprehensive income');
    expect(ci.columns.map((c) => c.label)).toEqual(['Parent Inc', 'Sub GmbH', 'Eliminations', 'Non-controlling interests', 'Consolidated']);
    expect(['Profit for the period', 'Exchange differences on translating foreign operations', 'Total comprehensive income for the period'].map((l) => at(ci, l, 'consolidated'))).toEqual(['230.00', '140.00', '370.00']);
    expect([at(ci, 'Owners of the parent', 'consolidated', 0), at(ci, 'Non-controlling interests', 'consolidated', 0), at(ci, 'Owners of the parent', 'consolidated', 1), at(ci, 'Non-controlling interests', 'consolidated', 1)]).toEqual(['161.00', '69.00', '107.00', '33.00']);
    expect(ci.balanced.every(Boolean)).toBe(true);
    const ce = await get('changes-in-equity');
    const row = (label: string) => ce.rows.find((r) => r.label === label)!.values;
    expect(row('Opening balance')).toEqual(['2000.00', '0.00', '0.00', '2000.00', '330.00', '2330.00']);
    expect(row('Closing balance')).toEqual(['2000.00', '161.00', '107.00', '2268.00', '432.00', '2700.00']);
    expect(row('Equity in the balance sheet at the end of the period')).toEqual(row('Closing balance'));
    const cf = await get('cash-flow', '&columns=consolidated');
    expect(['Net cash from operating activities', 'Cash and cash equivalents at the beginning of the period', 'Effect of exchange rate changes on cash and cash equivalents', 'Cash and cash equivalents at the end of the period', 'Cash in the balance sheet at the end of the period'].map((l) => at(cf, l, 'consolidated'))).toEqual(['230.00', '1890.00', '100.00', '2220.00', '2220.00']);
    expect(cf.balanced).toEqual([true]);
    // Year to date (Jan-Feb): opens from nothing, and says so; the acquisition one investing line net of cash acquired.
    const ytd = await get('cash-flow', '&range=ytd&columns=consolidated');
    expect(['Acquisition of Sub GmbH, net of cash acquired', 'Share capital', 'Net cash from operating activities', 'Effect of exchange rate changes on cash and cash equivalents', 'Cash and cash equivalents at the beginning of the period', 'Cash and cash equivalents at the end of the period'].map((l) => at(ytd, l, 'consolidated'))).toEqual(['-110.00', '2000.00', '230.00', '100.00', '0.00', '2220.00']);
    expect(ytd.notices).toContain('The opening balances are those at the end of December 2025, which is not consolidated: this statement starts from nothing.');
    // A comparison: February beside January, with the variance.
    const compared = await get('comprehensive-income', '&compare=prior');
    expect(compared.columns.map((c) => c.key)).toEqual(['current', 'comparison', 'variance']);
    expect(compared.rows.find((r) => r.label === 'Profit for the period')!.values).toEqual(['230.00', '0.00', '230.00']);
  });

  // Their drill-down (GET /reports/{orgId}/drilldown/{statement}), February 2026, by hand (test/reports/flows.test.ts):
  //   profit 230 = Sub GmbH's revenue 575 (EUR 500 x 1.15) + its expenses -345 (EUR 300 x 1.15);
  //   OCI 140 = Sub GmbH's CTA 100 + the eliminations' CTA 40 (the acquisition's goodwill and land);
  //   effect of exchange rates on cash 100 = Sub GmbH's cash: 1,320 - 990 less the flow EUR 200 x 1.15;
  //   Jan-Feb: the acquisition of Sub GmbH net of cash acquired -110 = Sub GmbH 990 (land -550,
  //     payables 550, capital 660, retained 330) + the acquisition's entries -1,100;
  //   changes in equity, NCI's closing 432 (the NCI entries: 330 at the acquisition + 69 + 33).
  // Changes in equity by column: Sub GmbH's block closes on 660 / 560 (330 + 230) / 100 / 1,320
  //   (its net assets: cash 1,320 + land 600 - payables 600); each block agrees with its balance sheet.
  it('the drill-down of those statements: each figure opens its entities and accounts, adding up to it to the cent', async () => {
    const drill = async (statement: string, q: string) => {
      const r = await api('get', `/reports/${orgID}/drilldown/${statement}?period=2026-02&${q}`);
      expect(r.status).toBe(200);
      return flowDrilldownSchema.parse(r.body.data);
    };
    const parts = (d: Awaited<ReturnType<typeof drill>>) => d.parts.map((p) => `${p.columnLabel} ${p.account} ${p.amount}`);
    const profit = await drill('comprehensive-income', 'line=profit&column=consolidated');
    expect(profit).toMatchObject({ label: 'Profit for the period', columnLabel: 'Consolidated', total: '230.00', rounding: null, months: ['2026-02'] });
    expect(parts(profit)).toEqual(['Sub GmbH 4000 575.00', 'Sub GmbH 6000 -345.00']);
    expect(profit.parts[0]).toMatchObject({ entity: 'S', accountName: 'Revenue' });
    const oci = await drill('comprehensive-income', 'line=oci&column=consolidated');
    expect([oci.total, ...parts(oci)]).toEqual(['140.00', 'Sub GmbH 3200 100.00', 'Eliminations 3200 40.00']);
    const fx = await drill('cash-flow', 'line=fx&column=consolidated');
    expect([fx.label, fx.total, fx.rounding, ...parts(fx)]).toEqual(['Effect of exchange rate changes on cash and cash equivalents', '100.00', null, 'Sub GmbH 1000 100.00']);
    expect(fx.note).toMatch(/own exchange difference/);
    const acq = await drill('cash-flow', 'range=ytd&columns=consolidated&line=acquisition:S&column=consolidated');
    expect(acq.total).toBe('-110.00');
    expect(parts(acq)).toEqual(['Sub GmbH 1500 -550.00', 'Sub GmbH 2000 550.00', 'Sub GmbH 3000 660.00', 'Sub GmbH 3100 330.00', 'Eliminations 1500 -110.00', 'Eliminations 1650 -330.00', 'Eliminations 3000 -660.00', 'Eliminations 3100 -330.00', 'Eliminations 3300 330.00']);
    const nci = await drill('changes-in-equity', 'line=ce:0:closing&column=nci');
    expect(nci).toMatchObject({ label: 'Closing balance', columnLabel: 'Non-controlling interests, Consolidated: February 2026', total: '432.00' });
    expect(nci.parts.reduce((t, p) => t + BigInt(p.amount.replace('.', '')), 0n)).toBe(432_00n);
    // Every drillable figure of the three statements: its drill-down's total is the figure, and its parts add up to it.
    let checked = 0;
    for (const statement of ['comprehensive-income', 'changes-in-equity', 'cash-flow']) {
      const r = (await api('get', `/reports/${orgID}/statements/${statement}?period=2026-02`)).body.data as { columns: { key: string }[]; rows: { drill?: string; values: (string | null)[] }[] };
      for (const row of r.rows.filter((x) => x.drill)) {
        for (const [i, c] of r.columns.entries()) {
          if (row.values[i] === null) continue;
          const d = await drill(statement, `line=${row.drill}&column=${c.key}`);
          expect(d.total).toBe(row.values[i]);
          expect(d.parts.reduce((t, p) => t + BigInt(p.amount.replace('.', '')), BigInt((d.rounding ?? '0.00').replace('.', '')))).toBe(BigInt(d.total.replace('.', '')));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    // Refused: a line the statement does not have, a column it does not have, a malformed line, the P&L (its drill-down is by account), another organization's user.
    expect((await api('get', `/reports/${orgID}/drilldown/cash-flow?period=2026-02&line=account:9999&column=consolidated`)).body).toMatchObject({ message: expect.stringContaining('has no line account:9999') });
    expect((await api('get', `/reports/${orgID}/drilldown/cash-flow?period=2026-02&line=fx&column=entity:NOPE`)).status).toBe(404);
    expect((await api('get', `/reports/${orgID}/drilldown/changes-in-equity?period=2026-02&line=ce:0:closing&column=consolidated`)).status).toBe(404);
    expect((await api('get', `/reports/${orgID}/drilldown/cash-flow?period=2026-02&line=${encodeURIComponent('DROP TABLE')}&column=consolidated`)).status).toBe(400);
    expect((await api('get', `/reports/${orgID}/drilldown/profit-and-loss?period=2026-02&line=profit&column=consolidated`)).status).toBe(400);
    const other = await Organization.create({ organizationName: 'Not Acquiring Ltd' });
    const { token: outsider } = await userWithToken(stack.app, { email: 'flow-drill-outsider@example.com', role: 'user', organization_id: String(other._id) });
    expect((await api('get', `/reports/${orgID}/drilldown/cash-flow?period=2026-02&line=fx&column=consolidated`, outsider)).status).toBe(403);
  });

  it('changes in equity honours ?columns: a block per column, the group first, each closing on its balance sheet', async () => {
    const r = (await api('get', `/reports/${orgID}/statements/changes-in-equity?period=2026-02&columns=entities,eliminations,nci,consolidated`)).body.data as { rows: { kind: string; label: string; values: (string | null)[] }[]; balanced: boolean[]; notices: string[] };
    expect(r.rows.filter((x) => x.kind === 'section').map((x) => x.label)).toEqual(['Consolidated: February 2026', 'Parent Inc: February 2026', 'Sub GmbH: February 2026', 'Eliminations: February 2026', 'Non-controlling interests: February 2026']);
    const closing = r.rows.filter((x) => x.label === 'Closing balance').map((x) => x.values);
    expect(closing[0]).toEqual(['2000.00', '161.00', '107.00', '2268.00', '432.00', '2700.00']);
    expect(closing[2]).toEqual(['660.00', '560.00', '100.00', '1320.00', '0.00', '1320.00']);
    // The blocks add up to the group's.
    const sum = closing.slice(1).reduce((t, v) => t.map((x, i) => x + BigInt(v[i]!.replace('.', ''))), [0n, 0n, 0n, 0n, 0n, 0n]);
    expect(sum.map((c) => c.toString())).toEqual(closing[0]!.map((v) => v!.replace('.', '')));
    expect(r.balanced.every(Boolean)).toBe(true);
    const one = (await api('get', `/reports/${orgID}/statements/changes-in-equity?period=2026-02&columns=consolidated`)).body.data as { rows: { kind: string; label: string }[] };
    expect(one.rows.filter((x) => x.kind === 'section').map((x) => x.label)).toEqual(['February 2026']);
  });

  it('NCI at fair value EUR 380: goodwill 456 (NCI 8 of its 38 exchange difference), NCI 528', async () => {
    expect((await api('put', `/consolidation/${orgID}/acquisitions/S`).send({ ...ACQUISITION_BODY, nciMeasurement: 'fair_value', nciFairValue: '380' })).status).toBe(200);
    await run();
    expect(await figures('2026-02')).toMatchObject({ goodwill: '456.00', cta: '-107.00', nci: '-528.00', nciProfit: '69.00', assets: '3396.00', status: 'ok' });
  });

  it('refuses what the acquisition cannot live with: an ownership change after it, proportional consolidation, a chart without goodwill', async () => {
    const before = await state();
    const entity = (body: object) => api('put', `/consolidation/${orgID}/entities/S`).send({ name: 'Sub GmbH', currency: 'EUR', ownership: '70', parent: 'P', included: true, basis: 'balances', ...body });
    const step = await entity({ ownership: '80', ownershipFrom: '2026-02' });
    expect([step.status, step.body.message]).toEqual([400, 'Entity Sub GmbH not saved: Acquisition of Sub GmbH: its ownership changes from 2026-02 (after the acquisition in 2026-01): a step acquisition; step acquisitions and disposals are not supported yet']);
    const disposal = await entity({ ownership: '60', ownershipFrom: '2026-02' });
    expect(disposal.body.message).toMatch(/a disposal; step acquisitions and disposals are not supported yet$/);
    const settings = await api('put', `/consolidation/${orgID}/settings`).send({ presentationCurrency: 'USD', method: 'proportional', toleranceAmount: '0', tolerancePct: '0', fiscalYearStartMonth: 1 });
    expect([settings.status, settings.body.message]).toEqual([400, 'Settings not saved: Acquisition accounting needs the full consolidation method (the group settings use proportional consolidation)']);
    const chart = (await api('get', `/consolidation/${orgID}/accounts`)).body.data.accounts as { role: string | null }[];
    const withoutGoodwill = await api('put', `/consolidation/${orgID}/accounts`).send({ accounts: chart.filter((a) => a.role !== 'goodwill') });
    expect(withoutGoodwill.body.message).toMatch(/^Group chart not saved: The group chart has no account with role goodwill/);
    expect(await state()).toEqual(before);
    expect((await api('get', `/consolidation/${orgID}`)).body.data.settings.method).toBe('full');
  });

  it('ownership is effective-dated: a change from 2026-02 leaves 2026-01 as it was', async () => {
    expect((await api('delete', `/consolidation/${orgID}/acquisitions/S`)).status).toBe(200);
    expect((await api('delete', `/consolidation/${orgID}/acquisitions/S`)).status).toBe(404);
    // Without the acquisition, S is consolidated whole: NCI 30 % of its equity (M0 900 x 1.10 = 990 -> 297).
    await run();
    const janBefore = await figures('2026-01');
    expect(janBefore.nci).toBe('-297.00');
    const dated = await api('put', `/consolidation/${orgID}/entities/S`).send({ name: 'Sub GmbH', currency: 'EUR', ownership: '90', parent: 'P', included: true, basis: 'balances', ownershipFrom: '2026-02' });
    expect(dated.status).toBe(200);
    expect((await state()).ownershipChanges).toEqual([{ entity: 'S', entityName: 'Sub GmbH', from: '2026-02', ownership: '90' }]);
    expect((await api('get', `/consolidation/${orgID}`)).body.data.entities.find((e: { entity: string }) => e.entity === 'S').ownership).toBe('70');
    await run();
    expect(await figures('2026-01')).toEqual(janBefore);
    // 2026-02: S's equity 1,100 x 1.20 = 1,320 (capital 660, retained 330, profit 230, CTA 100); NCI 10 % = 132.
    expect((await figures('2026-02')).nci).toBe('-132.00');
  });

  it("another organization's user is refused (403) and changes nothing", async () => {
    const other = await Organization.create({ organizationName: 'Other Co' });
    const { token: outsider } = await userWithToken(stack.app, { email: 'acquisitions-outsider@example.com', role: 'user', organization_id: String(other._id) });
    const before = await state();
    expect((await api('get', `/consolidation/${orgID}/acquisitions`, outsider)).status).toBe(403);
    expect((await api('put', `/consolidation/${orgID}/acquisitions/S`, outsider).send(ACQUISITION_BODY)).status).toBe(403);
    expect((await api('delete', `/consolidation/${orgID}/acquisitions/S`, outsider)).status).toBe(403);
    expect(await state()).toEqual(before);
  });
});
