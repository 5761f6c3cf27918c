// A small in-memory fixed-window limiter, keyed per client IP and per email. One instance per
// app (so each test's app starts clean); a multi-instance deployment would need a shared store.
import type { RequestHandler } from 'express';
import { ApiError } from './errors';

export class FixedWindowLimiter {
  private readonly hits = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one attempt; answers the seconds to wait when the key is over its limit. */
  take(key: string): { allowed: true } | { allowed: false; retryAfterSec: number } {
    const t = this.now();
    if (this.hits.size > 10000) this.sweep(t);
    let entry = this.hits.get(key);
    if (!entry || entry.resetAt <= t) {
      entry = { count: 0, resetAt: t + this.windowMs };
      this.hits.set(key, entry);
    }
    entry.count += 1;
    if (entry.count > this.max) return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((entry.resetAt - t) / 1000)) };
    return { allowed: true };
  }

  /** Gives an attempt back (a successful login does not count against the limit). */
  refund(key: string): void {
    const entry = this.hits.get(key);
    if (entry && entry.count > 0) entry.count -= 1;
  }

  private sweep(t: number): void {
    for (const [k, v] of this.hits) if (v.resetAt <= t) this.hits.delete(k);
  }
}

export interface AuthRateLimitOptions {
  maxPerIp: number;
  maxPerEmail: number;
  windowSeconds: number;
  message: string;
  /** 'failures': attempts that end in success are refunded (login). 'all': every request counts. */
  count: 'failures' | 'all';
}

/**
 * Limits a route per client IP and per (validated, lower-cased) body email; over either limit
 * the answer is 429 with the message and a Retry-After header. Mount after validate().
 */
export function authRateLimit(opts: AuthRateLimitOptions): RequestHandler {
  const windowMs = opts.windowSeconds * 1000;
  const byIp = new FixedWindowLimiter(opts.maxPerIp, windowMs);
  const byEmail = new FixedWindowLimiter(opts.maxPerEmail, windowMs);
  return (req, res, next) => {
    const ipKey = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const email = typeof req.body?.email === 'string' ? req.body.email.trim().toLowerCase() : '';
    const ip = byIp.take(ipKey);
    const em = email ? byEmail.take(email) : ({ allowed: true } as const);
    if (!ip.allowed || !em.allowed) {
      const wait = Math.max(ip.allowed ? 0 : ip.retryAfterSec, em.allowed ? 0 : em.retryAfterSec);
      res.setHeader('Retry-After', String(wait));
      return next(new ApiError(429, opts.message));
    }
    if (opts.count === 'failures') {
      res.on('finish', () => {
        if (res.statusCode < 400) {
          byIp.refund(ipKey);
          if (email) byEmail.refund(email);
        }
      });
    }
    next();
  };
}
