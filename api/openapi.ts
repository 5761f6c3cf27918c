// The OpenAPI 3 document served at /api/v1/openapi.json, generated from the mounted routers: each
// route declares its prose, its own statuses and headers, its answer and its body limit beside
// itself (api/lib/route.ts), its request is the zod schemas its validate() checks and its
// security the roles its auth() requires, so nothing here can drift from the code. A route
// registered without route() fails the document (and test/openapi.test.ts).
import { OpenAPIRegistry, OpenApiGeneratorV3, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { RequestHandler, Router } from 'express';
import type { AnyZodObject } from 'zod';
import type { DeclaredHandler, RouteSpec } from './lib/route';
import type { Schemas } from './lib/validate';
import { z } from './lib/zod';

/** A resource router and where it is mounted under /api/v1. */
export type Mount = [string, Router];

interface RouteLayer {
  route?: { path: unknown; methods: Record<string, boolean>; stack: { handle: RequestHandler & Partial<Pick<DeclaredHandler, 'spec'>> & { schemas?: Schemas; roles?: string[] } }[] };
}

/** What each shared status means; a route's own declaration says when it answers it. */
const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted: still running, the answer carries its live state', 400: 'Invalid input (errors[0].msg says which rule, naming the field)', 401: 'Not signed in, or the token is not valid',
  403: 'Not allowed (role or organization)', 404: 'Not found (a path id that is well formed but unknown)', 405: 'Method Not Allowed (the Allow header lists the methods)', 409: 'Conflict with the current state',
  413: 'The body is too large', 415: 'Not a CSV', 429: 'Too many requests', 500: 'Unexpected failure', 502: 'An outside system (or a workflow step) failed',
  503: 'A dependency (Mongo, Temporal, the warehouse) is unavailable: try again after Retry-After seconds', 504: 'The outside system did not answer in time',
};

const RETRY_AFTER = { 'Retry-After': 'Seconds to wait before trying again' };
/** Headers every route that answers the status sends with it. */
const SHARED_HEADERS: Record<number, Record<string, string>> = { 429: RETRY_AFTER, 503: RETRY_AFTER };

const objectSchema = (s: z.ZodTypeAny | undefined): AnyZodObject | undefined => {
  let t: z.ZodTypeAny | undefined = s;
  while (t instanceof z.ZodEffects) t = t.innerType();
  return t instanceof z.ZodObject ? (t as AnyZodObject) : undefined;
};

const bytes = (limit: string) => limit.replace(/(kb|mb)$/, (u) => ` ${u.toUpperCase()}`);

/** The statuses a route answers: the shared ones its shape implies, then its own declaration. */
export function routeStatuses(spec: RouteSpec & { bodyLimit: string | null }, shape: { validated: boolean; roles?: string[]; pathParams: number }): Map<number, string> {
  const out = new Map<number, string>([[200, STATUS_TEXT[200]!]]);
  const access = shape.roles ? 'token' : (spec.access ?? 'public');
  if (shape.validated || shape.pathParams || spec.bodyLimit || spec.body?.schema || spec.body?.content) out.set(400, STATUS_TEXT[400]!);
  if (access === 'token') {
    out.set(401, STATUS_TEXT[401]!);
    out.set(403, STATUS_TEXT[403]!);
  }
  if (access === 'optional') out.set(401, 'A token was sent and is not valid (without one, the caller is anonymous)');
  if (shape.pathParams) out.set(404, STATUS_TEXT[404]!);
  out.set(405, STATUS_TEXT[405]!);
  if (spec.bodyLimit) out.set(413, `The body is over ${bytes(spec.bodyLimit)}${spec.body?.why ? ` (${spec.body.why})` : ''}`);
  out.set(500, STATUS_TEXT[500]!);
  if (!spec.offline) out.set(503, STATUS_TEXT[503]!);
  for (const [code, text] of Object.entries(spec.statuses ?? {})) out.set(Number(code), text ?? STATUS_TEXT[Number(code)] ?? code);
  return out;
}

