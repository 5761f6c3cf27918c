// Consolidation journals through the api on the real stack (Temporal dev server, FerretDB, the
// organization's SQLite database), on the worked example of engine.test.ts (P in USD owns 80 % of
// S in EUR; books in test/helpers/consolidation-books.ts; EUR closing/average: January 1.20/1.15,
// February 1.25/1.22, March 1.18/1.21). Figures worked by hand:
//
// A. Group level, one-off, January, "ADJ-1": Dr 6500 depreciation 100.00 / Cr 1500 PPE 100.00.
//    Adjustments column: January 6500 100.00, 1500 -100.00; February and March 1500 -100.00 and
//    retained earnings 3100 100.00 (January's expense, carried).
// B. Entity level in S, EUR, one-off, February, "ACC-S" under the two-person rule: Dr S's account
//    6000 50.00 EUR / Cr S's account 2000 50.00 EUR (an accrual S missed).
//    February: 6000 50 x 1.22 = 61.00; 2000 -50 x 1.25 = -62.50; CTA 3200 -(61.00 - 62.50) = 1.50.
//      NCI 20 %: 3200 -0.30 (20 % of 1.50), 8900 -12.20 (20 % of the 61.00 loss), 3300 +12.50.
//      Without it February's NCI is 3200 17.90 (20 % of S's CTA -89.50), 8900 36.60 (20 % of
//      S's profit 183.00), 3300 -187.50; with it 17.60, 24.40, -175.00.
//    March (carried): 2000 -50 x 1.18 = -59.00; 3100 61.00; CTA -(-59.00 + 61.00) = -2.00;
//      with A's 100.00, 3100 is 161.00.
// C. A reversed in January by "REV-ADJ-1" (approved by the other user): January's 6500 and every
//    month's 1500 back to 0.00 in the Adjustments column.
// D. Cash in transit: S's payable 2000 marked intercompany with P (receivable_payable), P has no
//    receivable: January's difference is S's -400 EUR x 1.20 = -480.00, on the suspense line 9100.
//    The mismatch's "book an adjustment" draft: Dr 9100 480.00 / Cr (the account picked) 480.00,
//    auto-reversing; booked with 1000 (cash), 9100 is 0.00 in January and -480.00 in February
//    (reversed) less February's own difference.
// Every consolidated month nets to zero and its balance sheet balances; every bad input is
// refused with a message naming its fault and nothing changed (journals, lines and audit rows).
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { JOURNAL_KINDS as CONTRACT_KINDS, JOURNAL_LEVELS as CONTRACT_LEVELS, JOURNAL_STATUSES as CONTRACT_STATUSES } from '../../common/contract/journals';
import { JOURNAL_KINDS, JOURNAL_LEVELS, JOURNAL_STATUSES } from '../../common/consolidation/journals';
import { withOrgDatabase } from '../../warehouse/connection';
import { startStack, type TestStack } from '../helpers/stack';
import { userWithToken } from '../helpers/users';
import { consolidateWorkedExample, onboardThroughApi } from '../helpers/consolidation-books';

let stack: TestStack;
let admin: string;
let other: string;
let outsider: string;
let orgID: string;
const api = (method: 'get' | 'put' | 'post' | 'delete', path: string, t = admin) => request(stack.app)[method](`/api/v1/consolidation/${orgID}${path}`).set('Authorization', `Bearer ${t}`);

beforeAll(async () => {
  stack = await startStack();
  ({ token: admin } = await userWithToken(stack.app, { email: 'journals-admin@example.com', role: 'admin', fullName: 'Connie Admin' }));
  const org = await Organization.create({ organizationName: 'Journal Group' });
  orgID = String(org._id);
  ({ token: other } = await userWithToken(stack.app, { email: 'journals-user@example.com', role: 'user', organization_id: orgID, fullName: 'Otto Org' }));
  const elsewhere = await Organization.create({ organizationName: 'Another Co' });
  ({ token: outsider } = await userWithToken(stack.app, { email: 'journals-outsider@example.com', role: 'user', organization_id: String(elsewhere._id), fullName: 'Olga Outside' }));
  await onboardThroughApi(stack.app, admin, orgID, 'jnl');
  await consolidateWorkedExample(stack.app, admin, orgID);
}, 300_000);
afterAll(() => stack.stop());

