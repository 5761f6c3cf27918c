// What both connectors share: scheduled batch syncs on Temporal Schedules, and the connector
// tables replaced atomically in the organization's SQL database.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import request from 'supertest';
import { monthEnd, monthRanges, recentMonths } from '../activities/connectors/periods';
import { syncScheduleId } from '../api/lib/schedules';
import { connectorTables } from '../warehouse/catalog/connector-tables';
import { createWarehouse, localDatabaseFile } from '../warehouse';
import { Organization } from '../common/models/organization';
import { FakeIntacct } from '../simulators/intacct';
import { syncRunsOf } from './helpers/runs';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';

let stack: TestStack;
let fake: FakeIntacct;

beforeAll(async () => {
  fake = await new FakeIntacct().start();
  fake.addCompany('sched-co', 'ws_user', 'Pa55word!', 7);
  stack = await startStack({ SAGE_ENDPOINT_URL: fake.url, SYNC_HISTORY_MONTHS: '2' });
});
afterAll(async () => {
  await stack.stop();
  await fake.stop();
});

async function until<T>(fn: () => Promise<T | null | undefined>, what: string, ms = 60000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('scheduled batch syncs', () => {
  it('runs the sync from the connection schedule, tagged with the organization, and records it as scheduled', async () => {
    const databaseName = `sched${Date.now().toString(36)}`;
    const org = await Organization.create({ organizationName: 'Scheduled', onboarding: { databaseName } });
    const orgId = String(org._id);
    const { token } = await userWithToken(stack.app, { email: 'sched@example.com', role: 'user', organization_id: orgId });
    const created = await request(stack.app)
      .post('/api/v1/sage')
      .set({ Authorization: `Bearer ${token}` })
      .send({ sageUserID: 'ws_user', sageUserPassword: 'Pa55word!', sageSenderID: fake.senderId, sageSenderPassword: fake.senderPassword, sageCompanyID: 'sched-co', syncIntervalHours: 12 });
    expect(created.status).toBe(201);
    const accountId: string = created.body.data.id;
    const handle = stack.env.client.schedule.getHandle(syncScheduleId('sage', accountId));
    const desc = await handle.describe();
    expect(desc.spec.intervals![0]!.every).toBe(12 * 3600 * 1000);
    expect(desc.policies.overlap).toBe('SKIP');
    expect(desc.searchAttributes.OrganizationId).toEqual([orgId]);

    await handle.trigger();
    const run = await until(async () => (await syncRunsOf(stack.config, orgId, 'sage', accountId)).find((r) => r.trigger === 'schedule' && r.status !== 'running'), 'the scheduled run');
    expect(run).toMatchObject({ status: 'succeeded', rowsTotal: 7 + 7 * 2 });
    expect(run.workflowId.startsWith(`sync-sage-${accountId}`)).toBe(true);
    const wf = await stack.env.client.workflow.getHandle(run.workflowId).describe();
    expect(wf.searchAttributes.OrganizationId).toEqual([orgId]);

    // Deleting the connection deletes its schedule.
    expect((await request(stack.app).delete(`/api/v1/sage/${accountId}`).set({ Authorization: `Bearer ${token}` })).status).toBe(200);
    await expect(handle.describe()).rejects.toThrow();
  });
});

describe('an organization without a SQL database yet', () => {
  it('fails the sync with the onboarding message (no history: runs are kept in that database)', async () => {
    const org = await Organization.create({ organizationName: 'Not onboarded' });
    const { token } = await userWithToken(stack.app, { email: 'notonboarded@example.com', role: 'user', organization_id: String(org._id) });
    const auth = { Authorization: `Bearer ${token}` };
    const created = await request(stack.app).post('/api/v1/sage').set(auth).send({ sageUserID: 'ws_user', sageUserPassword: 'Pa55word!', sageSenderID: fake.senderId, sageSenderPassword: fake.senderPassword, sageCompanyID: 'sched-co' });
    expect(created.status).toBe(201);
    const res = await request(stack.app).get(`/api/v1/sage/data?id=${created.body.data.id}`).set(auth);
    expect(res.status).toBe(502);
    expect(res.body.errors[0].msg).toBe('Failed to sync Sage account: This organization has no SQL database yet: an admin must onboard it first.');
    const runs = await request(stack.app).get(`/api/v1/sage/sync-runs?id=${created.body.data.id}`).set(auth);
    expect(runs.status).toBe(200);
    expect(runs.body.data.runs).toEqual([]);
  });
});

describe('connector tables in the organization SQL database', () => {
  const months = ['2025-01', '2025-02'];
  const tb = (period: string, account: string, debit: number) => ({ realm_id: 'r1', period, account_id: account, account_name: `A${account}`, debit, credit: 0, synced_at: '2025-03-01T00:00:00Z' });

  it('replaces exactly the fetched periods of one realm and keeps the rest', async () => {
    const name = `w${Date.now().toString(36)}a`;
    const db = await createWarehouse(stack.config).openConnectorWriter({ orgId: 'test', databaseName: name });
    try {
      await db.replace([{ table: connectorTables.quickbooksTrialBalance, scopeValue: 'r1', periods: months, rows: months.flatMap((p) => [tb(p, '1', 10), tb(p, '2', 20)]) }]);
      await db.replace([{ table: connectorTables.quickbooksTrialBalance, scopeValue: 'r2', periods: ['2025-01'], rows: [{ ...tb('2025-01', '9', 1), realm_id: 'r2' }] }]);
      // A re-run of February only: January and the other realm are untouched, February is not doubled.
      await db.replace([{ table: connectorTables.quickbooksTrialBalance, scopeValue: 'r1', periods: ['2025-02'], rows: [tb('2025-02', '1', 11)] }]);
    } finally {
      await db.close();
    }
    const read = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, name), { readonly: true });
    const rows = read.prepare('select realm_id, period, account_id, debit from quickbooks_trial_balance order by realm_id, period, account_id').all();
    read.close();
    expect(rows).toEqual([
      { realm_id: 'r1', period: '2025-01', account_id: '1', debit: 10 },
      { realm_id: 'r1', period: '2025-01', account_id: '2', debit: 20 },
      { realm_id: 'r1', period: '2025-02', account_id: '1', debit: 11 },
      { realm_id: 'r2', period: '2025-01', account_id: '9', debit: 1 },
    ]);
  });

  it('writes nothing when any table of the replacement fails', async () => {
    const name = `w${Date.now().toString(36)}b`;
    mkdirSync(stack.config.WAREHOUSE_DIR, { recursive: true });
    const first = await createWarehouse(stack.config).openConnectorWriter({ orgId: 'test', databaseName: name });
    await first.replace([{ table: connectorTables.quickbooksTrialBalance, scopeValue: 'r1', periods: months, rows: [tb('2025-01', '1', 10)] }]);
    await first.close();
    // A balance-sheet table whose rows the database refuses (a constraint the writer does not
    // know): inserting into it fails inside the transaction. (A missing column no longer fails:
    // the writer adds the columns a table's definition gained.)
    const raw = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, name));
    raw.exec("create table quickbooks_balance_sheet (realm_id text, period text, section text check (section <> 'Assets'), account_id text, account_name text, amount real, synced_at text)");
    raw.close();
    const db = await createWarehouse(stack.config).openConnectorWriter({ orgId: 'test', databaseName: name });
    await expect(
      db.replace([
        { table: connectorTables.quickbooksTrialBalance, scopeValue: 'r1', periods: months, rows: [tb('2025-01', '1', 99), tb('2025-02', '1', 99)] },
        { table: connectorTables.quickbooksBalanceSheet, scopeValue: 'r1', periods: months, rows: [{ realm_id: 'r1', period: '2025-01', section: 'Assets', account_id: '1', account_name: 'Cash', amount: 5, synced_at: 'x' }] },
      ]),
      // (Not toThrow(): better-sqlite3's native part keeps the error class of the first test file
      // that loaded it in this jest worker, so its errors fail instanceof Error in later files.)
    ).rejects.toHaveProperty('message', expect.stringMatching(/CHECK constraint failed/));
    // Rows outside the replaced periods or scope are refused before anything is written.
    await expect(db.replace([{ table: connectorTables.quickbooksTrialBalance, scopeValue: 'r1', periods: ['2025-01'], rows: [tb('2025-02', '1', 1)] }])).rejects.toThrow(/outside the replaced periods/);
    await expect(db.replace([{ table: connectorTables.quickbooksTrialBalance, scopeValue: 'r1', periods: ['2025-01'], rows: [{ ...tb('2025-01', '1', 1), realm_id: 'r9' }] }])).rejects.toThrow(/outside scope/);
    await db.close();
    const read = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, name), { readonly: true });
    expect(read.prepare('select period, debit from quickbooks_trial_balance').all()).toEqual([{ period: '2025-01', debit: 10 }]);
    read.close();
  });
});

describe('periods', () => {
  it('cuts the months into ranges of at most six', () => {
    const months = recentMonths(new Date(Date.UTC(2025, 1, 15)), 14);
    expect(months[0]).toBe('2024-01');
    expect(months.at(-1)).toBe('2025-02');
    expect(monthRanges(months).map((r) => r.length)).toEqual([6, 6, 2]);
    expect(monthEnd('2024-02')).toBe('2024-02-29');
    expect(monthEnd('2025-12')).toBe('2025-12-31');
  });
});
