// A route and its contract in one place: route(router, 'post', '/path', { summary, tag, statuses,
// headers, answer, body }, ...handlers) registers the handlers behind one first handler that
// parses the route's body within its own limit and carries the declaration. api/openapi.ts walks
// the mounted routers and builds the document from these declarations, the zod schemas validate()
// carries and the roles auth() carries: no second route table. The statuses every route shares
// (400, 401/403, 404 with path ids, 405, 413 with a body, 500, 503) the generator adds from the
// route's shape; a status particular to a route is declared here, beside the code that answers it.
import express, { type RequestHandler, type Router } from 'express';
import type { z } from 'zod';

/** A body limit as body-parser reads it ('100kb', '8mb'). */
export type BodyLimit = `${number}${'kb' | 'mb'}`;

/** JSON (and urlencoded) bodies of a route that declares no limit of its own. */
export const DEFAULT_BODY_LIMIT: BodyLimit = '100kb';

export interface RouteSpec {
  summary: string;
  tag: string;
  /**
   * Who may call: 'token' (the default) when the route needs a bearer token, whether auth()
   * checks it or the handler does; 'optional' when a token, if sent, must be valid (401 otherwise);
   * 'public' when none is read.
   */
  access?: 'token' | 'optional' | 'public';
  /** Statuses this route answers beyond the shared ones, each with when. */
  statuses?: Partial<Record<number, string>>;
  /** Headers an answer with that status carries (429 and 503 carry Retry-After on every route that answers them). */
  headers?: Partial<Record<number, Record<string, string>>>;
  /** The data of the success answer (its envelope is { status: true, message, data }). */
  answer?: z.ZodTypeAny;
  /**
   * The request body. JSON (and urlencoded) bodies of POST and PUT are parsed here within `limit`
   * (default DEFAULT_BODY_LIMIT; larger answers 413), sized to what the route's validator accepts.
   * `csv: true` reads a CSV text body (text/csv, text/plain, application/csv) instead, within
   * the same limit. `schema` describes a JSON body the handler checks itself; `content` a body
   * no zod schema validates (multipart, CSV); `parse: false` when the route reads the body itself:
   * with `raw`, as the bytes that came (whatever the content type, within that limit; larger
   * answers 413), for a signature over them (a connector's webhook).
   */
  body?: { limit?: BodyLimit; why?: string; schema?: z.ZodTypeAny; content?: Record<string, { schema: unknown }>; parse?: false; csv?: true; raw?: BodyLimit };
  /** A route that touches no dependency (liveness): it never answers 503. */
  offline?: true;
}

type Method = 'get' | 'post' | 'put' | 'delete';

/** A route's first handler: parses its body and carries its declaration for api/openapi.ts. */
export type DeclaredHandler = RequestHandler & { spec: RouteSpec & { method: Method; path: string; bodyLimit: BodyLimit | null } };

interface StackLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  match(path: string): unknown;
}

/** Whether a path has a parameter (':id') or a wildcard. */
export const isLiteralPath = (path: unknown): path is string => typeof path === 'string' && !/[:*]/.test(path);

/**
 * Whether a route of `router` with a path of its own (no parameter) matches `path`: a literal
 * path shadows the parametric ones (DELETE /quickbooks/accounts is not DELETE /quickbooks/:id).
 */
export function literalRouteMatches(router: Router, path: string): boolean {
  return (router as unknown as { stack: StackLayer[] }).stack.some((l) => l.route && isLiteralPath(l.route.path) && l.match(path));
}

const bodyMethods = new Set<Method>(['post', 'put']);

export function route(router: Router, method: Method, path: string, spec: RouteSpec, ...handlers: RequestHandler[]): void {
  const parses = bodyMethods.has(method) && spec.body?.parse !== false;
  const limit = parses ? (spec.body?.limit ?? DEFAULT_BODY_LIMIT) : null;
  const json = !limit ? null : spec.body?.csv ? express.text({ type: ['text/csv', 'text/plain', 'application/csv'], limit }) : express.json({ limit });
  const form = limit ? express.urlencoded({ extended: false, limit }) : null;
  const raw = !parses && spec.body?.raw ? express.raw({ type: () => true, limit: spec.body.raw }) : null;
  const parametric = !isLiteralPath(path);
  const first: RequestHandler = (req, res, next) => {
    if (parametric && literalRouteMatches(router, req.path)) return next('route');
    if (raw) return raw(req, res, next);
    if (!json || !form) return next();
    json(req, res, (err?: unknown) => (err ? next(err) : form(req, res, next)));
  };
  const declared = Object.assign(first, { spec: { ...spec, method, path, bodyLimit: limit } }) as DeclaredHandler;
  router[method](path, declared, ...handlers);
}
