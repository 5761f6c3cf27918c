// The contact resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { documentedPhone as phone, z } from '../../lib/zod';
import { email, hasControlChars, messages, personName, PHONE_RE } from '../../../common/validation';

export const noControl = (v: string) => !hasControlChars(v);

export const contactBody = z.preprocess(
  (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const b = v as Record<string, unknown>;
    return { ...b, name: b.name ?? b.fullName ?? b.fullname, phoneNumber: emptyToUndefined(b.phoneNumber ?? b.phone), subject: emptyToUndefined(b.subject) };
  },
  z.object(
    {
      name: personName,
      email,
      // Empty is none (the form's field is optional): documented so, not with the rule's minimum.
      phoneNumber: phone.optional().openapi({ type: 'string', pattern: `^$|${PHONE_RE.source}`, description: 'Optional; empty is none. Otherwise digits, spaces, ( ) + . or -, exactly 10 digits' }),
      subject: z.string({ invalid_type_error: messages.subject }).trim().max(200, messages.subject).refine(noControl, messages.subject).optional(),
      message: z.string({ required_error: messages.contactMessage, invalid_type_error: messages.contactMessage }).trim().min(1, messages.contactMessage).max(5000, messages.contactMessage),
    },
    { invalid_type_error: 'Request body must be a JSON object' },
  ),
);

export function emptyToUndefined(v: unknown) {
  return v === '' || v === null ? undefined : v;
}
