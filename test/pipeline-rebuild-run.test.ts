// A source table the trial_balance rebuild cannot read (issue 15 item 3): on the real stack
// (api -> Temporal -> worker -> the organization's SQLite file), the run goes on without it and
// says so on the rebuild pipeline, instead of failing this run and every later one. The run also
// says the months whose figures its rebuild changed (2024-01 the first time, none the second).
import Database from 'better-sqlite3';
import request from 'supertest';
import { localDatabaseFile } from '../warehouse';
import { Organization } from '../common/models/organization';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

let stack: TestStack;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'rebuild-run-admin@example.com', role: 'admin' }));
});
afterAll(() => stack.stop());

const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const get = (path: string) => request(stack.app).get(`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

const GL = ['entity,period,account_code,account_name,debit,credit', 'acme,2024-01,1000,Cash,100.5,0', 'acme,2024-01,4000,Sales,0,100.5', ''].join('\n');

it('leaves out a table that took a connector name with other columns, with a warning on the run', async () => {
  const org = await Organization.create({ organizationName: 'Rebuild Warning Co' });
  const orgID = String(org._id);
  const body = { orgID, containerName: uniq('rbw'), databaseName: uniq('rbwdb'), dataFactoryName: uniq('rbwf') };
  expect((await request(stack.app).post('/api/v1/onboard/start').set('Authorization', `Bearer ${token}`).send(body)).status).toBe(202);
  await waitFor('onboarding', async () => (await get(`/onboard/status/${orgID}`)).body.data.status === 'completed', 120_000);

  // A CSV saved as sage_trial_balance before such names were reserved: its columns are the CSV's.
  const file = localDatabaseFile(stack.config.WAREHOUSE_DIR, body.databaseName);
  const db = new Database(file);
  db.exec(`create table sage_trial_balance (name text, amount real, "_upload_id" text not null, "_loaded_at" text not null);
    insert into sage_trial_balance values ('x', 1, 'old-upload', '2024-01-01T00:00:00.000Z');`);
  db.close();
  const text = GL;
  await stack.blobService.getContainerClient(body.containerName).getBlockBlobClient('gl.csv').upload(text, Buffer.byteLength(text));

  const res = await get(`/pipeline/run-pipeline/${orgID}`);
  expect(res.status).toBe(200);
  const run = res.body.data.run;
  expect(run.status).toBe('succeeded');
  const rebuild = run.pipelines.find((p: { name: string }) => p.name === 'rebuild-reporting-tables');
  expect(rebuild.status).toBe('succeeded');
  expect(rebuild.warnings).toHaveLength(1);
  expect(rebuild.warnings[0]).toMatch(/^Table "sage_trial_balance" was left out of trial_balance: it cannot be read as a sage source \(no such column: /);
  // What changed: the one month of the file, new in trial_balance.
  expect(rebuild.monthsChanged).toEqual(['2024-01']);
  const out = new Database(file, { readonly: true });
  try {
    expect(out.prepare('select source, account_code, net from trial_balance order by account_code').all()).toEqual([
      { source: 'csv:gl', account_code: '1000', net: 100.5 },
      { source: 'csv:gl', account_code: '4000', net: -100.5 },
    ]);
  } finally {
    out.close();
  }

  // The next run is not held up either.
  const again = await get(`/pipeline/run-pipeline/${orgID}`);
  expect(again.status).toBe(200);
  expect(again.body.data.run.pipelines[1].warnings).toEqual(rebuild.warnings);
  // Rebuilt from the same data: no month's figures changed.
  expect(again.body.data.run.pipelines[1].monthsChanged).toEqual([]);
});
