// /api/v1/contact-us: a contact inquiry. Spec section 7 lists the call among the authenticated
// ones, but the form sits on the public landing page (section 1), so a visitor without a token
// may send one too: a token, when sent, must be valid (401 otherwise) and names the sender;
// every sender is rate-limited per IP and per email.
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { authRateLimit } from '../../lib/rate-limit';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { route } from '../../lib/route';
import { createInquiry } from './service';
import { contactBody } from './schemas';

/** With an Authorization header the token must be valid; without, an anonymous visitor. */
const optionalAuth: RequestHandler = (req, res, next) => (req.headers.authorization ? auth()(req, res, next) : next());

export function contactRouter(deps: AppDeps): Router {
  const cfg = deps.config;
  const router = Router();
  const limit = authRateLimit({ maxPerIp: cfg.CONTACT_MAX_PER_IP, maxPerEmail: cfg.CONTACT_MAX_PER_IP, windowSeconds: cfg.AUTH_RATE_WINDOW_SECONDS, count: 'all', message: 'Too many messages. Please try again later.' });
  route(
    router,
    'post',
    '/',
    {
      summary: 'Send a contact inquiry (stored; the admins are notified by mail). A visitor without a token gives name and email; for a signed-in user they default to the user. 429 when rate-limited',
      tag: 'contact',
      access: 'optional',
      statuses: { 201: 'Stored', 429: 'Too many messages from this address or for this email' },
    },
    optionalAuth,
    // For a signed-in user, name and email default to the user's.
    (req, _res, next) => {
      const body: unknown = req.body ?? {};
      if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
        const b = body as Record<string, unknown>;
        if (req.user) req.body = { ...b, name: b.name ?? b.fullName ?? b.fullname ?? (req.user.fullName || undefined), email: b.email ?? req.user.email };
      }
      next();
    },
    validate({ body: contactBody }),
    limit,
    async (req, res) => {
      const result = await createInquiry(cfg, req.user ?? null, req.body as z.infer<typeof contactBody>);
      ok(res, 'Thank you for contacting us. We will get back to you soon.', result, 201);
    },
  );
  return router;
}
