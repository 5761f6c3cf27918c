// The authorization matrix: every route x {anonymous, user of org A, user of org B, admin}
// with the expected HTTP status. Table-driven: OTHER AGENTS, APPEND ROWS FOR YOUR ROUTES to
// `rows` below (paths and bodies may be functions of the fixture `ctx`: orgA, orgB, the users'
// ids). Bodies should be valid, so that a 200/201 proves access and a 403 proves refusal;
// where a call must not change anything, a body that fails after the access check (e.g. a
// wrong current password, answered 400) shows the check passed.
import request from 'supertest';
import { Organization } from '../common/models/organization';
import { startStack, type TestStack } from './helpers/stack';
import { TEST_PASSWORD, userWithToken } from './helpers/users';

interface Ctx {
  run: string;
  orgA: string;
  orgB: string;
  userA: string;
  userB: string;
  admin: string;
  /** A fresh value per call (unique names and emails for creating rows). */
  seq(): number;
}

type Actor = 'anon' | 'userA' | 'userB' | 'admin';

interface Row {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string | ((c: Ctx) => string);
  body?: object | ((c: Ctx) => object);
  expect: Record<Actor, number>;
}

const rows: Row[] = [
  // --- identity, users, organizations, contact (issue 3) ---
  { method: 'post', path: '/api/v1/auth/login', body: (c) => ({ email: `a.${c.run}@matrix.example.com`, password: TEST_PASSWORD }), expect: { anon: 200, userA: 200, userB: 200, admin: 200 } },
  { method: 'post', path: '/api/v1/auth/forgot-password', body: (c) => ({ email: `nobody${c.seq()}.${c.run}@matrix.example.com` }), expect: { anon: 200, userA: 200, userB: 200, admin: 200 } },
  { method: 'post', path: '/api/v1/auth/reset-password', body: { token: 'f'.repeat(64), password: 'Unused1@pw' }, expect: { anon: 400, userA: 400, userB: 400, admin: 400 } },
  { method: 'get', path: `/api/v1/auth/reset-password/${'f'.repeat(64)}`, expect: { anon: 200, userA: 200, userB: 200, admin: 200 } },
  { method: 'put', path: (c) => `/api/v1/auth/profile/${c.userA}`, body: { fullName: 'Alpha User' }, expect: { anon: 401, userA: 200, userB: 403, admin: 200 } },
  { method: 'get', path: '/api/v1/user/profile', expect: { anon: 401, userA: 200, userB: 200, admin: 200 } },
  { method: 'post', path: '/api/v1/user/change-password', body: { currentPassword: 'NotMine1@pw', newPassword: 'Another1@pw', confirmPassword: 'Another1@pw' }, expect: { anon: 401, userA: 400, userB: 400, admin: 400 } },
  // Without a token POST /user is self sign-up, which is off by default: 403.
  { method: 'post', path: '/api/v1/user', body: (c) => ({ fullName: 'Made Here', email: `made${c.seq()}.${c.run}@matrix.example.com`, phoneNumber: '5550001111', password: 'Made1@pass' }), expect: { anon: 403, userA: 403, userB: 403, admin: 201 } },
  { method: 'get', path: '/api/v1/user', expect: { anon: 401, userA: 403, userB: 403, admin: 200 } },
  { method: 'put', path: (c) => `/api/v1/user/update/${c.userA}`, body: { pipeline: 'month-end' }, expect: { anon: 401, userA: 403, userB: 403, admin: 200 } },
  { method: 'get', path: '/api/v1/organization', expect: { anon: 401, userA: 200, userB: 200, admin: 200 } },
  { method: 'get', path: (c) => `/api/v1/organization/${c.orgA}`, expect: { anon: 401, userA: 200, userB: 403, admin: 200 } },
  { method: 'post', path: '/api/v1/organization/add', body: (c) => ({ organizationName: `Matrix ${c.run} ${c.seq()}`, organizationEmail: 'org@matrix.example.com', organizationPhoneNumber: '5550002222' }), expect: { anon: 401, userA: 403, userB: 403, admin: 201 } },
  { method: 'put', path: (c) => `/api/v1/organization/${c.orgA}`, body: { organizationDescription: 'Updated by the matrix' }, expect: { anon: 401, userA: 403, userB: 403, admin: 200 } },
  // Public form on the landing page: anyone may write (rate-limited); a token only names the sender.
  { method: 'post', path: '/api/v1/contact-us', body: { name: 'Matrix Visitor', email: 'visitor@matrix.example.com', message: 'Hello from the matrix' }, expect: { anon: 201, userA: 201, userB: 201, admin: 201 } },
  // --- append rows for other routes below ---
  // --- NetSuite connections (issue 20): the organization's list, its users and admins only ---
  { method: 'get', path: (c) => `/api/v1/netsuite?organization_id=${c.orgA}`, expect: { anon: 401, userA: 200, userB: 403, admin: 200 } },
  // --- Xero connections (issue 33): the list is the organization's; connecting checks access before the server's Xero settings (unset here: 503); a grant is only found by id (404); the webhook is public (503 without XERO_WEBHOOK_KEY) ---
  { method: 'get', path: (c) => `/api/v1/xero?organization_id=${c.orgA}`, expect: { anon: 401, userA: 200, userB: 403, admin: 200 } },
  { method: 'get', path: '/api/v1/xero/availability', expect: { anon: 401, userA: 200, userB: 200, admin: 200 } },
  { method: 'get', path: (c) => `/api/v1/xero/connect?organization_id=${c.orgA}`, expect: { anon: 401, userA: 503, userB: 403, admin: 503 } },
  { method: 'post', path: '/api/v1/xero/link', body: { grantId: 'f'.repeat(24), tenantIds: ['tenant'] }, expect: { anon: 401, userA: 404, userB: 404, admin: 404 } },
  { method: 'post', path: '/api/v1/xero/webhooks', body: { events: [] }, expect: { anon: 503, userA: 503, userB: 503, admin: 503 } },
  // --- data explorer (issue 19): org A has no database yet, so its list is empty (200) and any table 404 once access passed ---
  { method: 'get', path: (c) => `/api/v1/tables/${c.orgA}`, expect: { anon: 401, userA: 200, userB: 403, admin: 200 } },
  // --- reports (issue 19): the organization's own only; orgA has no database yet (400) ---
  { method: 'get', path: (c) => `/api/v1/reports/${c.orgA}/statements/balance-sheet?period=2026-01`, expect: { anon: 401, userA: 400, userB: 403, admin: 400 } },
  { method: 'get', path: (c) => `/api/v1/reports/${c.orgA}/overview`, expect: { anon: 401, userA: 400, userB: 403, admin: 400 } },
  { method: 'get', path: (c) => `/api/v1/reports/${c.orgA}/custom`, expect: { anon: 401, userA: 400, userB: 403, admin: 400 } },
  { method: 'post', path: (c) => `/api/v1/reports/${c.orgA}/custom`, body: { name: 'Matrix', lines: [{ id: 'a', label: 'A', kind: 'accounts', accounts: ['4000'] }] }, expect: { anon: 401, userA: 400, userB: 403, admin: 400 } },
  // --- report packs (issue 34): the organization's own only; orgA has no database yet (400), an unknown pack 404 after the tenant check ---
  { method: 'get', path: (c) => `/api/v1/reports/${c.orgA}/packs`, expect: { anon: 401, userA: 400, userB: 403, admin: 400 } },
  { method: 'post', path: (c) => `/api/v1/reports/${c.orgA}/packs`, body: (c) => ({ name: 'Matrix', items: [{ kind: 'statement', ref: 'balance-sheet' }], recipients: [c.userA] }), expect: { anon: 401, userA: 400, userB: 403, admin: 400 } },
  { method: 'get', path: (c) => `/api/v1/reports/${c.orgA}/packs/65f000000000000000000000/history`, expect: { anon: 401, userA: 404, userB: 403, admin: 404 } },
  { method: 'post', path: (c) => `/api/v1/reports/${c.orgA}/packs/65f000000000000000000000/send`, body: {}, expect: { anon: 401, userA: 404, userB: 403, admin: 404 } },
  { method: 'get', path: '/api/v1/quickbooks/availability', expect: { anon: 401, userA: 200, userB: 200, admin: 200 } },
  { method: 'get', path: (c) => `/api/v1/tables/${c.orgA}/ledger`, expect: { anon: 401, userA: 404, userB: 403, admin: 404 } },
  { method: 'get', path: (c) => `/api/v1/tables/${c.orgA}/ledger/rows`, expect: { anon: 401, userA: 404, userB: 403, admin: 404 } },
  { method: 'get', path: (c) => `/api/v1/tables/${c.orgA}/ledger/csv`, expect: { anon: 401, userA: 404, userB: 403, admin: 404 } },
  { method: 'post', path: (c) => `/api/v1/tables/${c.orgA}/ledger/csv-link`, body: {}, expect: { anon: 401, userA: 404, userB: 403, admin: 404 } },
];

