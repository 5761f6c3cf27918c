// Keeps /api/v1/openapi.json true: every route mounted on the app must be described.
import type { Express } from 'express';
import request from 'supertest';
import { listedUserSchema, ROLES } from '../common/contract/users';
import { RUN_STATUSES } from '../common/models/pipeline-run';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PHONE_RE, TABLE_NAME_RE } from '../common/validation';
import { userWithToken } from './helpers/users';
import { Organization } from '../common/models/organization';
import { startStack, type TestStack } from './helpers/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  name: string;
  handle: { stack?: Layer[] };
  matchers?: ((p: string) => unknown)[];
  regexp?: RegExp;
}

/** Walks Express 5's router stack; mount prefixes are recovered by probing each layer's matcher. */
function mountedRoutes(app: Express): string[] {
  const out: string[] = [];
  const walk = (layers: Layer[], prefix: string, probe: (layer: Layer) => string) => {
    for (const layer of layers) {
      if (layer.route) {
        if (typeof layer.route.path !== 'string') continue; // the web app's fallback (a regex)
        for (const m of Object.keys(layer.route.methods)) out.push(`${m.toUpperCase()} ${prefix}${layer.route.path === '/' ? '' : layer.route.path}`);
      } else if (layer.name === 'router' && layer.handle.stack) {
        walk(layer.handle.stack, prefix + probe(layer), probe);
      }
    }
  };
  const mountPaths = new Map<Layer, string>();
  // Express 5 keeps no mount path on a layer; record them as app.use/router.use registers them.
  const probe = (layer: Layer) => mountPaths.get(layer) ?? '';
  const root = (app as unknown as { router: { stack: Layer[] } }).router;
  // Recover mount paths from the layer's matcher: try the candidates our routers use.
  const candidates = ['/api/v1', '/health', '/auth', '/onboard', '/user', '/organization', '/pipeline', '/quickbooks', '/sage', '/netsuite', '/contact-us', '/consolidation', '/tables', '/reports', '/runs', '/apps', '/connections', '/getting-started', '/xero', '/operations', '/packs', '/freshness', '/alerts', '/docs'];
  const index = (layers: Layer[]) => {
    for (const layer of layers) {
      if (layer.name !== 'router') continue;
      for (const c of candidates) {
        const match = layer.matchers?.[0]?.(c + '/x');
        if (match && (match as { path?: string }).path === c) mountPaths.set(layer, c);
      }
      if (layer.handle.stack) index(layer.handle.stack);
    }
  };
  index(root.stack);
  walk(root.stack, '', probe);
  return out;
}

