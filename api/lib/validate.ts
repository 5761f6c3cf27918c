import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { ApiError } from './errors';

export interface Schemas {
  body?: z.ZodTypeAny;
  query?: z.ZodTypeAny;
  params?: z.ZodTypeAny;
}

/**
 * Validates body, query and params; the first failing rule's message becomes 400's
 * errors[0].msg. The parsed values are written back (query to res.locals.query, since
 * Express's req.query is a getter).
 */
export function validate(schemas: Schemas): RequestHandler & { schemas: Schemas } {
  // The schemas ride on the handler: api/openapi.ts reads them to describe the route.
  const handler: RequestHandler = (req, res, next) => {
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = schemas[part];
      if (!schema) continue;
      const parsed = schema.safeParse(req[part] ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const msg = issue?.message ?? 'Invalid input';
        return next(new ApiError(400, msg));
      }
      if (part === 'query') res.locals.query = parsed.data;
      else req[part] = parsed.data;
    }
    next();
  };
  return Object.assign(handler, { schemas });
}
