// /api/v1/contact-us: an inquiry from a signed-in user (spec section 7 lists it as authenticated).
import { Router } from 'express';
import { z } from 'zod';
import { email, hasControlChars, messages, personName, phone } from '../../common/validation';
import type { AppDeps } from '../deps';
import { auth } from '../lib/auth';
import { ok } from '../lib/respond';
import { validate } from '../lib/validate';
import { createInquiry } from '../services/contact';

const noControl = (v: string) => !hasControlChars(v);

const contactBody = z.preprocess(
  (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const b = v as Record<string, unknown>;
    return { ...b, name: b.name ?? b.fullName ?? b.fullname, phoneNumber: emptyToUndefined(b.phoneNumber ?? b.phone), subject: emptyToUndefined(b.subject) };
  },
  z.object(
    {
      name: personName,
      email,
      phoneNumber: phone.optional(),
      subject: z.string({ invalid_type_error: messages.subject }).trim().max(200, messages.subject).refine(noControl, messages.subject).optional(),
      message: z.string({ required_error: messages.contactMessage, invalid_type_error: messages.contactMessage }).trim().min(1, messages.contactMessage).max(5000, messages.contactMessage),
    },
    { invalid_type_error: 'Request body must be a JSON object' },
  ),
);

function emptyToUndefined(v: unknown) {
  return v === '' || v === null ? undefined : v;
}

export function contactRouter(deps: AppDeps): Router {
  const router = Router();
  router.post(
    '/',
    auth(),
    // Name and email default to the signed-in user's.
    (req, _res, next) => {
      const body: unknown = req.body ?? {};
      if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
        const b = body as Record<string, unknown>;
        req.body = { ...b, name: b.name ?? b.fullName ?? b.fullname ?? (req.user!.fullName || undefined), email: b.email ?? req.user!.email };
      }
      next();
    },
    validate({ body: contactBody }),
    async (req, res) => {
      const result = await createInquiry(deps.config, req.user!, req.body as z.infer<typeof contactBody>);
      ok(res, 'Thank you for contacting us. We will get back to you soon.', result, 201);
    },
  );
  return router;
}
