// Saved histories of the account sync workflows (test/histories/sync-*.json) replay against
// today's workflow code, so a change that would break syncs in flight fails the suite (use
// patched() for such a change). test/replay.test.ts replays them too, with every other one.
//
// To record them again: RECORD_HISTORIES=1 npm test -- test/sync-replay.test.ts
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { FakeIntacct } from '../simulators/intacct';
import { FakeIntuit } from '../simulators/intuit';
import { startStack, testConfig, workflowBundle, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';

const DIR = join(__dirname, 'histories');
const RECORD = process.env.RECORD_HISTORIES === '1';
const mine = () =>
  readdirSync(DIR)
    .filter((f) => /^sync-.*\.json$/.test(f))
    .sort();

(RECORD ? describe : describe.skip)('recording sync histories', () => {
  let stack: TestStack;
  let intuit: FakeIntuit;
  let intacct: FakeIntacct;
  beforeAll(async () => {
    intuit = await new FakeIntuit().start();
    intacct = await new FakeIntacct().start();
    intuit.addCompany('4620816365000000001', 'Recorded Books', 6);
    intacct.addCompany('recorded-co', 'ws', 'Pa55word!', 6);
    stack = await startStack({ ...intuit.env(), SAGE_ENDPOINT_URL: intacct.url, SYNC_HISTORY_MONTHS: '7', SYNC_THROTTLE_RETRY_SECONDS: '0.5' });
  });
  afterAll(async () => {
    await stack.stop();
    await intuit.stop();
    await intacct.stop();
  });

  it('records QuickBooks and Sage syncs, succeeded and failed', async () => {
    const org = await Organization.create({ organizationName: 'Recorded', onboarding: { databaseName: `rec${Date.now().toString(36)}` } });
    const orgId = String(org._id);
    const { token } = await userWithToken(stack.app, { email: 'sync-recorder@example.com', role: 'user', organization_id: orgId });
    const api = () => request(stack.app);
    const auth = { Authorization: `Bearer ${token}` };
    const save = async (name: string, workflowId: string) => {
      const history = await stack.env.client.workflow.getHandle(workflowId).fetchHistory();
      writeFileSync(join(DIR, `${name}.json`), `${JSON.stringify(JSON.parse(JSON.stringify(history)), null, 1)}\n`);
    };

    const connect = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(auth);
    const state = new URL(connect.body.data.authorizeUrl).searchParams.get('state');
    const added = await api().post('/api/v1/quickbooks/token-exchange').set(auth).send({ code: intuit.issueCode('4620816365000000001'), state, realmId: '4620816365000000001' });
    const qbId: string = added.body.data.account.id;
    expect((await api().post('/api/v1/quickbooks').set(auth).send({ id: qbId, organization_id: orgId })).status).toBe(200);
    await save('sync-quickbooks-succeeded', workflowIds.quickbooksSync(qbId));
    intuit.inject(/reports\/BalanceSheet/, { status: 200, body: 'not json' });
    expect((await api().post('/api/v1/quickbooks').set(auth).send({ id: qbId, organization_id: orgId })).status).toBe(502);
    await save('sync-quickbooks-failed', workflowIds.quickbooksSync(qbId));

    const sage = await api().post('/api/v1/sage').set(auth).send({ sageUserID: 'ws', sageUserPassword: 'Pa55word!', sageSenderID: intacct.senderId, sageSenderPassword: intacct.senderPassword, sageCompanyID: 'recorded-co' });
    const sageId: string = sage.body.data.id;
    expect((await api().get(`/api/v1/sage/data?id=${sageId}`).set(auth)).status).toBe(200);
    await save('sync-sage-succeeded', workflowIds.sageSync(sageId));
    intacct.inject('get_trialbalance', { errorno: 'BL01001973', description: 'Recorded failure' });
    expect((await api().get(`/api/v1/sage/data?id=${sageId}`).set(auth)).status).toBe(502);
    await save('sync-sage-failed', workflowIds.sageSync(sageId));
  });
});

describe('saved sync histories replay against the current workflow code', () => {
  it('keeps succeeded and failed histories of both sync workflows', () => {
    // NetSuite's are recorded by test/netsuite.test.ts (RECORD_HISTORIES=1).
    expect(mine()).toEqual(['sync-netsuite-failed.json', 'sync-netsuite-succeeded.json', 'sync-quickbooks-failed.json', 'sync-quickbooks-succeeded.json', 'sync-sage-failed.json', 'sync-sage-succeeded.json']);
  });

  it.each(mine())('%s', async (file) => {
    const json = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { events: unknown[] };
    expect(json.events.length).toBeGreaterThan(10);
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle(testConfig()) }, temporal.api.history.v1.History.fromObject(json), file);
  });
});