it('describes every mounted route', async () => {
  const res = await request(stack.app).get('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body.openapi).toMatch(/^3\./);
  const documented = new Set<string>();
  for (const [path, ops] of Object.entries(res.body.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} /api/v1${path}`);
  }
  // A route whose mount prefix was not recovered shows without /api/v1 and fails here:
  // add its mount path to the candidates above.
  const routes = mountedRoutes(stack.app).map((r) => r.replace(/:(\w+)/g, '{$1}'));
  expect(routes.length).toBeGreaterThanOrEqual(4);
  const missing = routes.filter((r) => !documented.has(r));
  expect(missing).toEqual([]);
});

describe('the document is generated from the schemas that validate requests', () => {
  let doc: { paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: Record<string, unknown> }[]; requestBody?: { content: Record<string, { schema: Record<string, unknown> }> }; responses: Record<string, unknown>; security?: unknown[] }>> };
  beforeAll(async () => {
    doc = (await request(stack.app).get('/api/v1/openapi.json')).body;
  });
  const param = (path: string, method: string, name: string) => doc.paths[path]![method]!.parameters!.find((p) => p.name === name)!;

  it('takes ids, enums, bounds and defaults from the zod schemas', () => {
    expect(param('/pipeline/runs/{organizationId}', 'get', 'organizationId')).toMatchObject({ in: 'path', schema: { type: 'string', pattern: '^[a-fA-F0-9]{24}$' } });
    expect(param('/pipeline/runs/{organizationId}', 'get', 'status').schema).toMatchObject({ type: 'string', enum: [...RUN_STATUSES] });
    expect(param('/pipeline/runs/{organizationId}', 'get', 'page').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 10000, default: 1 });
    expect(param('/pipeline/run-pipeline/{id}', 'get', 'wait').schema).toMatchObject({ enum: ['true', 'false'], default: 'true' });
    const login = doc.paths['/auth/login']!.post!.requestBody!.content['application/json']!.schema;
    expect(login).toMatchObject({ type: 'object', properties: { email: expect.any(Object), password: expect.any(Object) } });
  });

  it('lists the statuses each route answers: 405 everywhere, 400 when validated, 401/403 when signed in, and the route’s own', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect([`${method} ${path}`, Object.keys(op.responses)]).toEqual([`${method} ${path}`, expect.arrayContaining(['200', '405'])]);
        const tokenRequired = op.security && !(op.security as object[]).some((o) => Object.keys(o).length === 0);
        if (tokenRequired) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403']));
      }
    }
    expect(Object.keys(doc.paths['/pipeline/file-upload']!.post!.responses)).toEqual(expect.arrayContaining(['400', '413', '415', '503']));
    expect(Object.keys(doc.paths['/contact-us']!.post!.responses)).toEqual(expect.arrayContaining(['201', '429']));
    expect(Object.keys(doc.paths['/pipeline/run-pipeline/{id}']!.get!.responses)).toEqual(expect.arrayContaining(['202', '404', '502', '503']));
  });

  it("shows a run's answer from the shared contract, its statuses as enums", () => {
    const ok = (doc.paths['/pipeline/runs/{organizationId}/{runId}']!.get!.responses['200'] as { content: { 'application/json': { schema: { properties: { data: { properties: { run: { properties: Record<string, { enum?: string[] }> } } } } } } } }).content['application/json'].schema;
    expect(ok.properties.data.properties.run.properties.status!.enum).toEqual([...RUN_STATUSES]);
  });

  it("shows the users' answers from the shared contract (common/contract/users.ts), roles as an enum", () => {
    type Props = Record<string, { enum?: string[] }>;
    const ok = (doc.paths['/user']!.get!.responses['200'] as { content: { 'application/json': { schema: { properties: { data: { properties: { users: { items: { properties: Props; required: string[] } } } } } } } } }).content['application/json'].schema;
    const listed = ok.properties.data.properties.users.items;
    expect([Object.keys(listed.properties).sort(), listed.required.sort(), listed.properties.role!.enum]).toEqual([Object.keys(listedUserSchema.shape).sort(), Object.keys(listedUserSchema.shape).sort(), [...ROLES]]);
  });

  it('names /quickbooks/accounts as its own route, not as /quickbooks/{id}', () => {
    expect(doc.paths['/quickbooks/accounts']!.get).toBeDefined();
    expect(doc.paths['/quickbooks/{id}']!.get).toBeUndefined();
  });
});

it('describes the upload forms from the same rules the upload checks (organization id, table name)', async () => {
  const doc = (await request(stack.app).get('/api/v1/openapi.json')).body;
  const form = doc.paths['/pipeline/saveCSV'].post.requestBody.content['multipart/form-data'].schema;
  expect(form.properties.orgID).toMatchObject({ pattern: '^[a-fA-F0-9]{24}$' });
  expect(form.properties.tableName).toMatchObject({ type: 'string', pattern: TABLE_NAME_RE.source });
  expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary' });
  expect(form.required).toEqual(expect.arrayContaining(['orgID', 'tableName']));
});

// Issue 31 step 5 and issue 32 section 4: the document is generated from each route's own
// declaration (api/lib/route.ts), and what the api answers is what the document says.
describe('the contract matches the api', () => {
  type Op = { requestBody?: { description?: string; content: Record<string, { schema: Record<string, unknown> }> }; responses: Record<string, { headers?: Record<string, unknown> }>; parameters?: { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[] };
  let doc: { paths: Record<string, Record<string, Op>> };
  let admin: string;
  let member: string;
  let orgId: string;
  const UNKNOWN = '0123456789abcdef01234567';
  const UNKNOWN_RUN = '01234567-89ab-4def-8123-456789abcdef';
  const documented = (method: string, path: string) => Object.keys(doc.paths[path]?.[method]?.responses ?? {}).map(Number);
  const api = (method: string, url: string, token?: string) => {
    const r = (request(stack.app) as unknown as Record<string, (u: string) => request.Test>)[method]!(`/api/v1${url}`);
    return token ? r.set('Authorization', `Bearer ${token}`) : r;
  };
  /** The body limit a route documents, in bytes. */
  const limitOf = (op: Op) => {
    const m = /At most (\d+) (KB|MB)/.exec(op.requestBody?.description ?? '');
    return m ? Number(m[1]) * (m[2] === 'KB' ? 1024 : 1024 * 1024) : null;
  };

  beforeAll(async () => {
    doc = (await request(stack.app).get('/api/v1/openapi.json')).body;
    orgId = String((await Organization.create({ organizationName: 'Contract Org' }))._id);
    ({ token: admin } = await userWithToken(stack.app, { email: 'contract-admin@example.com', role: 'admin' }));
    ({ token: member } = await userWithToken(stack.app, { email: 'contract-member@example.com', role: 'user', organization_id: orgId }));
  });

  it('keeps no route table keyed by path strings beside the routers', () => {
    const source = readFileSync(join(__dirname, '..', 'api', 'openapi.ts'), 'utf8');
    expect(source).not.toMatch(/Record<string,\s*(Record<|number\[\]|z\.)/);
    expect(source).not.toMatch(/['"`](GET|POST|PUT|DELETE) \//);
    expect(source).not.toMatch(/EXTRA_STATUSES|ANSWER_DATA|jsonBody/);
  });

  /** A value for each path parameter: well formed but unknown, or malformed. */
  const fill = (path: string, kind: 'unknown' | 'malformed') =>
    path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      if (kind === 'malformed') return name === 'table' || name === 'entity' || name === 'token' ? '%20' : 'zz';
      if (name === 'runId') return UNKNOWN_RUN;
      if (name === 'table' || name === 'tableName') return 'no_such_table';
      if (name === 'statement') return 'trial-balance';
      if (name === 'period') return '2024-01';
      if (name === 'entity') return 'E1';
      if (name === 'token') return 'a'.repeat(64);
      return UNKNOWN;
    });

  it('answers every route, with and without a token, with malformed and unknown ids, only with statuses its document lists', async () => {
    const undocumented: string[] = [];
    let calls = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        if (path === '/auth/logout' || path === '/openapi.json') continue; // logout would end the admin's session; the document itself
        const cases: [string, string, string | undefined][] = [
          ['no token', fill(path, 'unknown'), undefined],
          ['admin, unknown ids', fill(path, 'unknown'), admin],
          ['member, unknown ids', fill(path, 'unknown'), member],
          ['admin, malformed ids', fill(path, 'malformed'), admin],
        ];
        for (const [label, url, token] of cases) {
          const res = await api(method, url, token).send(method === 'get' || method === 'delete' ? undefined : {});
          calls++;
          if (!documented(method, path).includes(res.status)) undocumented.push(`${method.toUpperCase()} ${path} (${label}): ${res.status} ${res.body?.message ?? ''}`);
        }
      }
    }
    expect(undocumented).toEqual([]);
    expect(calls).toBeGreaterThan(300);
  }, 120_000);

  it('answers 413 for a JSON body over the limit each route documents, and documents it', async () => {
    const checked: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const limit = limitOf(op);
        if (!limit) continue;
        expect([`${method} ${path}`, documented(method, path)]).toEqual([`${method} ${path}`, expect.arrayContaining([413])]);
        if (limit > 8 * 1024 * 1024) continue; // the largest are checked against their validators below, not sent
        const csv = Boolean(op.requestBody?.content['text/csv']);
        const body = csv ? 'x'.repeat(limit + 1) : JSON.stringify({ pad: 'x'.repeat(limit) });
        const res = await api(method, fill(path, 'unknown')).set('Content-Type', csv ? 'text/csv' : 'application/json').send(body);
        expect([`${method} ${path}`, res.status]).toEqual([`${method} ${path}`, 413]);
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked).toEqual(expect.arrayContaining(['post /auth/login', 'post /user', 'put /consolidation/{orgId}/accounts', 'post /contact-us']));
  }, 120_000);

  it("sizes each body's limit to what its validator accepts", async () => {
    const json = (o: unknown) => Buffer.byteLength(JSON.stringify(o));
    const rows = (row: unknown, n: number) => Array.from({ length: n }, () => row);
    const s = (n: number) => 'x'.repeat(n);
    const maxima: [string, string, number][] = [
      ['put', '/consolidation/{orgId}/accounts', json({ accounts: rows({ code: s(40), name: s(200), type: 'liability', line: s(400), role: 'retained_earnings' }, 10_000) })],
      ['put', '/consolidation/{orgId}/mappings', json({ mappings: rows({ entity: s(200), sourceAccount: s(200), groupAccount: s(40), icCounterparty: s(200), icCategory: 'receivable_payable' }, 50_000) })],
      ['put', '/consolidation/{orgId}/rates', json({ rates: rows({ currency: 'EUR', period: '2024-01', closing: s(40), average: s(40) }, 50_000) })],
      ['put', '/consolidation/{orgId}/historical-rates', json({ rates: rows({ entity: s(200), groupAccount: s(40), rate: s(40) }, 50_000) })],
      ['post', '/reports/{orgId}/custom', json({ name: s(120), lines: rows({ id: s(40), label: s(200), kind: 'formula', accounts: rows(s(40), 1000), groups: rows(s(400), 200), of: rows(s(40), 200), formula: s(1000), format: 'percent' }, 300) })],
      ['post', '/reports/{orgId}/budgets', json({ name: s(120), lines: rows({ entity: s(200), period: s(20), account: s(200), groupAccount: s(40), amount: s(40) }, 100_000) })],
      ['post', '/reports/{orgId}/budgets/import', Buffer.byteLength(`entity,period,account,group_account,amount\n${rows([s(200), s(20), s(200), s(40), s(40)].join(','), 100_000).join('\n')}\n`)],
    ];
    for (const [method, path, size] of maxima) expect([path, limitOf(doc.paths[path]![method]!)! >= size]).toEqual([path, true]);

    // 3,000 accounts (153 KB) were refused as too large: now the validator decides.
    const accounts = Array.from({ length: 3000 }, (_, i) => ({ code: `A${i}`, name: `Account ${i}`, type: 'asset', line: 'Assets', role: null }));
    const res = await api('put', `/consolidation/${UNKNOWN}/accounts`, admin).send({ accounts });
    expect(res.status).toBe(404);
  }, 60_000);

  it('declares the statuses the issue found undocumented, and the api answers them', async () => {
    const answers = async (method: string, path: string, url: string, status: number, token?: string, body?: object) => {
      const res = await api(method, url, token).send(body);
      expect([`${method} ${url}`, res.status, res.body.message]).toEqual([`${method} ${url}`, status, expect.anything()]);
      expect([`${method} ${path}`, documented(method, path)]).toEqual([`${method} ${path}`, expect.arrayContaining([status])]);
      return res;
    };
    await answers('post', '/auth/login', '/auth/login', 401, undefined, { email: 'nobody@example.com', password: 'Wrong1@pw' });
    await answers('post', '/user', '/user', 401, 'garbage', { fullName: 'A B', email: 'ab@example.com', phoneNumber: '5551234567' });
    await answers('post', '/contact-us', '/contact-us', 401, 'garbage', { message: 'hi' });
    for (const c of ['quickbooks/accounts', 'sage', 'netsuite']) await answers('get', `/${c}`, `/${c}?organization_id=${UNKNOWN}`, 404, admin);
    for (const c of ['quickbooks', 'sage', 'netsuite']) await answers('get', `/${c}/sync-runs`, `/${c}/sync-runs?id=${UNKNOWN}`, 404, admin);
    for (const c of ['sage', 'netsuite']) await answers('get', `/${c}/data`, `/${c}/data?id=${UNKNOWN}`, 404, admin);
    await answers('post', '/quickbooks', '/quickbooks', 404, admin, { id: UNKNOWN });
    await answers('post', '/sage', '/sage', 404, admin, { sageUserID: 'u', sageUserPassword: 'p', sageSenderID: 's', sageSenderPassword: 'p', sageCompanyID: 'c', organization_id: UNKNOWN });
    await answers('post', '/onboard/storage/create-container', '/onboard/storage/create-container', 404, admin, { orgID: UNKNOWN, containerJson: { containerName: 'abcde' } });
    await answers('post', '/onboard/sql/create-database', '/onboard/sql/create-database', 404, admin, { orgID: UNKNOWN, databaseJson: { databaseName: 'abcde' } });
    await answers('post', '/onboard/data-factory/create', '/onboard/data-factory/create', 404, admin, { orgID: UNKNOWN, dataFactoryJson: { dataFactoryName: 'abcde' } });
    await answers('post', '/onboard/data-factory/import', '/onboard/data-factory/import', 404, admin, { factoryName: 'abcde', databaseName: 'abcde', containerName: 'abcde', orgID: UNKNOWN });
    await answers('post', '/onboard/start', '/onboard/start', 404, admin, { orgID: UNKNOWN, containerName: 'abcde', databaseName: 'abcde', dataFactoryName: 'abcde' });
    expect(documented('post', '/consolidation/{orgId}/run')).toEqual(expect.arrayContaining([202, 502, 503]));
    expect(documented('put', '/consolidation/{orgId}/locks/{period}')).toEqual(expect.arrayContaining([409]));
    for (const [method, path] of [['post', '/auth/login'], ['post', '/auth/forgot-password'], ['post', '/contact-us'], ['post', '/sage'], ['post', '/netsuite']] as const) {
      expect([path, doc.paths[path]![method]!.responses['429']?.headers]).toEqual([path, { 'Retry-After': expect.anything() }]);
    }
  });

  it('answers 405 with the right Allow on paths a parametric route used to shadow', async () => {
    const del = await api('delete', '/quickbooks/accounts', admin);
    expect([del.status, del.headers.allow]).toEqual([405, 'GET, HEAD']);
    const put = await api('put', '/organization/add', admin).send({});
    expect([put.status, put.headers.allow]).toEqual([405, 'POST']);
    const options = await api('options', '/quickbooks/webhooks');
    expect([options.status, options.headers.allow]).toEqual([204, 'POST']);
  });

  it('takes one id rule everywhere: malformed 400 naming the id, unknown 404, upper case accepted', async () => {
    const malformed = await api('delete', '/quickbooks/00', admin);
    expect([malformed.status, malformed.body.errors[0].msg]).toEqual([400, 'Invalid account ID']);
    expect((await api('delete', `/quickbooks/${UNKNOWN}`, admin)).status).toBe(404);
    expect((await api('get', '/sage/sync-runs?id=xyz', admin)).body.errors[0].msg).toBe('Invalid account ID');
    expect((await api('delete', `/pipeline/files/${orgId}/zz`, admin)).body.errors[0].msg).toBe('Invalid upload ID');
    expect((await api('get', `/pipeline/saveCSV/zz`, admin)).body.errors[0].msg).toBe('Invalid upload ID');
    expect((await api('get', `/pipeline/runs/${orgId}/nope`, admin)).body.errors[0].msg).toBe('Invalid run ID');
    expect((await api('get', `/pipeline/runs/${orgId}/${UNKNOWN_RUN}`, admin)).status).toBe(404);
    expect((await api('get', `/organization/${orgId.toUpperCase()}`, member)).status).toBe(200);
    expect((await api('get', `/pipeline/runs/${orgId.toUpperCase()}`, member)).status).toBe(200);
    const pattern = '^[a-fA-F0-9]{24}$';
    for (const [path, method, name] of [['/quickbooks/{id}', 'delete', 'id'], ['/pipeline/files/{orgId}/{uploadId}', 'delete', 'uploadId'], ['/quickbooks/sync-runs', 'get', 'id'], ['/quickbooks/accounts', 'get', 'organization_id']] as const) {
      expect([path, name, doc.paths[path]![method]!.parameters!.find((p) => p.name === name)!.schema.pattern]).toEqual([path, name, pattern]);
    }
    expect(doc.paths['/pipeline/runs/{organizationId}/{runId}']!.get!.parameters!.find((p) => p.name === 'runId')!.schema.pattern).toMatch(/^\^\[0-9a-fA-F\]\{8\}-/);
  });

  it('sends a CSV export\'s failures as JSON, not labelled text/csv', async () => {
    const { token: stranger } = await userWithToken(stack.app, { email: 'contract-stranger@example.com', role: 'user', organization_id: UNKNOWN });
    for (const [token, org, status] of [[admin, UNKNOWN, 404], [stranger, orgId, 403]] as const) {
      const res = await api('get', `/consolidation/${org}/mappings/export`, token);
      expect([res.status, res.headers['content-type'], res.headers['content-disposition']]).toEqual([status, expect.stringMatching(/^application\/json/), undefined]);
    }
  });

  it('documents the shapes the validators accept', async () => {
    // page: a positive integer; 0 and an empty page= are refused.
    for (const url of ['/user?page=0', '/user?page=', '/organization?page=', `/pipeline/list-files/${orgId}?page=`]) {
      expect([url, (await api('get', url, admin)).status]).toEqual([url, 400]);
    }
    for (const [path, op] of [['/user', 'get'], ['/organization', 'get'], ['/pipeline/list-files/{orgId}', 'get']] as const) {
      expect(doc.paths[path]![op]!.parameters!.find((p) => p.name === 'page')!.schema).toMatchObject({ type: 'integer', minimum: 1 });
    }
    // The phone rule's pattern is documented.
    const newUser = doc.paths['/user']!.post!.requestBody!.content['application/json']!.schema as { properties: Record<string, { pattern?: string }> };
    expect(newUser.properties.phoneNumber!.pattern).toBe(PHONE_RE.source);
    // contact-us: an empty message is refused, as its documented minimum length says.
    const contact = await api('post', '/contact-us').send({ name: 'Ann Lee', email: 'ann@example.com', message: '' });
    expect(contact.status).toBe(400);
    // An empty phone is none, and documented so (its pattern allows it).
    const contactBody = doc.paths['/contact-us']!.post!.requestBody!.content['application/json']!.schema as { properties: Record<string, { pattern?: string; minLength?: number }> };
    expect(new RegExp(contactBody.properties.phoneNumber!.pattern!).test('')).toBe(true);
    expect(contactBody.properties.phoneNumber!.minLength ?? 0).toBe(0);
    // An admin must name the organization of a connector list; a user's own is the default.
    const sage = await api('get', '/sage', admin);
    expect([sage.status, sage.body.message]).toEqual([400, 'Please select an organization or ensure you are properly logged in']);
    expect((await api('get', '/sage', member)).status).toBe(200);
    expect(doc.paths['/sage']!.get!.parameters!.find((p) => p.name === 'organization_id')).toMatchObject({ required: false });
  });

  it('counts lengths in characters, not UTF-16 units', async () => {
    const scriptA = '\u{1D49C}'; // one letter, two UTF-16 units
    const body = (fullName: string, email: string) => ({ fullName, email, phoneNumber: '5551234567', organization_id: orgId });
    expect((await api('post', '/user', admin).send(body(scriptA.repeat(60), 'sixty@example.com'))).status).toBe(201);
    expect((await api('post', '/user', admin).send(body(scriptA.repeat(101), 'many@example.com'))).body.errors[0].msg).toBe('Name must be at most 100 characters');
  });
});