let stack: TestStack;
let ctx: Ctx;
const tokens: Partial<Record<Actor, string>> = {};

beforeAll(async () => {
  stack = await startStack();
  const run = Math.random().toString(36).slice(2, 8);
  const orgA = String((await Organization.create({ organizationName: `Matrix A ${run}` }))._id);
  const orgB = String((await Organization.create({ organizationName: `Matrix B ${run}` }))._id);
  const a = await userWithToken(stack.app, { email: `a.${run}@matrix.example.com`, organization_id: orgA, fullName: 'User Alpha' });
  const b = await userWithToken(stack.app, { email: `b.${run}@matrix.example.com`, organization_id: orgB, fullName: 'User Beta' });
  const admin = await userWithToken(stack.app, { email: `admin.${run}@matrix.example.com`, role: 'admin', fullName: 'Matrix Admin' });
  tokens.userA = a.token;
  tokens.userB = b.token;
  tokens.admin = admin.token;
  let n = 0;
  ctx = { run, orgA, orgB, userA: String(a.user._id), userB: String(b.user._id), admin: String(admin.user._id), seq: () => ++n };
});
afterAll(() => stack.stop());

const cases = rows.flatMap((row) => (['anon', 'userA', 'userB', 'admin'] as const).map((actor) => [row, actor] as const));

