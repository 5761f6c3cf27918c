// The api's short-lived caches (issue 17): the signed-in user, read once per request and kept a few
// seconds (revocation still takes effect at once in the process that revoked, and after the cache's
// expiry elsewhere), and the organization lists (a change shows at once).
import mongoose from 'mongoose';
import request from 'supertest';
import { Organization } from '../common/models/organization';
import { User } from '../common/models/user';
import { expireCachedUsers } from '../api/lib/auth';
import { startStack, type TestStack } from './helpers/stack';
import { TEST_PASSWORD, userWithToken } from './helpers/users';

let stack: TestStack;
let adminToken: string;
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@api-caches.example.com`;

beforeAll(async () => {
  stack = await startStack();
  adminToken = (await userWithToken(stack.app, { email: addr('admin'), role: 'admin' })).token;
});
afterAll(() => stack.stop());

const get = (path: string, token: string) => request(stack.app).get(`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

describe('the cached signed-in user', () => {
  it('answers the profile from the user auth() read, and sees a profile change at once', async () => {
    const { token } = await userWithToken(stack.app, { email: addr('profile'), fullName: 'Ada Lovelace' });
    expect((await get('/user/profile', token)).body.data.user.fullName).toBe('Ada Lovelace');
    const me = (await get('/user/profile', token)).body.data.user.id as string;
    const put = await request(stack.app).put(`/api/v1/auth/profile/${me}`).set('Authorization', `Bearer ${token}`).send({ fullName: 'Ada King' });
    expect(put.status).toBe(200);
    expect((await get('/user/profile', token)).body.data.user.fullName).toBe('Ada King');
  });

  it('refuses the old token at once after a password change', async () => {
    const { token } = await userWithToken(stack.app, { email: addr('password') });
    expect((await get('/user/profile', token)).status).toBe(200);
    const res = await request(stack.app).post('/api/v1/user/change-password').set('Authorization', `Bearer ${token}`).send({ currentPassword: TEST_PASSWORD, newPassword: 'N3w@Passw0rd!', confirmPassword: 'N3w@Passw0rd!' });
    expect(res.status).toBe(200);
    expect((await get('/user/profile', token)).status).toBe(401);
    expect((await get('/user/profile', res.body.data.token as string)).status).toBe(200);
  });

  it('applies a role change and an organization change to the next request at once', async () => {
    const org = await Organization.create({ organizationName: `Cache Org ${run}` });
    const { user, token } = await userWithToken(stack.app, { email: addr('moved'), organization_id: String(org._id) });
    expect((await get(`/organization/${org._id}`, token)).status).toBe(200);
    expect((await get('/user', token)).status).toBe(403);

    const promoted = await request(stack.app).put(`/api/v1/user/update/${user._id}`).set('Authorization', `Bearer ${adminToken}`).send({ role: 'admin' });
    expect(promoted.status).toBe(200);
    expect((await get('/user', token)).status).toBe(200);

    const demoted = await request(stack.app).put(`/api/v1/user/update/${user._id}`).set('Authorization', `Bearer ${adminToken}`).send({ role: 'user', organization_id: null });
    expect(demoted.status).toBe(200);
    expect((await get('/user', token)).status).toBe(403);
    expect((await get(`/organization/${org._id}`, token)).status).toBe(403);
  });

  it('refuses the token of a deleted user at once', async () => {
    const { user, token } = await userWithToken(stack.app, { email: addr('deleted') });
    expect((await get('/user/profile', token)).status).toBe(200);
    await User.deleteOne({ _id: user._id });
    expect((await get('/user/profile', token)).status).toBe(401);
  });

  it('sees a change another process made once its entry expires', async () => {
    const { user, token } = await userWithToken(stack.app, { email: addr('elsewhere') });
    expect((await get('/user/profile', token)).status).toBe(200);
    // Another api process revokes: it writes straight to the store, which this process does not hear.
    await mongoose.connection.collection('users').updateOne({ _id: user._id }, { $inc: { tokenVersion: 1 } });
    expireCachedUsers();
    expect((await get('/user/profile', token)).status).toBe(401);
  });
});

describe('the cached organization list', () => {
  it('shows an added organization, a rename and an onboarding step at once', async () => {
    const list = async (name: string) => (await get(`/organization?page=1&name=${encodeURIComponent(name)}`, adminToken)).body.data;
    const name = `Listed ${run}`;
    expect((await list(name)).total).toBe(0);
    const added = await request(stack.app).post('/api/v1/organization/add').set('Authorization', `Bearer ${adminToken}`).send({ organizationName: name, organizationEmail: `listed.${run}@example.com`, organizationPhoneNumber: '(555) 010-2030', organizationAddress: '1 Main Street' });
    expect(added.status).toBe(201);
    const first = await list(name);
    expect(first.total).toBe(1);
    const id = first.organizations[0].id as string;

    const renamed = await request(stack.app).put(`/api/v1/organization/${id}`).set('Authorization', `Bearer ${adminToken}`).send({ organizationName: `${name} Renamed` });
    expect(renamed.status).toBe(200);
    expect((await list(name)).organizations.map((o: { organizationName: string }) => o.organizationName)).toEqual([`${name} Renamed`]);

    // The profile's organization name, kept for the header, follows too.
    const { token } = await userWithToken(stack.app, { email: addr('member'), organization_id: id });
    expect((await get('/user/profile', token)).body.data.organization.organizationName).toBe(`${name} Renamed`);
    await request(stack.app).put(`/api/v1/organization/${id}`).set('Authorization', `Bearer ${adminToken}`).send({ organizationName: `${name} Again` });
    expect((await get('/user/profile', token)).body.data.organization.organizationName).toBe(`${name} Again`);

    // As the worker's onboarding activities write it (through the same model).
    await Organization.updateOne({ _id: id }, { $set: { 'onboarding.containerName': `listed-${run}` } });
    expect((await list(name)).organizations[0].onboarding).toMatchObject({ containerName: `listed-${run}` });
  });
});
