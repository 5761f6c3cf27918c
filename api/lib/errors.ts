import { WorkflowFailedError } from '@temporalio/client';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { failureMessage, failureTypeOf, httpStatusOf } from '../../common/failures';
import { logger } from '../../common/logger';
import { MONGO_UNAVAILABLE, mongoReason, mongoUnavailable } from './mongo';
import { SharedStoreBusy } from './shared-store';
import { TEMPORAL_UNAVAILABLE, temporalUnavailable } from './temporal';
import { ApiError } from '../../common/api-error';

/** A failure with its HTTP status and the message the user sees (common/api-error.ts: the warehouse's report answers throw it too). */
export { ApiError };

/** The answer when a shared counter stayed busy (api/lib/shared-store.ts SharedStoreBusy). */
export const SERVICE_BUSY = 'The service is busy right now: nothing was changed. Try again in a few seconds.';

export const badRequest = (msg: string) => new ApiError(400, msg);
export const unauthorized = (msg = 'Unauthorized') => new ApiError(401, msg);
export const forbidden = (msg = 'Forbidden') => new ApiError(403, msg);
export const notFound = (msg = 'Not found') => new ApiError(404, msg);

export const notFoundHandler: RequestHandler = (req, _res, next) => next(notFound(`Cannot ${req.method} ${req.path}`));

/** Shapes every failure as { status: false, message, errors: [{ msg }] }. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  let status = 500;
  let message = 'Internal server error';
  let detail: string | undefined;
  if (err instanceof ApiError) {
    status = err.status;
    message = err.message;
    detail = err.detail;
  } else if (err?.type === 'entity.too.large') {
    status = 413;
    message = 'Request body is too large';
  } else if (err?.type === 'entity.parse.failed') {
    status = 400;
    message = 'Request body is not valid JSON';
  } else if (temporalUnavailable(err)) {
    status = 503;
    message = TEMPORAL_UNAVAILABLE;
    res.setHeader('Retry-After', '30');
    logger.warn({ method: req.method, path: req.path, reason: (err as Error)?.message }, 'Temporal unreachable');
  } else if (err instanceof SharedStoreBusy) {
    // Another api process held this account's or address's counters for seconds: try again soon.
    status = 503;
    message = SERVICE_BUSY;
    res.setHeader('Retry-After', '5');
    logger.warn({ method: req.method, path: req.path }, 'shared store keys busy');
  } else if (mongoUnavailable(err)) {
    status = 503;
    message = MONGO_UNAVAILABLE;
    res.setHeader('Retry-After', '30');
    logger.warn({ method: req.method, path: req.path, reason: mongoReason(mongoUnavailable(err)!) }, 'Mongo unreachable');
  } else {
    logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
  }
  res.status(status).json({ status: false, message, errors: [{ msg: detail ?? message }] });
};

interface RouteLayer {
  match(path: string): false | { path: string };
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: RouteLayer[] };
}

const literal = (p: unknown) => typeof p === 'string' && !/[:*]/.test(p);

/**
 * The methods the routes of `stack` answer at `path` (nested routers included). A route with a
 * path of its own shadows the parametric ones of its router (route() skips them the same way):
 * /quickbooks/accounts is GET only, whatever DELETE /quickbooks/:id would take.
 */
export function allowedMethods(stack: RouteLayer[], path: string, into = new Set<string>()): Set<string> {
  const shadowed = stack.some((l) => l.route && literal(l.route.path) && l.match(path));
  for (const layer of stack) {
    if (layer.route && shadowed && !literal(layer.route.path)) continue;
    const m = layer.match(path);
    if (!m) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') into.add(method.toUpperCase());
    } else if (layer.handle?.stack) {
      allowedMethods(layer.handle.stack, path.slice(m.path.length) || '/', into);
    }
  }
  return into;
}

/** The Allow header's value for the methods a path answers (HEAD with GET). */
function allowHeader(allowed: Set<string>): string {
  const all = new Set(allowed);
  if (all.has('GET')) all.add('HEAD');
  return [...all].sort().join(', ');
}

/**
 * After a router's routes: a path the router knows under other methods answers 405 "Method Not
 * Allowed" with `Allow`; an unknown path 404.
 */
export function methodNotAllowed(router: unknown): RequestHandler {
  return (req, res, next) => {
    const allowed = allowedMethods((router as { stack: RouteLayer[] }).stack, req.path);
    if (allowed.size === 0 || allowed.has(req.method)) return notFoundHandler(req, res, next);
    res.setHeader('Allow', allowHeader(allowed));
    next(new ApiError(405, 'Method Not Allowed'));
  };
}

/**
 * Before a router's routes: OPTIONS answers 204 with the methods the path really answers (the
 * same Allow as a 405), instead of Express's list of every route whose pattern matches.
 */
export function optionsAllowed(router: unknown): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const allowed = allowedMethods((router as { stack: RouteLayer[] }).stack, req.path);
    if (allowed.size === 0) return notFoundHandler(req, res, next);
    res.setHeader('Allow', allowHeader(allowed));
    res.status(204).end();
  };
}

/**
 * A failed workflow as an answer: the spec's message, the cause in errors[0].msg, the status from
 * the failure table (common/failures.ts: 400 for input the user can fix, 404, 409, 503, else 502).
 */
export function stepFailure(e: unknown, message: string): never {
  if (!(e instanceof WorkflowFailedError)) throw e;
  throw new ApiError(httpStatusOf(failureTypeOf(e)), message, `${message}: ${failureMessage(e)}`);
}
