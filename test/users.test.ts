// Users: admin add / self sign-up, profile, change password, list, admin update, against the
// real app and FerretDB.
import type { Express } from 'express';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../api/app';
import { outboxDir } from '../api/lib/mail';
import { listedUserSchema, loginSchema, profileSchema, userListSchema, userSchema } from '../common/contract/users';
import { AuditRecord } from '../common/models/audit';
import { Organization } from '../common/models/organization';
import { User } from '../common/models/user';
import { messages } from '../common/validation';
import { startStack, type TestStack } from './helpers/stack';
import { TEST_PASSWORD, userWithToken } from './helpers/users';

let stack: TestStack;
let adminToken: string;
let adminId: string;
let orgA: string;
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@users.example.com`;

beforeAll(async () => {
  stack = await startStack();
  const admin = await userWithToken(stack.app, { email: addr('admin'), role: 'admin', fullName: 'Grace Hopper' });
  adminToken = admin.token;
  adminId = String(admin.user._id);
  orgA = String((await Organization.create({ organizationName: `Org A ${run}`, dashboards: [{ name: 'Sales', url: 'https://bi.example.com/sales' }] }))._id);
});
afterAll(() => stack.stop());

function mailsTo(to: string): string[] {
  const dir = outboxDir(stack.config);
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
  } catch {
    return [];
  }
  return files
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .filter((raw) => raw.slice(0, raw.indexOf('\n\n')).includes(`To: ${to}`))
    .map((raw) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))));
}

const as = (token: string | undefined) => ({
  get: (p: string) => withToken(request(stack.app).get(p), token),
  post: (p: string, body?: object) => withToken(request(stack.app).post(p), token).send(body),
  put: (p: string, body?: object) => withToken(request(stack.app).put(p), token).send(body),
});
function withToken(req: request.Test, token: string | undefined) {
  return token ? req.set('Authorization', `Bearer ${token}`) : req;
}

const validNewUser = (email: string) => ({ fullName: 'New Person', email, phoneNumber: '(555) 123-4567', role: 'user', organization_id: orgA });

describe('POST /api/v1/user (admin: add user)', () => {
  it('creates the user with role and organization, invites by mail, and audits the change', async () => {
    const email = addr('added');
    const res = await as(adminToken).post('/api/v1/user', { ...validNewUser(email), role: 'admin' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: true, message: 'User created successfully', data: { invitationSent: true } });
    expect(res.body.data.user).toMatchObject({ fullName: 'New Person', fullname: 'New Person', firstName: 'New', lastName: 'Person', email, phoneNumber: '5551234567', role: 'admin', organization_id: orgA });
    expect(JSON.stringify(res.body)).not.toMatch(/passwordHash|tokenVersion|\$2[aby]\$/);

    const record = await AuditRecord.findOne({ action: 'user.create', targetId: res.body.data.user.id }).lean();
    expect(record).toMatchObject({ actorEmail: addr('admin'), actorRole: 'admin', targetType: 'user' });
    expect((record!.after as Record<string, unknown>).email).toBe(email);
    expect(JSON.stringify(record)).not.toMatch(/passwordHash|tokenVersion|\$2[aby]\$/);

    // The invitation carries a link with which the new user chooses a password, then signs in.
    const mail = mailsTo(email);
    expect(mail).toHaveLength(1);
    const token = /\/reset-password\/([a-f0-9]{64})/.exec(mail[0]!)![1]!;
    expect((await request(stack.app).post('/api/v1/auth/reset-password').send({ token, password: 'Chosen1@pw' })).status).toBe(200);
    expect((await request(stack.app).post('/api/v1/auth/login').send({ email, password: 'Chosen1@pw' })).status).toBe(200);
  });

  it('accepts fullname as the name field and a password set by the admin (no invitation)', async () => {
    const email = addr('withpw');
    const res = await as(adminToken).post('/api/v1/user', { fullname: 'Pat Smith', email, phoneNumber: '5551234567', password: 'Given1@pw', confirmPassword: 'Given1@pw' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ invitationSent: false, user: { fullName: 'Pat Smith', role: 'user', organization_id: null } });
    expect(mailsTo(email)).toHaveLength(0);
    // Stored as argon2id (common/passwords.ts), at the tests' cost.
    expect((await User.findOne({ email }).select('+passwordHash').lean())!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect((await request(stack.app).post('/api/v1/auth/login').send({ email, password: 'Given1@pw' })).status).toBe(200);
  });

  it('refuses a taken email with 409', async () => {
    const before = await User.countDocuments();
    const res = await as(adminToken).post('/api/v1/user', validNewUser(addr('ADMIN')));
    expect(res.status).toBe(409);
    expect(res.body.errors[0].msg).toBe('Email is already registered');
    expect(await User.countDocuments()).toBe(before);
  });

  const badInputs: [string, Record<string, unknown>, string][] = [
    ['missing name', { fullName: undefined }, messages.nameRequired],
    ['name with digits', { fullName: 'J0hn' }, messages.name],
    ['missing email', { email: undefined }, messages.emailRequired],
    ['bad email', { email: 'a@b.c' }, messages.email],
    ['missing phone', { phoneNumber: undefined }, messages.phoneRequired],
    ['phone with letters', { phoneNumber: '555-abc-1234' }, messages.phoneFormat],
    ['phone of 9 digits', { phoneNumber: '555123456' }, messages.phoneDigits],
    ['bad role', { role: 'root' }, messages.role],
    ['malformed organization', { organization_id: 'x' }, 'Invalid organization ID'],
    ['unknown organization', { organization_id: '65f000000000000000000000' }, 'Organization not found'],
    ['weak password', { password: 'password1' }, messages.password],
    ['short password', { password: 'Ab1@' }, messages.passwordLength],
    ['confirm mismatch', { password: 'Given1@pw', confirmPassword: 'Given2@pw' }, messages.passwordsMatch],
    ['bad dashboards JSON', { dashboards: '[{"name": "x",' }, messages.dashboardsJson],
    ['dashboard with a javascript: url', { dashboards: [{ name: 'x', url: 'javascript:alert(1)' }] }, messages.dashboardUrl],
    ['pipeline too long', { pipeline: 'p'.repeat(201) }, messages.pipeline],
  ];
  it.each(badInputs)('rejects %s with 400 and writes nothing', async (_label, change, msg) => {
    const before = await User.countDocuments();
    const res = await as(adminToken).post('/api/v1/user', { ...validNewUser(addr('bad')), ...change });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: false, errors: [{ msg }] });
    expect(await User.countDocuments()).toBe(before);
  });

  it('is 403 for a user, 401 for a bad token (never a sign-up), 403 for anonymous while sign-up is off', async () => {
    const { token } = await userWithToken(stack.app, { email: addr('plain'), organization_id: orgA });
    expect((await as(token).post('/api/v1/user', validNewUser(addr('byuser')))).status).toBe(403);
    expect((await as('garbage').post('/api/v1/user', validNewUser(addr('bytoken')))).status).toBe(401);
    const anon = await as(undefined).post('/api/v1/user', { ...validNewUser(addr('anon')), password: 'Given1@pw' });
    expect(anon.status).toBe(403);
    expect(anon.body.errors[0].msg).toBe('Sign-up is disabled: ask an administrator for an account');
    expect(await User.exists({ email: addr('anon') })).toBeNull();
  });
});

describe('self sign-up (SELF_SIGNUP=true)', () => {
  let signupApp: Express;
  beforeAll(() => {
    signupApp = createApp({ ...stack.deps, config: { ...stack.config, SELF_SIGNUP: true } });
  });

  it('always creates role user with no organization, whatever the body says', async () => {
    const email = addr('self');
    const res = await request(signupApp).post('/api/v1/user').send({ fullName: 'Self Starter', email, phoneNumber: '5551234567', password: 'Self1@pass', role: 'admin', organization_id: orgA, dashboards: [{ name: 'x', url: 'https://x.example.com' }] });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Account created successfully');
    expect(res.body.data.user).toMatchObject({ role: 'user', organization_id: null, dashboards: [] });
    const saved = await User.findOne({ email }).lean();
    expect(saved).toMatchObject({ role: 'user', organization_id: null });
    expect((await request(signupApp).post('/api/v1/auth/login').send({ email, password: 'Self1@pass' })).status).toBe(200);
  });

  it('requires a password', async () => {
    const res = await request(signupApp).post('/api/v1/user').send({ fullName: 'No Pass', email: addr('nopass'), phoneNumber: '5551234567' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toBe('Password is required');
    expect(await User.exists({ email: addr('nopass') })).toBeNull();
  });
});

describe('GET /api/v1/user/profile and PUT /api/v1/auth/profile/{userId}', () => {
  it('answers the signed-in user with its organization name', async () => {
    const { token } = await userWithToken(stack.app, { email: addr('me'), organization_id: orgA, fullName: 'Me Myself' });
    const res = await as(token).get('/api/v1/user/profile');
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ email: addr('me'), fullName: 'Me Myself', fullname: 'Me Myself', organization_id: orgA });
    expect(res.body.data.organization).toMatchObject({ id: orgA, organizationName: `Org A ${run}`, dashboards: [{ name: 'Sales', url: 'https://bi.example.com/sales' }] });
  });

  it('lets a user change its own profile only; an admin any (audited)', async () => {
    const me = await userWithToken(stack.app, { email: addr('own'), organization_id: orgA });
    const other = await userWithToken(stack.app, { email: addr('other'), organization_id: orgA });
    const mine = await as(me.token).put(`/api/v1/auth/profile/${me.user._id}`, { fullname: 'Renamed Person', phoneNumber: '555.987.6543' });
    expect(mine.status).toBe(200);
    expect(mine.body.data.user).toMatchObject({ fullName: 'Renamed Person', fullname: 'Renamed Person', phoneNumber: '5559876543' });
    const theirs = await as(me.token).put(`/api/v1/auth/profile/${other.user._id}`, { fullName: 'Hijacked' });
    expect(theirs.status).toBe(403);
    expect((await User.findById(other.user._id).lean())!.fullName).toBe('Test User');
    // A user cannot promote itself through the profile: role is not a profile field.
    await as(me.token).put(`/api/v1/auth/profile/${me.user._id}`, { fullName: 'Still User', role: 'admin', organization_id: null });
    expect(await User.findById(me.user._id).lean()).toMatchObject({ role: 'user', organization_id: me.user.organization_id });

    const byAdmin = await as(adminToken).put(`/api/v1/auth/profile/${other.user._id}`, { email: addr('other2') });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.data.user.email).toBe(addr('other2'));
    const record = await AuditRecord.findOne({ action: 'user.profile.update', targetId: String(other.user._id) }).lean();
    expect(record).toMatchObject({ actorEmail: addr('admin'), before: { email: addr('other') }, after: { email: addr('other2') } });
  });

  it('validates the profile body and the user id', async () => {
    const me = await userWithToken(stack.app, { email: addr('val'), organization_id: orgA });
    const put = (body: object, id = String(me.user._id)) => as(me.token).put(`/api/v1/auth/profile/${id}`, body);
    expect((await put({ fullName: 'B4d' })).body.errors[0].msg).toBe(messages.name);
    expect((await put({ phoneNumber: '' })).body.errors[0].msg).toBe(messages.phoneRequired);
    expect((await put({ phoneNumber: '12345' })).body.errors[0].msg).toBe(messages.phoneDigits);
    expect((await put({ email: 'nope' })).body.errors[0].msg).toBe(messages.email);
    expect((await put({})).body.errors[0].msg).toBe('Nothing to update');
    const taken = await put({ email: addr('admin') });
    expect(taken.status).toBe(409);
    expect((await as(adminToken).put('/api/v1/auth/profile/not-an-id', { fullName: 'X' })).body.errors[0].msg).toBe('Invalid user ID');
    expect((await as(adminToken).put('/api/v1/auth/profile/65f000000000000000000000', { fullName: 'Nobody' })).status).toBe(404);
    expect(await User.findById(me.user._id).lean()).toMatchObject({ fullName: 'Test User', email: addr('val') });
  });
});

describe('POST /api/v1/user/change-password', () => {
  it('checks the current password, the rule and the confirmation; then ends older sessions', async () => {
    const email = addr('changer');
    const { token } = await userWithToken(stack.app, { email });
    const change = (body: object) => as(token).post('/api/v1/user/change-password', body);
    const wrong = await change({ currentPassword: 'Wrong1@pw', newPassword: 'Fresh1@pw', confirmPassword: 'Fresh1@pw' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].msg).toBe('Current password is incorrect');
    expect((await change({ currentPassword: TEST_PASSWORD, newPassword: 'Fresh1@pw', confirmPassword: 'Fresh2@pw' })).body.errors[0].msg).toBe(messages.passwordsMatch);
    expect((await change({ currentPassword: TEST_PASSWORD, newPassword: 'freshpass', confirmPassword: 'freshpass' })).body.errors[0].msg).toBe(messages.password);
    expect((await change({ newPassword: 'Fresh1@pw', confirmPassword: 'Fresh1@pw' })).body.errors[0].msg).toBe(messages.currentPasswordRequired);
    expect((await change({ currentPassword: TEST_PASSWORD, newPassword: 'Fresh1@pw' })).body.errors[0].msg).toBe(messages.confirmPasswordRequired);
    expect((await change({ currentPassword: TEST_PASSWORD, newPassword: TEST_PASSWORD, confirmPassword: TEST_PASSWORD })).body.errors[0].msg).toBe('New password must be different from the current password');
    // Nothing changed so far.
    expect((await as(token).get('/api/v1/user/profile')).status).toBe(200);

    const ok = await change({ currentPassword: TEST_PASSWORD, newPassword: 'Fresh1@pw', confirmPassword: 'Fresh1@pw' });
    expect(ok.status).toBe(200);
    expect(ok.body.data.expiresIn).toBe(stack.config.JWT_EXPIRES_IN);
    expect((await as(token).get('/api/v1/user/profile')).status).toBe(401);
    expect((await as(ok.body.data.token as string).get('/api/v1/user/profile')).status).toBe(200);
    expect((await request(stack.app).post('/api/v1/auth/login').send({ email, password: 'Fresh1@pw' })).status).toBe(200);
    expect((await request(stack.app).post('/api/v1/auth/login').send({ email, password: TEST_PASSWORD })).status).toBe(401);
    expect(await AuditRecord.exists({ action: 'user.password.change' })).toBeTruthy();
  });
});

describe('GET /api/v1/user (admin list)', () => {
  let orgL: string;
  beforeAll(async () => {
    orgL = String((await Organization.create({ organizationName: `Listed ${run}` }))._id);
    const docs = Array.from({ length: 12 }, (_v, i) => ({
      fullName: `Lister ${String.fromCharCode(65 + i)} Person`,
      email: addr(`list${i}`),
      role: i === 0 ? 'admin' : 'user',
      organization_id: orgL,
      passwordHash: 'x',
    }));
    await User.insertMany(docs);
  });
  const list = (query: string) => as(adminToken).get(`/api/v1/user${query}`);

  it('pages by 10 with page, total and pages', async () => {
    const p1 = await list(`?organization=${orgL}`);
    expect(p1.status).toBe(200);
    expect(p1.body.data).toMatchObject({ page: 1, pageSize: 10, total: 12, pages: 2 });
    expect(p1.body.data.users).toHaveLength(10);
    expect(p1.body.data.users[0]).toMatchObject({ fullName: 'Lister A Person', fullname: 'Lister A Person', organizationName: `Listed ${run}` });
    expect(JSON.stringify(p1.body)).not.toMatch(/passwordHash|tokenVersion/);
    const p2 = await list(`?organization=${orgL}&page=2`);
    expect(p2.body.data.users.map((u: { fullName: string }) => u.fullName)).toEqual(['Lister K Person', 'Lister L Person']);
    expect((await list(`?organization=${orgL}&page=3`)).body.data.users).toEqual([]);
  });

  it('filters by name (any case), email, role and organization', async () => {
    expect((await list(`?name=lister b`)).body.data.users.map((u: { email: string }) => u.email)).toEqual([addr('list1')]);
    expect((await list(`?email=${encodeURIComponent(`LIST11.${run}`)}`)).body.data.total).toBe(1);
    expect((await list(`?organization=${orgL}&role=admin`)).body.data.users.map((u: { email: string }) => u.email)).toEqual([addr('list0')]);
    expect((await list(`?name=.*`)).body.data.total).toBe(0);
    expect((await list(`?name=&role=`)).status).toBe(200);
  });

  it('validates the filters', async () => {
    expect((await list('?role=root')).body.errors[0].msg).toBe(messages.role);
    expect((await list('?page=0')).body.errors[0].msg).toBe('Page must be a positive number');
    expect((await list('?page=abc')).body.errors[0].msg).toBe('Page must be a positive number');
    expect((await list('?organization=zzz')).body.errors[0].msg).toBe('Invalid organization ID');
    expect((await list('?name=a&name=b')).body.errors[0].msg).toBe('The name filter must be a single value');
    expect((await list(`?email=${'e'.repeat(300)}`)).body.errors[0].msg).toBe('The email filter is too long');
  });
});

describe('the user answer is the shared contract (common/contract/users.ts), which the web app types from', () => {
  it('answers listed, profile, signed-in and created users exactly as the schema says', async () => {
    const email = addr('contract');
    const created = await as(adminToken).post('/api/v1/user', { ...validNewUser(email), fullName: 'Contract Person', password: 'Given1@pw', confirmPassword: 'Given1@pw' });
    expect(created.status).toBe(201);
    const user = userSchema.strict().parse(created.body.data.user);
    expect(user).toMatchObject({ email, role: 'user', organization_id: orgA });

    const list = await as(adminToken).get('/api/v1/user');
    expect(list.status).toBe(200);
    userListSchema.strict().parse(list.body.data);
    expect(list.body.data.users.length).toBeGreaterThan(0);
    for (const u of list.body.data.users) listedUserSchema.strict().parse(u);
    const inOrg = await as(adminToken).get(`/api/v1/user?organization=${orgA}`);
    const listed = inOrg.body.data.users.map((u: unknown) => listedUserSchema.strict().parse(u));
    expect(listed.find((u: { id: string }) => u.id === user.id)).toMatchObject({ organizationName: `Org A ${run}` });

    // With an organization (the new user) and without one (the admin).
    const login = await request(stack.app).post('/api/v1/auth/login').send({ email, password: 'Given1@pw' });
    expect(login.status).toBe(200);
    userSchema.strict().parse(loginSchema.strict().parse(login.body.data).user);
    for (const token of [login.body.data.token as string, adminToken]) {
      const profile = await as(token).get('/api/v1/user/profile');
      expect(profile.status).toBe(200);
      const parsed = profileSchema.strict().parse(profile.body.data);
      userSchema.strict().parse(profile.body.data.user);
      expect(parsed.organization?.id ?? null).toBe(parsed.user.organization_id);
    }
  });
});

describe('PUT /api/v1/user/update/{userId} (admin)', () => {
  it('updates pipeline, email, fullname and dashboards (also as an escaped JSON string), audited', async () => {
    const { user } = await userWithToken(stack.app, { email: addr('upd'), organization_id: orgA });
    const dashboards = [{ name: 'Cash', url: 'https://bi.example.com/cash' }];
    const res = await as(adminToken).put(`/api/v1/user/update/${user._id}`, { pipeline: 'daily-close', email: addr('upd2'), fullname: 'Updated Name', dashboards: JSON.stringify(dashboards) });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ pipeline: 'daily-close', email: addr('upd2'), fullName: 'Updated Name', fullname: 'Updated Name', dashboards });
    const record = await AuditRecord.findOne({ action: 'user.update', targetId: String(user._id) }).lean();
    expect(record).toMatchObject({ actorEmail: addr('admin'), before: { email: addr('upd'), pipeline: '' }, after: { email: addr('upd2'), pipeline: 'daily-close' } });
    expect(JSON.stringify(record)).not.toMatch(/passwordHash|tokenVersion/);

    // Role and organization too; organization null detaches.
    const moved = await as(adminToken).put(`/api/v1/user/update/${user._id}`, { role: 'admin', organization_id: null });
    expect(moved.body.data.user).toMatchObject({ role: 'admin', organization_id: null });
  });

  it('validates every field and writes nothing on failure', async () => {
    const { user } = await userWithToken(stack.app, { email: addr('updbad'), organization_id: orgA });
    const put = (body: object) => as(adminToken).put(`/api/v1/user/update/${user._id}`, body);
    const cases: [object, string][] = [
      [{ dashboards: '{not json' }, messages.dashboardsJson],
      [{ dashboards: [{ name: '', url: 'https://x.example.com' }] }, messages.dashboardName],
      [{ dashboards: { name: 'a', url: 'https://x.example.com' } }, messages.dashboardsList],
      [{ email: 'x@y' }, messages.email],
      [{ fullname: 'N4me' }, messages.name],
      [{ pipeline: 5 }, messages.pipeline],
      [{ role: 'superuser' }, messages.role],
      [{ organization_id: 'nope' }, 'Invalid organization ID'],
      [{}, 'Nothing to update'],
    ];
    for (const [body, msg] of cases) {
      const res = await put(body);
      expect([res.status, res.body.errors?.[0]?.msg]).toEqual([400, msg]);
    }
    expect((await put({ email: addr('admin') })).status).toBe(409);
    expect((await as(adminToken).put('/api/v1/user/update/123', { pipeline: 'x' })).body.errors[0].msg).toBe('Invalid user ID');
    expect((await as(adminToken).put('/api/v1/user/update/65f000000000000000000000', { pipeline: 'x' })).status).toBe(404);
    expect(await User.findById(user._id).lean()).toMatchObject({ email: addr('updbad'), pipeline: '', dashboards: [], role: 'user' });
  });

  it('keeps at least one admin', async () => {
    // Demote every other admin first, then the last one cannot lose the role.
    const others = await User.find({ role: 'admin', _id: { $ne: adminId } }).lean();
    for (const o of others) await User.updateOne({ _id: o._id }, { $set: { role: 'user' } });
    const res = await as(adminToken).put(`/api/v1/user/update/${adminId}`, { role: 'user' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toBe('The last admin cannot lose the admin role');
    expect((await User.findById(adminId).lean())!.role).toBe('admin');
  });
});
