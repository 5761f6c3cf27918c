import type { Response } from 'express';

/** The success shape of every answer: { status: true, message, data }. */
export function ok(res: Response, message: string, data: unknown = {}, status = 200): void {
  res.status(status).json({ status: true, message, data });
}