/** Journals, their lines and the audit rows as stored: what a refused change must leave alone. */
async function stored() {
  const org = await Organization.findById(orgID);
  return withOrgDatabase(stack.config, { orgId: orgID, databaseName: org!.onboarding!.databaseName! }, async ({ db }) => ({
    journals: await db.selectFrom('consolidation_journals').selectAll().orderBy('id').execute(),
    lines: await db.selectFrom('consolidation_journal_lines').selectAll().orderBy('journal_id').orderBy('line_no').execute(),
    audit: (await db.selectFrom('consolidation_audit').select('action').execute()).length,
  }));
}
const run = async () => expect((await api('post', '/run').send({})).body.data).toMatchObject({ periods: 3, blocked: 0 });
type Row = { groupAccount: string; adjustments: string; nci: string; consolidated: string };
async function results(period: string) {
  const res = await api('get', `/results?period=${period}`);
  expect(res.status).toBe(200);
  expect(res.body.data.check).toMatchObject({ status: 'ok', tbNet: '0.00' });
  expect(res.body.data.check.assets).toBe(res.body.data.check.liabilitiesAndEquity);
  const rows = res.body.data.rows as Row[];
  return { rows, adj: (g: string) => rows.find((r) => r.groupAccount === g)?.adjustments ?? '0.00', nci: (g: string) => rows.find((r) => r.groupAccount === g)?.nci ?? '0.00', con: (g: string) => rows.find((r) => r.groupAccount === g)?.consolidated ?? '0.00' };
}
const group = (reference: string, period: string, lines: [string, string, string][], extra: Record<string, unknown> = {}) => ({ reference, period, level: 'group', kind: 'one_off', lines: lines.map(([account, debit, credit]) => ({ account, debit, credit })), ...extra });

