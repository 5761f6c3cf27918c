// Issue 15 items 7, 8 and 12 (Temporal down): one rule for organization ids on every route,
// onboarding steps in order with a status that agrees with them, and a quick 503 while the
// workflow service cannot be reached.
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../api/app';
import { TEMPORAL_UNAVAILABLE, createTemporalClient } from '../api/lib/temporal';
import { Organization } from '../common/models/organization';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { freePort } from './helpers/wait';

let stack: TestStack;
let adminToken: string;

beforeAll(async () => {
  stack = await startStack();
  ({ token: adminToken } = await userWithToken(stack.app, { email: 'ids-admin@example.com', role: 'admin' }));
});
afterAll(() => stack.stop());

const call = (app: Express, method: 'get' | 'post', path: string, body?: object) => {
  const r = request(app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${adminToken}`);
  return body ? r.send(body) : r;
};

/** A well-formed id no organization has. */
const UNKNOWN = '0123456789abcdef01234567';

describe('organization ids: malformed 400 naming the id, unknown 404', () => {
  const routes: [string, (id: string) => string][] = [
    ['QuickBooks accounts', (id) => `/quickbooks/accounts?organization_id=${id}`],
    ['Sage accounts', (id) => `/sage?organization_id=${id}`],
    ['onboarding status', (id) => `/onboard/status/${id}`],
    ['pipelines', (id) => `/pipeline/list-pipelines/${id}`],
    ['pipeline runs', (id) => `/pipeline/runs/${id}`],
    ['files', (id) => `/pipeline/list-files/${id}`],
  ];

  it.each(routes)('%s', async (_name, path) => {
    const unknown = await call(stack.app, 'get', path(UNKNOWN));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: false, message: 'Organization not found' });

    const malformed = await call(stack.app, 'get', path('0'));
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].msg).toBe('Organization ID "0" is not a valid organization id');
  });
});

describe('onboarding steps run in order', () => {
  it('refuses a step before the previous one is done, starting nothing, and the status adds the steps up', async () => {
    const org = await Organization.create({ organizationName: 'Out of order' });
    const orgID = String(org._id);

    const db = await call(stack.app, 'post', '/onboard/sql/create-database', { orgID, databaseJson: { databaseName: 'outoforder' } });
    expect(db.status).toBe(409);
    expect(db.body.message).toBe('Create the storage container first: onboarding runs in order (storage container, SQL database, data factory, template import).');
    const factory = await call(stack.app, 'post', '/onboard/data-factory/create', { orgID, dataFactoryJson: { dataFactoryName: 'outoforder' } });
    expect(factory.status).toBe(409);
    expect(factory.body.message).toMatch(/^Create the SQL database first/);
    for await (const _ of stack.env.client.workflow.list({ query: `OrganizationId = '${orgID}'` })) throw new Error('a workflow was started for a step out of order');
    expect((await Organization.findById(orgID).lean())?.onboarding?.databaseName).toBeFalsy();

    const none = await call(stack.app, 'get', `/onboard/status/${orgID}`);
    expect(none.body.data.status).toBe('not_started');

    const container = await call(stack.app, 'post', '/onboard/storage/create-container', { orgID, containerJson: { containerName: 'outoforder' } });
    expect(container.status).toBe(200);
    const some = await call(stack.app, 'get', `/onboard/status/${orgID}`);
    expect(some.body.data.status).toBe('incomplete');
    expect(some.body.data.steps.map((s: { status: string }) => s.status)).toEqual(['done', 'pending', 'pending', 'pending']);

    // The import names a factory: an organization found by it must have its factory step done.
    const imp = await call(stack.app, 'post', '/onboard/data-factory/import', { orgID, factoryName: 'outoforder', databaseName: 'outoforder', containerName: 'outoforder' });
    expect(imp.status).toBe(409);
    expect(imp.body.message).toMatch(/^Create the data factory first/);
  });
});

describe('while Temporal cannot be reached', () => {
  it('answers 503 with the reason instead of a late 500', async () => {
    const org = await Organization.create({ organizationName: 'No Temporal', onboarding: { containerName: 'c', databaseName: 'd', dataFactoryName: 'f', pipelines: [{ name: 'load-uploaded-csvs', activities: [] }] } });
    const orgID = String(org._id);
    // Nothing listens on this port: the api's own connection settings (short retries).
    const { client, connection } = createTemporalClient({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, TEMPORAL_NAMESPACE: 'default' });
    const app = createApp({ ...stack.deps, temporal: client });
    try {
      for (const path of [`/onboard/status/${orgID}`, `/pipeline/run-pipeline/${orgID}`]) {
        const res = await call(app, 'get', path);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ status: false, message: TEMPORAL_UNAVAILABLE });
        expect(res.headers['retry-after']).toBe('30');
      }
    } finally {
      // The lazy connection's own connect attempt may still be backing off: closing the channel
      // under it would make its next try throw into whichever test runs next in this process.
      await new Promise((r) => setTimeout(r, 3000));
      await connection.close().catch(() => undefined);
    }
  });
});
