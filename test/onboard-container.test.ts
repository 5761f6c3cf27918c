// The first workflow end to end: api -> Temporal dev server -> worker -> Azurite -> Mongo.
import request from 'supertest';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';

let stack: TestStack;
let adminToken: string;

beforeAll(async () => {
  stack = await startStack();
  ({ token: adminToken } = await userWithToken(stack.app, { email: 'admin@example.com', role: 'admin' }));
});
afterAll(() => stack.stop());

const createContainer = (token: string | undefined, body: unknown) => {
  const req = request(stack.app).post('/api/v1/onboard/storage/create-container');
  if (token) void req.set('Authorization', `Bearer ${token}`);
  return req.send(body as object);
};

describe('POST /api/v1/onboard/storage/create-container', () => {
  it('creates the container in Azurite through a workflow and stores it on the organization', async () => {
    const org = await Organization.create({ organizationName: 'Acme' });
    const orgID = String(org._id);
    const containerName = `acme${Date.now().toString(36).replace(/\d/g, '')}x`.slice(0, 40);
    const res = await createContainer(adminToken, { orgID, containerJson: { containerName } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: 'Container created successfully!', data: { orgID, containerName, created: true } });
    expect(await stack.blobService.getContainerClient(containerName).exists()).toBe(true);
    const saved = await Organization.findById(orgID).lean();
    expect(saved?.onboarding?.containerName).toBe(containerName);

    // The workflow ran on the dev server under its business-key ID, tagged with the organization.
    const desc = await stack.env.client.workflow.getHandle(workflowIds.onboardingStep('container', orgID)).describe();
    expect(desc.status.name).toBe('COMPLETED');
    expect(desc.searchAttributes.OrganizationId).toEqual([orgID]);

    // A second call finds the existing container instead of failing.
    const again = await createContainer(adminToken, { orgID, containerJson: JSON.stringify({ containerName }) });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: true, message: 'Container already exists', data: { orgID, containerName, created: false } });
  });

  it('rejects a bad container name with the rule, and starts nothing', async () => {
    const org = await Organization.create({ organizationName: 'Bad Name Co' });
    const res = await createContainer(adminToken, { orgID: String(org._id), containerJson: { containerName: 'Not_Valid' } });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe(false);
    expect(res.body.errors[0].msg).toBe('Container name: Must be 3 to 50 lowercase letters');
    const list = stack.env.client.workflow.list({ query: `WorkflowId = '${workflowIds.onboardingStep('container', String(org._id))}'` });
    for await (const _ of list) throw new Error('a workflow was started for invalid input');
  });

  it('answers "Organization ID is missing" without an orgID and 404 for an unknown one', async () => {
    const missing = await createContainer(adminToken, { containerJson: { containerName: 'abcdef' } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].msg).toBe('Organization ID is missing');
    const unknown = await createContainer(adminToken, { orgID: '65f000000000000000000000', containerJson: { containerName: 'abcdef' } });
    expect(unknown.status).toBe(404);
  });

  it('is admin-only: 401 without a token, 403 for a user', async () => {
    const org = await Organization.create({ organizationName: 'Tenant' });
    const { token: userToken } = await userWithToken(stack.app, { email: 'user@example.com', role: 'user', organization_id: String(org._id) });
    expect((await createContainer(undefined, { orgID: String(org._id), containerJson: { containerName: 'tenant' } })).status).toBe(401);
    expect((await createContainer(userToken, { orgID: String(org._id), containerJson: { containerName: 'tenant' } })).status).toBe(403);
  });
});