/**
 * The OpenAPI 3 document, generated from the routers themselves: every route's path and method,
 * its request from the zod schemas its validate() checks (ids' patterns, enums, bounds, string
 * rules, defaults), its security from its auth() roles, its statuses, headers, answer and body
 * limit from its route() declaration. test/openapi.test.ts checks that every mounted route is
 * described and that what the api answers is in the document.
 */
export function openApiDocument(mounts: Mount[], serverUrl = '/api/v1') {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  const Failure = registry.register('Failure', z.object({ status: z.literal(false), message: z.string(), errors: z.array(z.object({ msg: z.string() })) }));
  const Envelope = registry.register('Envelope', z.object({ status: z.boolean(), message: z.string(), data: z.unknown() }));
  const undocumented: string[] = [];
  for (const [mount, router] of mounts) {
    for (const layer of (router as unknown as { stack: RouteLayer[] }).stack) {
      const route = layer.route;
      if (!route || typeof route.path !== 'string') continue;
      const path = `${mount}${route.path === '/' ? '' : route.path}`.replace(/:(\w+)/g, '{$1}');
      const spec = route.stack.find((l) => l.handle.spec)?.handle.spec;
      for (const method of Object.keys(route.methods)) {
        if (!spec) {
          undocumented.push(`${method.toUpperCase()} ${path}`);
          continue;
        }
        const schemas: Schemas = Object.assign({}, ...route.stack.map((l) => l.handle.schemas ?? {}));
        const roles = route.stack.find((l) => l.handle.roles)?.handle.roles;
        const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
        const params = objectSchema(schemas.params) ?? (pathNames.length ? z.object(Object.fromEntries(pathNames.map((n) => [n, z.string()]))) : undefined);
        const query = objectSchema(schemas.query);
        const statuses = routeStatuses(spec, { validated: Boolean(schemas.body || schemas.query || schemas.params), roles, pathParams: pathNames.length });
        const access = roles ? 'token' : (spec.access ?? 'public');
        const ok = spec.answer ? z.object({ status: z.literal(true), message: z.string(), data: spec.answer }) : Envelope;
        const responses: Record<string, ResponseConfig> = {};
        for (const code of [...statuses.keys()].sort()) {
          const headers = { ...SHARED_HEADERS[code], ...spec.headers?.[code] };
          responses[code] = {
            description: statuses.get(code)!,
            ...(Object.keys(headers).length ? { headers: Object.fromEntries(Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: 'integer' } }])) } : {}),
            content: { 'application/json': { schema: code === 200 || code === 201 ? ok : code < 300 ? Envelope : Failure } },
          } as ResponseConfig;
        }
        const limitNote = spec.bodyLimit ? `At most ${bytes(spec.bodyLimit)}${spec.body?.why ? ` (${spec.body.why})` : ''}; larger answers 413.` : undefined;
        const jsonSchema = schemas.body ?? spec.body?.schema;
        const body = spec.body?.content
          ? { required: true, ...(limitNote ? { description: limitNote } : {}), content: spec.body.content as never }
          : jsonSchema
            ? { required: true, ...(limitNote ? { description: limitNote } : {}), content: { 'application/json': { schema: jsonSchema } } }
            : undefined;
        registry.registerPath({
          method: method as 'get',
          path,
          summary: spec.summary,
          tags: [spec.tag],
          ...(access === 'token' ? { security: [{ bearerAuth: [] }] } : access === 'optional' ? { security: [{ bearerAuth: [] }, {}] } : {}),
          ...(roles?.length ? { description: `Roles: ${roles.join(', ')}` } : {}),
          request: { ...(params ? { params } : {}), ...(query ? { query } : {}), ...(body ? { body } : {}) },
          responses,
        });
      }
    }
  }
  registry.registerPath({ method: 'get', path: '/openapi.json', summary: 'This document (generated from the routes and their zod schemas)', tags: ['meta'], responses: { 200: { description: 'OK' }, 405: { description: STATUS_TEXT[405]! } } });
  if (undocumented.length) throw new Error(`no route() declaration for ${undocumented.join(', ')}`);
  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: { title: 'LedgerFlow API', version: '1.0.0', description: 'Answers are { status, message, data }; failures { status: false, message, errors: [{ msg }] }.' },
    servers: [{ url: serverUrl }],
  });
}
