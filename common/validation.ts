// The validation rules of spec section 5, written once: the api validates every input with
// them and the web app's forms import the same module. No Node built-ins here.
import { z } from 'zod';
// Every zod string's length rules count characters, not UTF-16 units (see the module).
import './text-length';
export { charCount } from './text-length';
import { SYNC_PROVIDERS } from './contract/connections';

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
  currentPasswordRequired: 'Current password is required',
  confirmPasswordRequired: 'Please confirm the new password',
  organizationNameRequired: 'Organization name is required',
  organizationName: 'Organization name must be at most 100 characters, without control characters',
  address: 'Address must be at most 300 characters',
  description: 'Description must be at most 1000 characters',
  dashboardsJson: 'Dashboards must be valid JSON: a list of { name, url }',
  dashboardsList: 'Dashboards must be a list of { name, url }',
  dashboardName: 'Each dashboard needs a name (at most 100 characters)',
  dashboardUrl: 'Each dashboard needs a valid http(s) url',
  role: 'Role must be admin or user',
  pipeline: 'Pipeline must be at most 200 characters',
  contactMessage: 'Message is required (at most 5000 characters)',
  subject: 'Subject must be at most 200 characters',
} as const;

/** Lowercase, uppercase, digit and one of @$!%*?&, and nothing else. */
export const PASSWORD_RE = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[@$!%*?&])[A-Za-z\d@$!%*?&]+$/;
/** Letters of any script (José, Zoë, Łukasz) and spaces; an apostrophe or hyphen only between letters (O'Brien, Jean-Luc). */
export const NAME_RE = /^[\p{L}\p{M}]+(?:(?: +|['’-])[\p{L}\p{M}]+)* *$/u;
/** {local}@{domain}.{suffix of 2+ letters} */
export const EMAIL_RE = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;
export const SHORT_NAME_RE = /^[a-z]{3,50}$/;
/**
 * A Mongo ObjectId: 24 hex digits. Upper case is accepted on every route and read as lower case
 * (objectId below), the form Mongo, workflow ids and tenant checks use.
 */
export const OBJECT_ID_RE = /^[a-fA-F0-9]{24}$/;
/** A Temporal run id (a pipeline run's runId): a UUID, upper case read as lower case. */
export const RUN_ID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** What a phone number may hold as typed: digits, spaces, ( ) + . and - (10 digits must remain). */
export const PHONE_RE = /^[\d\s()+.-]+$/;
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
  .refine((v) => PHONE_RE.test(v), messages.phoneFormat)
  .transform((v) => v.replace(/\D/g, ''))
  .refine((d) => d.length === 10, messages.phoneDigits);

/**
 * Names of tables LedgerFlow writes itself (connector syncs, reporting, consolidation) and the
 * database's own: a CSV may not take them (it would be replaced, or break the rebuild).
 */
export const RESERVED_TABLE_NAMES: readonly string[] = ['trial_balance', 'budgets', 'budget_lines', 'report_layouts'];
/** Every connector's tables are named <key>_... (a new connector's prefix comes with its key). */
export const RESERVED_TABLE_PREFIXES: readonly string[] = [...SYNC_PROVIDERS.map((key) => `${key}_`), 'consolidation_', 'consolidated_', 'group_', 'fx_', 'intercompany_', 'sqlite_', '_'];

/** True for a name the product keeps for its own tables (case-insensitive, as SQL names are). */
export function isReservedTableName(name: string): boolean {
  const n = name.trim().toLowerCase();
  return RESERVED_TABLE_NAMES.includes(n) || RESERVED_TABLE_PREFIXES.some((p) => n.startsWith(p));
}

export const reservedTableNameMessage = (name: string) => `"${name.trim()}" is a name LedgerFlow uses for its own tables: choose another table name.`;

export const tableName = z
  .string({ required_error: messages.tableName, invalid_type_error: messages.tableName })
  .trim()
  .regex(TABLE_NAME_RE, messages.tableName)
  .superRefine((v, ctx) => {
    if (isReservedTableName(v)) ctx.addIssue({ code: z.ZodIssueCode.custom, message: reservedTableNameMessage(v) });
  });

/** True when the text holds a control character (line breaks included). */
export function hasControlChars(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** An organization's display name: free text, trimmed, 1 to 100 printable characters. */
export const organizationName = z
  .string({ required_error: messages.organizationNameRequired, invalid_type_error: messages.organizationNameRequired })
  .trim()
  .min(1, messages.organizationNameRequired)
  .max(100, messages.organizationName)
  .refine((v) => !hasControlChars(v), messages.organizationName);

export const role = z.enum(['admin', 'user'], { errorMap: () => ({ message: messages.role }) });

/** An http(s) URL (never javascript: or data:, since dashboards are embedded in frames). */
export const httpUrl = z
  .string({ required_error: messages.dashboardUrl, invalid_type_error: messages.dashboardUrl })
  .trim()
  .max(2000, messages.dashboardUrl)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      return false;
    }
  }, messages.dashboardUrl);

export const dashboard = z.object(
  {
    name: z.string({ required_error: messages.dashboardName, invalid_type_error: messages.dashboardName }).trim().min(1, messages.dashboardName).max(100, messages.dashboardName),
    url: httpUrl,
  },
  { invalid_type_error: messages.dashboardsList, required_error: messages.dashboardsList },
);

/** Marks a string that did not parse as JSON, so the list rule can name the real problem. */
const INVALID_JSON = Symbol('invalid JSON');

/**
 * A list of { name, url }. It may also arrive as an escaped JSON string (spec section 3);
 * a string that is not JSON gets its own message.
 */
export const dashboards = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    if (v.trim() === '') return [];
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return INVALID_JSON;
    }
  },
  z
    .custom<unknown>((v) => v !== INVALID_JSON, messages.dashboardsJson)
    .pipe(z.array(dashboard, { invalid_type_error: messages.dashboardsList }).max(50, 'At most 50 dashboards')),
) as unknown as z.ZodType<{ name: string; url: string }[]>;

/**
 * An id (path parameter, query or body reference): 24 hex digits, answered in lower case. `message`
 * when it is malformed (it names the field), `missing` when it is absent or empty.
 */
export function objectId(message: string, missing = message) {
  return z
    .string({ required_error: missing, invalid_type_error: missing })
    .trim()
    .min(1, missing)
    .regex(OBJECT_ID_RE, message)
    .transform((v) => v.toLowerCase());
}

/** Runs one rule on one value: the first message, or undefined when it passes (for forms). */
export function check(schema: z.ZodTypeAny, value: unknown): string | undefined {
  const res = schema.safeParse(value);
  return res.success ? undefined : res.error.issues[0]?.message;
}
