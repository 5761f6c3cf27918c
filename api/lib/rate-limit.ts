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

export interface LoginThrottleOptions {
  windowSeconds: number;
  /** Failed logins from one IP per window; over it, sources not known to the account get 429. */
  maxPerIp: number;
  /** Failed logins of one account from one IP per window; over it, that pair gets 429. */
  maxPerPair: number;
  /** Failed logins of one account from anywhere before each further attempt waits. */
  maxPerAccount: number;
  /** The first wait, doubled per further failure, capped at delayMaxSeconds. */
  delayBaseSeconds: number;
  delayMaxSeconds: number;
  now?: () => number;
}

export type ThrottleVerdict = { allowed: true } | { allowed: false; retryAfterSec: number };

/** Failures counted in fixed windows (only failures: a success never counts). */
class FailureCounter {
  private readonly entries = new Map<string, { count: number; resetAt: number }>();
  constructor(private readonly windowMs: number) {}

  get(key: string, t: number): { count: number; resetAt: number } | undefined {
    const e = this.entries.get(key);
    if (e && e.resetAt <= t) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  add(key: string, t: number): void {
    if (this.entries.size > 10000) for (const [k, v] of this.entries) if (v.resetAt <= t) this.entries.delete(k);
    const e = this.get(key, t);
    if (e) e.count += 1;
    else this.entries.set(key, { count: 1, resetAt: t + this.windowMs });
  }

  clear(key: string): void {
    this.entries.delete(key);
  }
}

const waitSec = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The login throttle (issue 15 item 16). Only failed logins count, kept three ways:
 * - per (account, IP) pair: over maxPerPair that pair gets 429 until its window ends, whoever asks;
 * - per IP: over maxPerIp, accounts that never signed in from that IP get 429 (password spraying
 *   from one address), while an account's known source (an IP it signed in from before) still
 *   gets through: one attacker behind an office's NAT does not lock the office out;
 * - per account from anywhere: past maxPerAccount each further attempt from a source the
 *   account does not know waits delayBase * 2^(failures - maxPerAccount) seconds (capped) after
 *   the last failure: slowed, never locked, and the owner's known sources are not slowed at all.
 * The verdict is decided before the password is checked, so a refused attempt learns nothing.
 * In memory, one per app: a multi-instance deployment would need a shared store.
 */
export class LoginThrottle {
  private readonly byIp: FailureCounter;
  private readonly byPair: FailureCounter;
  private readonly byAccount = new Map<string, { failures: number; lastAt: number }>();
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: LoginThrottleOptions) {
    this.windowMs = opts.windowSeconds * 1000;
    this.byIp = new FailureCounter(this.windowMs);
    this.byPair = new FailureCounter(this.windowMs);
    this.now = opts.now ?? Date.now;
  }

  /** The wait after an account's `failures`th failure (0 below the threshold). */
  delaySeconds(failures: number): number {
    if (failures < this.opts.maxPerAccount) return 0;
    return Math.min(this.opts.delayBaseSeconds * 2 ** Math.min(failures - this.opts.maxPerAccount, 30), this.opts.delayMaxSeconds);
  }

  check(account: string, ip: string, knownSource: boolean): ThrottleVerdict {
    const t = this.now();
    const pair = this.byPair.get(pairKey(account, ip), t);
    if (pair && pair.count >= this.opts.maxPerPair) return { allowed: false, retryAfterSec: waitSec(pair.resetAt - t) };
    if (knownSource) return { allowed: true };
    const byIp = this.byIp.get(ip, t);
    if (byIp && byIp.count >= this.opts.maxPerIp) return { allowed: false, retryAfterSec: waitSec(byIp.resetAt - t) };
    const acc = this.account(account, t);
    if (acc) {
      const until = acc.lastAt + this.delaySeconds(acc.failures) * 1000;
      if (until > t) return { allowed: false, retryAfterSec: waitSec(until - t) };
    }
    return { allowed: true };
  }

  recordFailure(account: string, ip: string): void {
    const t = this.now();
    this.byIp.add(ip, t);
    this.byPair.add(pairKey(account, ip), t);
    if (this.byAccount.size > 10000) for (const k of [...this.byAccount.keys()]) this.account(k, t);
    const acc = this.account(account, t);
    this.byAccount.set(account, { failures: (acc?.failures ?? 0) + 1, lastAt: t });
  }

  /** A correct password clears that pair's failures (the account's stay: others may be guessing). */
  recordSuccess(account: string, ip: string): void {
    this.byPair.clear(pairKey(account, ip));
  }

  /** An account's failures, forgotten a window after the last one. */
  private account(account: string, t: number) {
    const acc = this.byAccount.get(account);
    if (acc && t - acc.lastAt >= this.windowMs) {
      this.byAccount.delete(account);
      return undefined;
    }
    return acc;
  }
}

const pairKey = (account: string, ip: string) => `${account}\n${ip}`;
