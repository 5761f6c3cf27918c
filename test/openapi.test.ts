// Keeps /api/v1/openapi.json true: every route mounted on the app must be described.
import type { Express } from 'express';
import request from 'supertest';
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
  const candidates = ['/api/v1', '/health', '/auth', '/onboard', '/user', '/organization', '/pipeline', '/quickbooks', '/sage', '/contact-us', '/runs', '/apps', '/connections'];
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
