// The validation rules of spec section 5, written once: the api validates every input with
// them and the web app's forms import the same module. No Node built-ins here.
import { z } from 'zod';

export const messages = {
  passwordRequired: 'Password is required',
  password: 'Password must contain at least one uppercase letter, one lowercase letter, one number and one special character (@$!%*?&)',
  passwordLength: 'Password must be at least 8 characters',
  passwordsMatch: 'Passwords do not match',
  name: 'Name can only contain letters and spaces',
  nameRequired: 'Name is required',
  email: 'Please enter a valid email address',
  emailRequired: 'Email is required',
  shortName: 'Must be 3 to 50 lowercase letters',
  phoneRequired: 'Phone number is required',
  phoneFormat: 'Invalid phone number format',
  phoneDigits: 'Phone number should have 10 digits',
  tableName: 'Please enter a valid table name',
  selectFile: 'Please select a file before uploading.',
  selectOrganization: 'Please select an organization first',
  invalidFileFormat: 'Invalid file format',
  formFailed: 'Form submission failed! Please check the highlighted fields.',
  formIncomplete: 'Please fill in all required fields correctly',
} as const;

/** Lowercase, uppercase, digit and one of @$!%*?&, and nothing else. */
export const PASSWORD_RE = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[@$!%*?&])[A-Za-z\d@$!%*?&]+$/;
export const NAME_RE = /^[A-Za-z ]+$/;
/** {local}@{domain}.{suffix of 2+ letters} */
export const EMAIL_RE = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;
export const SHORT_NAME_RE = /^[a-z]{3,50}$/;
/** A table name the warehouse accepts: a letter, then letters, digits or underscores (max 100). */
export const TABLE_NAME_RE = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

export const password = z
  .string({ required_error: messages.passwordRequired, invalid_type_error: messages.passwordRequired })
  .min(1, messages.passwordRequired)
  .min(8, messages.passwordLength)
  .max(128, 'Password must be at most 128 characters')
  .regex(PASSWORD_RE, messages.password);

export const personName = z
  .string({ required_error: messages.nameRequired, invalid_type_error: messages.nameRequired })
  .trim()
  .min(1, messages.nameRequired)
  .max(100, 'Name must be at most 100 characters')
  .regex(NAME_RE, messages.name);

export const email = z
  .string({ required_error: messages.emailRequired, invalid_type_error: messages.emailRequired })
  .trim()
  .min(1, messages.emailRequired)
  .max(254, messages.email)
  .regex(EMAIL_RE, messages.email)
  .transform((v) => v.toLowerCase());

export const shortName = z.string({ required_error: messages.shortName, invalid_type_error: messages.shortName }).regex(SHORT_NAME_RE, messages.shortName);

/** Digits are extracted from what was typed; exactly 10 must remain. Answers the 10 digits. */
export const phone = z
  .string({ required_error: messages.phoneRequired, invalid_type_error: messages.phoneFormat })
  .trim()
  .min(1, messages.phoneRequired)
  .refine((v) => /^[\d\s()+.-]+$/.test(v), messages.phoneFormat)
  .transform((v) => v.replace(/\D/g, ''))
  .refine((d) => d.length === 10, messages.phoneDigits);

export const tableName = z.string({ required_error: messages.tableName, invalid_type_error: messages.tableName }).trim().regex(TABLE_NAME_RE, messages.tableName);

/** Runs one rule on one value: the first message, or undefined when it passes (for forms). */
export function check(schema: z.ZodTypeAny, value: unknown): string | undefined {
  const res = schema.safeParse(value);
  return res.success ? undefined : res.error.issues[0]?.message;
}
