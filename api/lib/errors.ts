import type { ErrorRequestHandler, RequestHandler } from 'express';
import { logger } from '../../common/logger';
import { TEMPORAL_UNAVAILABLE, temporalUnavailable } from './temporal';

/** A failure with its HTTP status and the message the user sees. */
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    /** errors[0].msg when it should differ from message (e.g. the detailed cause). */
    public readonly detail?: string,
  ) {
    super(message);
  }
}

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
  } else {
    logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
  }
  res.status(status).json({ status: false, message, errors: [{ msg: detail ?? message }] });
};
