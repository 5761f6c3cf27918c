// Keeps /api/v1/openapi.json true: every route mounted on the app must be described.
import type { Express } from 'express';
import request from 'supertest';
import { listedUserSchema, ROLES } from '../common/contract/users';
import { RUN_STATUSES } from '../common/models/pipeline-run';
import { TABLE_NAME_RE } from '../common/validation';
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
  const candidates = ['/api/v1', '/health', '/auth', '/onboard', '/user', '/organization', '/pipeline', '/quickbooks', '/sage', '/netsuite', '/contact-us', '/consolidation', '/tables', '/reports', '/runs', '/apps', '/connections'];
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