it.each(cases.map(([row, actor]) => [`${row.method.toUpperCase()} ${typeof row.path === 'string' ? row.path : row.path({ run: '', orgA: '{orgA}', orgB: '{orgB}', userA: '{userA}', userB: '{userB}', admin: '{admin}', seq: () => 0 })}`, actor, row.expect[actor], row] as const))(
  '%s as %s -> %i',
  async (_label, actor, status, row) => {
    const path = typeof row.path === 'function' ? row.path(ctx) : row.path;
    let req = request(stack.app)[row.method](path);
    const token = tokens[actor];
    if (token) req = req.set('Authorization', `Bearer ${token}`);
    const body = typeof row.body === 'function' ? row.body(ctx) : row.body;
    const res = body ? await req.send(body) : await req;
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
    if (status === 401) expect(res.body).toEqual({ status: false, message: 'Unauthorized', errors: [{ msg: 'Unauthorized' }] });
    if (status === 403) expect(res.body.status).toBe(false);
  },
);

it('scopes GET /api/v1/organization to the caller', async () => {
  const ids = async (actor: Actor) => (await request(stack.app).get('/api/v1/organization').set('Authorization', `Bearer ${tokens[actor]}`)).body.data.organizations.map((o: { id: string }) => o.id);
  expect(await ids('userA')).toEqual([ctx.orgA]);
  expect(await ids('userB')).toEqual([ctx.orgB]);
  expect(await ids('admin')).toEqual(expect.arrayContaining([ctx.orgA, ctx.orgB]));
});
