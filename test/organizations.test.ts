// Organizations: admin list/add/update, a user sees only its own; dashboards as a list or an
// escaped JSON string; against the real app and FerretDB.
import request from 'supertest';
import { AuditRecord } from '../common/models/audit';
import { organizationSchema } from '../common/contract/organizations';
import { Organization } from '../common/models/organization';
import { messages } from '../common/validation';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';

let stack: TestStack;
let adminToken: string;
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@orgs.example.com`;

beforeAll(async () => {
  stack = await startStack();
  ({ token: adminToken } = await userWithToken(stack.app, { email: addr('admin'), role: 'admin' }));
});
afterAll(() => stack.stop());

const auth = (token?: string) => (token ? { Authorization: `Bearer ${token}` } : {});
const add = (body: object, token = adminToken) => request(stack.app).post('/api/v1/organization/add').set(auth(token)).send(body);
const update = (id: string, body: object, token = adminToken) => request(stack.app).put(`/api/v1/organization/${id}`).set(auth(token)).send(body);
const list = (query = '', token = adminToken) => request(stack.app).get(`/api/v1/organization${query}`).set(auth(token));

const validOrg = (name: string) => ({
  organizationName: name,
  organizationEmail: `finance@${name.toLowerCase().replace(/\W/g, '')}.example.com`,
  organizationPhoneNumber: '(555) 010-2030',
  organizationAddress: '1 Main Street',
  organizationDescription: 'A client',
});

describe('POST /api/v1/organization/add', () => {
  it('creates it: data.createdOrganization, audited', async () => {
    const dashboards = [{ name: 'Overview', url: 'https://app.powerbi.com/view?r=abc' }];
    const res = await add({ ...validOrg(`Acme ${run}`), dashboards: JSON.stringify(dashboards) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: true, message: 'Organization created successfully' });
    const created = res.body.data.createdOrganization;
    expect(created).toMatchObject({ organizationName: `Acme ${run}`, organizationPhoneNumber: '5550102030', organizationAddress: '1 Main Street', dashboards });
    expect(created.id).toMatch(/^[a-f0-9]{24}$/);
    expect(await Organization.exists({ _id: created.id })).toBeTruthy();
    const record = await AuditRecord.findOne({ action: 'organization.create', targetId: created.id }).lean();
    expect(record).toMatchObject({ actorEmail: addr('admin'), targetType: 'organization', after: { organizationName: `Acme ${run}` } });
  });

  it('refuses a duplicate name (any case) with 409', async () => {
    await add(validOrg(`Dupe ${run}`));
    const res = await add(validOrg(`DUPE ${run}`));
    expect(res.status).toBe(409);
    expect(res.body.errors[0].msg).toBe('An organization with this name already exists');
    expect(await Organization.countDocuments({ organizationName: { $regex: `^dupe ${run}$`, $options: 'i' } })).toBe(1);
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['missing name', { organizationName: undefined }, messages.organizationNameRequired],
    ['blank name', { organizationName: '   ' }, messages.organizationNameRequired],
    ['name too long', { organizationName: 'n'.repeat(101) }, messages.organizationName],
    ['name with a line break', { organizationName: 'Two\nLines' }, messages.organizationName],
    ['missing email', { organizationEmail: undefined }, messages.emailRequired],
    ['bad email', { organizationEmail: 'finance@acme' }, messages.email],
    ['missing phone', { organizationPhoneNumber: undefined }, messages.phoneRequired],
    ['phone with letters', { organizationPhoneNumber: 'call me' }, messages.phoneFormat],
    ['phone of 11 digits', { organizationPhoneNumber: '555010203040' }, messages.phoneDigits],
    ['address too long', { organizationAddress: 'a'.repeat(301) }, messages.address],
    ['description too long', { organizationDescription: 'd'.repeat(1001) }, messages.description],
    ['dashboards not JSON', { dashboards: '[{name: Overview}]' }, messages.dashboardsJson],
    ['dashboards JSON of an object', { dashboards: '{"name":"a","url":"https://x.example.com"}' }, messages.dashboardsList],
    ['dashboard without url', { dashboards: [{ name: 'a' }] }, messages.dashboardUrl],
    ['dashboard with a data: url', { dashboards: [{ name: 'a', url: 'data:text/html,<script>1</script>' }] }, messages.dashboardUrl],
  ];
  it.each(bad)('rejects %s with 400 and writes nothing', async (_label, change, msg) => {
    const before = await Organization.countDocuments();
    const res = await add({ ...validOrg(`Bad ${run}`), ...change });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: false, errors: [{ msg }] });
    expect(await Organization.countDocuments()).toBe(before);
  });

  it('rejects a body that is not an object', async () => {
    const res = await request(stack.app).post('/api/v1/organization/add').set(auth(adminToken)).send([1, 2]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toBe('Request body must be a JSON object');
  });
});

describe('the organization answer is the shared contract (common/contract/organizations.ts), which the web app types from', () => {
  it('answers created, listed and single organizations exactly as the schema says', async () => {
    const created = await add({ ...validOrg(`Contract ${run}`), dashboards: [{ name: 'Board', url: 'https://app.powerbi.com/view?r=x' }] });
    expect(created.status).toBe(201);
    const org = organizationSchema.strict().parse(created.body.data.createdOrganization);
    const one = await request(stack.app).get(`/api/v1/organization/${org.id}`).set(auth(adminToken));
    expect(organizationSchema.strict().parse(one.body.data.organization).id).toBe(org.id);
    const list = await request(stack.app).get('/api/v1/organization').set(auth(adminToken));
    for (const o of list.body.data.organizations) organizationSchema.strict().parse(o);
  });
});

describe('PUT /api/v1/organization/{id}', () => {
  it('updates it: data.updatedOrganization, audited with before and after', async () => {
    const id = (await add(validOrg(`Beta ${run}`))).body.data.createdOrganization.id as string;
    const res = await update(id, { organizationDescription: 'Now bigger', dashboards: '[{"name":"P&L","url":"https://bi.example.com/pl"}]' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: 'Organization updated successfully' });
    expect(res.body.data.updatedOrganization).toMatchObject({ id, organizationName: `Beta ${run}`, organizationDescription: 'Now bigger', dashboards: [{ name: 'P&L', url: 'https://bi.example.com/pl' }] });
    const record = await AuditRecord.findOne({ action: 'organization.update', targetId: id }).lean();
    expect(record).toMatchObject({ before: { organizationDescription: 'A client', dashboards: [] }, after: { organizationDescription: 'Now bigger' } });
    // Clearing the dashboards with an empty string.
    expect((await update(id, { dashboards: '' })).body.data.updatedOrganization.dashboards).toEqual([]);
  });

  it('validates id and fields, writes nothing on failure, and 404s an unknown id', async () => {
    const id = (await add(validOrg(`Gamma ${run}`))).body.data.createdOrganization.id as string;
    await add(validOrg(`Delta ${run}`));
    const cases: [object, string][] = [
      [{ dashboards: '[{"name":"x","url":"https://x.example.com"}' }, messages.dashboardsJson],
      [{ organizationEmail: 'no' }, messages.email],
      [{ organizationPhoneNumber: '123' }, messages.phoneDigits],
      [{ organizationName: '' }, messages.organizationNameRequired],
      [{}, 'Nothing to update'],
    ];
    for (const [body, msg] of cases) {
      const res = await update(id, body);
      expect([res.status, res.body.errors?.[0]?.msg]).toEqual([400, msg]);
    }
    expect((await update(id, { organizationName: `delta ${run}` })).status).toBe(409);
    expect((await update('abc', { organizationDescription: 'x' })).body.errors[0].msg).toBe('Invalid organization ID');
    expect((await update('65f000000000000000000000', { organizationDescription: 'x' })).status).toBe(404);
    expect(await Organization.findById(id).lean()).toMatchObject({ organizationName: `Gamma ${run}`, organizationDescription: 'A client', dashboards: [] });
  });
});

describe('GET /api/v1/organization', () => {
  let east: string;
  let west: string;
  beforeAll(async () => {
    east = (await add({ ...validOrg(`Eastwind ${run}`), organizationPhoneNumber: '555-777-0001' })).body.data.createdOrganization.id;
    west = (await add({ ...validOrg(`Westwind ${run}`), organizationEmail: `books.${run}@westwind.example.com` })).body.data.createdOrganization.id;
  });

  it('answers data.organizations: admin sees all, filtered by name, email and phone', async () => {
    const all = await list();
    expect(all.status).toBe(200);
    const ids = all.body.data.organizations.map((o: { id: string }) => o.id);
    expect(ids).toEqual(expect.arrayContaining([east, west]));
    const names = (r: request.Response) => r.body.data.organizations.map((o: { organizationName: string }) => o.organizationName);
    expect(names(await list(`?name=${encodeURIComponent(`WIND ${run}`)}`))).toEqual([`Eastwind ${run}`, `Westwind ${run}`]);
    expect(names(await list(`?email=${encodeURIComponent(`books.${run}`)}`))).toEqual([`Westwind ${run}`]);
    expect(names(await list(`?phone=5557770001&name=${run}`))).toEqual([`Eastwind ${run}`]);
    expect(names(await list(`?name=${encodeURIComponent('(')}`))).toEqual([]);
  });

  it('with a page: 10 per page and the counts (the Organizations screen); without, every match', async () => {
    for (let i = 1; i <= 11; i++) await Organization.create({ organizationName: `Paged ${run} ${String(i).padStart(2, '0')}` });
    const first = await list(`?name=${encodeURIComponent(`Paged ${run}`)}&page=1`);
    expect(first.body.data).toMatchObject({ page: 1, pageSize: 10, total: 11, pages: 2 });
    expect(first.body.data.organizations).toHaveLength(10);
    const second = await list(`?name=${encodeURIComponent(`Paged ${run}`)}&page=2`);
    expect(second.body.data.organizations.map((o: { organizationName: string }) => o.organizationName)).toEqual([`Paged ${run} 11`]);
    expect((await list(`?name=${encodeURIComponent(`Paged ${run}`)}`)).body.data.organizations).toHaveLength(11);
    expect((await list('?page=0')).body.errors[0].msg).toBe('Page must be a positive number');
  });

  it('answers a user only its own organization, whatever the filters', async () => {
    const { token } = await userWithToken(stack.app, { email: addr('eastuser'), organization_id: east });
    const own = await list('', token);
    expect(own.status).toBe(200);
    expect(own.body.data.organizations.map((o: { id: string }) => o.id)).toEqual([east]);
    expect((await list(`?name=Westwind`, token)).body.data.organizations).toEqual([]);
    // Without an organization: nothing.
    const { token: loner } = await userWithToken(stack.app, { email: addr('loner') });
    expect((await list('', loner)).body.data.organizations).toEqual([]);
    // One organization by id: own 200, another 403.
    expect((await request(stack.app).get(`/api/v1/organization/${east}`).set(auth(token))).body.data.organization.id).toBe(east);
    expect((await request(stack.app).get(`/api/v1/organization/${west}`).set(auth(token))).status).toBe(403);
  });

  it('never answers onboarding secrets', async () => {
    await Organization.updateOne({ _id: east }, { $set: { 'onboarding.containerName': 'eastwind', 'onboarding.sqlAdminPasswordEnc': 'v1:secret', 'onboarding.blobToSqlConnectionStringEnc': 'v1:conn' } });
    const res = await list(`?name=Eastwind`);
    expect(res.body.data.organizations[0].onboarding).toEqual({ containerName: 'eastwind' });
    expect(JSON.stringify(res.body)).not.toContain('v1:');
  });

  it('validates the filters', async () => {
    expect((await list('?name=a&name=b')).body.errors[0].msg).toBe('The name filter must be a single value');
    expect((await list(`?phone=${'1'.repeat(31)}`)).body.errors[0].msg).toBe('The phone filter is too long');
  });

  it('is admin-only to add and update', async () => {
    const { token } = await userWithToken(stack.app, { email: addr('user'), organization_id: east });
    expect((await add(validOrg(`Sneaky ${run}`), token)).status).toBe(403);
    expect((await update(east, { organizationDescription: 'mine now' }, token)).status).toBe(403);
    expect(await Organization.exists({ organizationName: `Sneaky ${run}` })).toBeNull();
  });
});