describe('consolidation journals through the api', () => {
  it('keeps the contract word lists as the engine has them', () => {
    expect([CONTRACT_LEVELS, CONTRACT_KINDS, CONTRACT_STATUSES]).toEqual([JOURNAL_LEVELS, JOURNAL_KINDS, JOURNAL_STATUSES]);
  });

  it('refuses every bad journal with a message naming its fault, and changes nothing', async () => {
    const before = await stored();
    const locked = (call: () => request.Test) => async () => {
      expect((await api('put', '/locks/2026-03')).status).toBe(200);
      try {
        return await call();
      } finally {
        expect((await api('delete', '/locks/2026-03')).status).toBe(200);
      }
    };
    const cases: [string, () => Promise<request.Response>][] = [
      ['unbalanced', () => api('post', '/journals').send(group('BAD-1', '2026-01', [['6500', '100.00', ''], ['1500', '', '90.00']]))],
      ['an unknown account', () => api('post', '/journals').send(group('BAD-2', '2026-01', [['6500', '100.00', ''], ['9999', '', '100.00']]))],
      ['a locked month', locked(() => api('post', '/journals').send(group('BAD-3', '2026-03', [['6500', '1.00', ''], ['1500', '', '1.00']])))],
      ['a month before a locked one', locked(() => api('post', '/journals').send(group('BAD-4', '2026-02', [['6500', '1.00', ''], ['1500', '', '1.00']])))],
      ['three decimals at group level', () => api('post', '/journals').send(group('BAD-5', '2026-01', [['6500', '1.005', ''], ['1500', '', '1.005']]))],
      ['a negative amount', () => api('post', '/journals').send(group('BAD-6', '2026-01', [['6500', '-5', ''], ['1500', '', '-5']]))],
      ['an entity-level journal on an account S does not have', () => api('post', '/journals').send({ ...group('BAD-7', '2026-01', [['6000', '5', ''], ['7777', '', '5']]), level: 'entity', entity: 'S' })],
      ['an entity not in the group', () => api('post', '/journals').send({ ...group('BAD-8', '2026-01', [['6000', '5', ''], ['2000', '', '5']]), level: 'entity', entity: 'ZZ' })],
      ['a level that is neither', () => api('post', '/journals').send({ ...group('BAD-9', '2026-01', [['6500', '1', ''], ['1500', '', '1']]), level: 'branch' })],
      ['a recurring journal ending before it starts', () => api('post', '/journals').send(group('BAD-10', '2026-02', [['6500', '1', ''], ['1500', '', '1']], { kind: 'recurring', recurringTo: '2026-01' }))],
      ['a CSV with one unbalanced journal', () => api('post', '/journals/import').set('Content-Type', 'text/csv').send('reference,period,account,debit,credit\nOK-1,2026-01,6500,10,\nOK-1,2026-01,1500,,10\nBAD-11,2026-01,6500,10,\nBAD-11,2026-01,1500,,9\n')],
      ["another user's organization", () => api('get', '/journals', outsider)],
    ];
    const answers = [];
    for (const [what, call] of cases) {
      const res = await call();
      answers.push([what, res.status, res.body.errors?.[0]?.msg ?? res.body.message]);
    }
    expect(answers).toEqual([
      ['unbalanced', 400, 'Journal BAD-1 not saved: The journal does not balance: debits 100 USD, credits 90 USD (difference 10)'],
      ['an unknown account', 400, 'Journal BAD-2 not saved: Line 2: account "9999" is not in the group chart'],
      ['a locked month', 400, 'Journal BAD-3 not saved: 2026-03 is locked: unlock it to book in it'],
      ['a month before a locked one', 400, "Journal BAD-4 not saved: 2026-03 is locked, and a journal of 2026-02 would change it (a journal's balances carry into later months): unlock 2026-03 or book in a later month"],
      ['three decimals at group level', 400, 'Journal BAD-5 not saved: Line 1: the debit has 3 decimals: at most 2 (got "1.005"); Line 2: the credit has 3 decimals: at most 2 (got "1.005")'],
      ['a negative amount', 400, 'Journal BAD-6 not saved: Line 1: the debit must not be negative (got "-5"): put the amount on the other side; Line 2: the credit must not be negative (got "-5"): put the amount on the other side'],
      ['an entity-level journal on an account S does not have', 400, 'Journal BAD-7 not saved: Line 2: account "7777" is neither a mapped account of Sub GmbH nor a group account'],
      ['an entity not in the group', 400, 'Journal BAD-8 not saved: Entity "ZZ" is not an entity of this group'],
      ['a level that is neither', 400, "The level is entity (in the entity's currency, before translation) or group (in the presentation currency)"],
      ['a recurring journal ending before it starts', 400, 'Journal BAD-10 not saved: The last month of a recurring journal (2026-01) is before its first (2026-02)'],
      ['a CSV with one unbalanced journal', 400, 'Journals not imported: Journal "BAD-11" (row 3): The journal does not balance: debits 10 USD, credits 9 USD (difference 1)'],
      ["another user's organization", 403, expect.any(String)],
    ]);
    // Nothing saved; the audit has only the lock and unlock of the two locked cases.
    expect(await stored()).toEqual({ ...before, audit: before.audit + 4 });
  });

  let adj1: string;
  it('books, posts and shows a one-off group journal as the Adjustments column (A)', async () => {
    const created = await api('post', '/journals').send(group('ADJ-1', '2026-01', [['6500', '100.00', ''], ['1500', '', '100.00']], { memo: 'Impairment of the Berlin press' }));
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ reference: 'ADJ-1', status: 'draft', author: 'Connie Admin', currency: 'USD', totalDebit: '100.00', totalCredit: '100.00' });
    expect(created.body.data.lines.map((l: { account: string; accountName: string }) => [l.account, l.accountName])).toEqual([
      ['6500', 'Depreciation and amortisation'],
      ['1500', 'Property, plant and equipment'],
    ]);
    adj1 = created.body.data.id;
    const posted = await api('post', `/journals/${adj1}/submit`);
    expect([posted.status, posted.body.message, posted.body.data.status]).toEqual([200, 'Journal ADJ-1 posted: run the consolidation to see it in the figures', 'posted']);
    const edit = await api('put', `/journals/${adj1}`).send(group('ADJ-1', '2026-01', [['6500', '1.00', ''], ['1500', '', '1.00']]));
    expect([edit.status, edit.body.message]).toEqual([409, 'Journal ADJ-1 not saved: journal ADJ-1 is posted; posted journals are never edited, only reversed']);
    expect((await api('delete', `/journals/${adj1}`)).status).toBe(409);
    await run();
    const jan = await results('2026-01');
    expect([jan.adj('6500'), jan.adj('1500'), jan.con('6500')]).toEqual(['100.00', '-100.00', '100.00']);
    for (const p of ['2026-02', '2026-03']) {
      const m = await results(p);
      expect([m.adj('6500'), m.adj('1500'), m.adj('3100')]).toEqual(['0.00', '-100.00', '100.00']);
    }
    // Drill-down: the journal with its memo, author and approver.
    const drill = await api('get', '/drilldown?period=2026-01&groupAccount=6500');
    expect(drill.body.data.entries.filter((x: { kind: string }) => x.kind === 'adjustment')).toEqual([
      expect.objectContaining({ amount: '100.00', memo: 'Impairment of the Berlin press', journal: expect.objectContaining({ reference: 'ADJ-1', memo: 'Impairment of the Berlin press', author: 'Connie Admin', approver: null, status: 'posted' }) }),
    ]);
    // The statements carry the column, and it balances.
    const bs = await request(stack.app).get(`/api/v1/reports/${orgID}/statements/balance-sheet?period=2026-02&range=month`).set('Authorization', `Bearer ${admin}`);
    expect(bs.body.data.columns.map((c: { label: string }) => c.label)).toContain('Adjustments');
    expect(Object.values(bs.body.data.balanced).every(Boolean)).toBe(true);
  });

  let accS: string;
  it('under the two-person rule, an entity-level journal in EUR posts only once another user approves it (B)', async () => {
    expect((await api('put', '/settings').send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1, journalApproval: true })).status).toBe(200);
    const created = await api('post', '/journals').send({ reference: 'ACC-S', period: '2026-02', level: 'entity', entity: 'S', kind: 'one_off', memo: 'Audit fee S missed', lines: [{ account: '6000', debit: '50', credit: '' }, { account: '2000', debit: '', credit: '50' }] });
    expect(created.body.data).toMatchObject({ entityName: 'Sub GmbH', currency: 'EUR', totalDebit: '50.0000' });
    accS = created.body.data.id;
    const submitted = await api('post', `/journals/${accS}/submit`);
    expect([submitted.body.message, submitted.body.data.status]).toEqual(['Journal ACC-S submitted for approval by another user', 'pending_approval']);
    const self = await api('post', `/journals/${accS}/approve`);
    expect([self.status, self.body.message]).toEqual([403, 'Journal ACC-S not approved: the two-person rule needs a user other than its author (Connie Admin) to approve it']);
    expect((await api('get', `/journals/${accS}`)).body.data.status).toBe('pending_approval');
    const approved = await api('post', `/journals/${accS}/approve`, other);
    expect([approved.status, approved.body.data.status, approved.body.data.approver]).toEqual([200, 'posted', 'Otto Org']);
    await run();
    const feb = await results('2026-02');
    expect([feb.adj('6000'), feb.adj('2000'), feb.adj('3200')]).toEqual(['61.00', '-62.50', '1.50']);
    expect([feb.nci('3200'), feb.nci('8900'), feb.con('3300')]).toEqual(['17.60', '24.40', '-175.00']);
    const mar = await results('2026-03');
    expect([mar.adj('2000'), mar.adj('3100'), mar.adj('3200')]).toEqual(['-59.00', '161.00', '-2.00']);
    const drill = await api('get', '/drilldown?period=2026-02&groupAccount=6000');
    expect(drill.body.data.entries.find((x: { kind: string }) => x.kind === 'adjustment').journal).toMatchObject({ reference: 'ACC-S', author: 'Connie Admin', approver: 'Otto Org' });
  });

  it('reverses a posted journal with a reversing journal, approved by another user (C)', async () => {
    const rev = await api('post', `/journals/${adj1}/reverse`).send({});
    expect([rev.status, rev.body.message]).toEqual([201, 'Reversal REV-ADJ-1 waiting for approval by another user']);
    expect(rev.body.data.reversal.lines.map((l: { account: string; debit: string; credit: string }) => [l.account, l.debit, l.credit])).toEqual([
      ['6500', '0.00', '100.00'],
      ['1500', '100.00', '0.00'],
    ]);
    expect((await api('post', `/journals/${adj1}/reverse`).send({})).body.message).toBe('Journal ADJ-1 not reversed: its reversal is already booked and waiting for approval');
    expect((await api('post', `/journals/${rev.body.data.reversal.id}/approve`, other)).status).toBe(200);
    const original = (await api('get', `/journals/${adj1}`)).body.data;
    expect([original.status, original.reversedBy]).toEqual(['reversed', rev.body.data.reversal.id]);
    await run();
    for (const p of ['2026-01', '2026-02', '2026-03']) {
      const m = await results(p);
      expect([p, m.adj('6500'), m.adj('1500')]).toEqual([p, '0.00', '0.00']);
    }
    expect((await results('2026-03')).adj('3100')).toBe('61.00');
    expect((await api('put', '/settings').send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1, journalApproval: false })).status).toBe(200);
  });

  it('clears a mismatch with the adjustment the mismatch report offers: cash in transit (D)', async () => {
    expect((await api('put', '/mappings').send({ mappings: [{ entity: 'S', sourceAccount: '2000', groupAccount: '2000', icCounterparty: 'P', icCategory: 'receivable_payable' }] })).status).toBe(200);
    await run();
    const before = await results('2026-01');
    expect(before.con('9100')).toBe('-480.00');
    const pre = await api('get', '/journals/prefill?period=2026-01&entityA=P&entityB=S&category=receivable_payable');
    expect(pre.body.data).toMatchObject({ reference: 'IC-2026-01-P-S', level: 'group', kind: 'reversing', memo: 'Cash in transit between Parent Inc and Sub GmbH', origin: 'mismatch:2026-01/P~S/receivable_payable' });
    expect(pre.body.data.lines.map((l: { account: string; debit: string; credit: string }) => [l.account, l.debit, l.credit])).toEqual([
      ['9100', '480.00', ''],
      ['', '', '480.00'],
    ]);
    const lines = pre.body.data.lines.map((l: { account: string }) => ({ ...l, account: l.account || '1000' }));
    const booked = await api('post', '/journals').send({ ...pre.body.data, lines });
    expect(booked.status).toBe(201);
    expect((await api('post', `/journals/${booked.body.data.id}/submit`)).body.data.status).toBe('posted');
    await run();
    const jan = await results('2026-01');
    expect([jan.con('9100'), jan.adj('1000')]).toEqual(['0.00', '-480.00']);
    expect((await api('get', '/journals/prefill?period=2026-01&entityA=P&entityB=Q&category=loan')).status).toBe(404);
  });

  it('exports journals as CSV and imports them back as drafts', async () => {
    const csv = await api('get', '/journals/export?period=2026-02');
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    expect(csv.text.split('\n').slice(0, 3)).toEqual([
      'reference,period,level,entity,kind,recurring_to,status,memo,account,counterparty,debit,credit,line_memo,author,approver',
      'ACC-S,2026-02,entity,S,one_off,,posted,Audit fee S missed,6000,,50.0000,,,Connie Admin,Otto Org',
      'ACC-S,2026-02,entity,S,one_off,,posted,Audit fee S missed,2000,,,50.0000,,Connie Admin,Otto Org',
    ]);
    const imported = await api('post', '/journals/import').set('Content-Type', 'text/csv').send('reference,period,level,entity,kind,recurring_to,account,debit,credit\nDEP-1,2026-01,group,,recurring,2026-03,6500,10.00,\nDEP-1,2026-01,group,,recurring,2026-03,1500,,10.00\nACC-2,2026-02,entity,S,reversing,,6000,20,\nACC-2,2026-02,entity,S,reversing,,2000,,20\n');
    expect([imported.status, imported.body.message]).toEqual([200, 'Journals imported as drafts: 2']);
    const list = (await api('get', '/journals?status=draft')).body.data.journals;
    expect(list.map((j: { reference: string; kind: string; recurringTo: string | null }) => [j.reference, j.kind, j.recurringTo])).toEqual([
      ['DEP-1', 'recurring', '2026-03'],
      ['ACC-2', 'reversing', null],
    ]);
    const again = await api('post', '/journals/import').set('Content-Type', 'text/csv').send('reference,period,account,debit,credit\nDEP-1,2026-01,6500,1,\nDEP-1,2026-01,1500,,1\n');
    expect(again.body.message).toBe('Journals not imported: Journal "DEP-1" (row 1): the reference is already used by another journal');
    // A draft is deleted; its audit says who.
    expect((await api('delete', `/journals/${list[1].id}`)).status).toBe(200);
    expect((await api('get', '/journals?status=draft')).body.data.journals).toHaveLength(1);
  });
});
