// Request schemas of the consolidation resource (validated by validate(), shown by the OpenAPI document).
import { z } from 'zod';
import { ACCOUNT_RATE_TYPES, ACCOUNT_TYPES, CASH_FLOW_CATEGORIES, AMOUNT_BASES, GROUP_ROLES, IC_CATEGORIES, METHODS, NCI_MEASUREMENTS, OPTIONAL_GROUP_ROLES, QUOTES } from '../../../common/consolidation/types';
import { MAX_USEFUL_LIFE_MONTHS } from '../../../common/consolidation/acquisitions';
import { OWNERSHIP_UNITS, PERIOD_RE } from '../../../common/consolidation/validate';
import { orgIdSchema } from '../../lib/organization';
import type { BodyLimit } from '../../lib/route';

// Each field has one schema, used by the JSON bodies and by the CSV imports' rows alike
// (service.ts throughSchema); a message never quotes the value (it may be megabytes long).
/** The most accounts a group chart holds, and the most rows a mappings or rates save takes. */
export const MAX_ACCOUNTS = 10_000;
export const MAX_ROWS = 50_000;

export const period = z.string().regex(PERIOD_RE, 'A period is a month, YYYY-MM');
// A number's rule (a rate's bounds, a tolerance's) is checked where it is used (service.ts, with
// common/consolidation/validate.ts), for the JSON and the CSV rows alike.
const decimalText = z.union([z.string(), z.number()]).transform((v) => String(v).trim());
const key = z.string().trim().min(1).max(200, 'An entity or source account has at most 200 characters');
const groupCode = z.string().trim().min(1).max(40, 'A group account code has at most 40 characters');
const icCategory = z.enum(IC_CATEGORIES, { errorMap: () => ({ message: `The intercompany category is one of ${IC_CATEGORIES.join(', ')}` }) });
// direct: presentation currency per 1 unit of the entity's ("USD per EUR"); indirect: the entity's currency per 1 presentation unit ("EUR per USD").
const quote = z.enum(QUOTES, { errorMap: () => ({ message: 'The quote is direct (presentation currency per unit, e.g. USD per EUR) or indirect (e.g. EUR per USD)' }) }).optional();

export const orgParams = z.object({ orgId: orgIdSchema });
export const entityParams = z.object({ orgId: orgIdSchema, entity: key });
export const periodParams = z.object({ orgId: orgIdSchema, period });

export const settingsBody = z.object({
  presentationCurrency: z.string().regex(/^[A-Z]{3}$/, 'The presentation currency is a 3-letter ISO 4217 code'),
  method: z.enum(METHODS).default('full'),
  toleranceAmount: decimalText.default('0'),
  tolerancePct: decimalText.default('0'),
  fiscalYearStartMonth: z.coerce.number().int().min(1).max(12).default(1),
  /** Two-person rule for consolidation journals; left out: unchanged. */
  journalApproval: z.boolean().optional(),
});

export const entityBody = z.object({
  name: z.string().trim().min(1).max(200),
  currency: z.string().regex(/^[A-Z]{3}$/, 'A currency is a 3-letter ISO 4217 code').nullable(),
  /** A percent: 75 for 75 %. A value above 0 and at most 1 needs ownershipUnit (validate.ts ownershipPercent). */
  ownership: decimalText,
  ownershipUnit: z.enum(OWNERSHIP_UNITS, { errorMap: () => ({ message: 'The ownership unit is percent (75 for 75 %) or fraction (0.75 for 75 %)' }) }).optional(),
  parent: key.nullable(),
  included: z.boolean(),
  basis: z.enum(AMOUNT_BASES),
  /** Remeasured (ASC 830-10 temporal method) instead of translated; absent: as it was. */
  remeasure: z.boolean({ invalid_type_error: 'remeasure is true (remeasured, ASC 830-10) or false (translated)' }).optional(),
  /** Effective-dated: the ownership holds from this month on, the months before keep theirs. Absent: the ownership of every month without a dated change. */
  ownershipFrom: period.optional(),
});

/** The most fair-value adjustments one acquisition takes. */
export const MAX_ADJUSTMENTS = 200;
export const adjustmentSchema = z.object({
  groupAccount: groupCode,
  /** In the subsidiary's functional currency, at most 4 decimals (positive raises an asset or lowers a liability). */
  amount: decimalText,
  usefulLifeMonths: z.number({ invalid_type_error: 'The useful life is a whole number of months' }).int('The useful life is a whole number of months').min(1, 'The useful life is at least 1 month').max(MAX_USEFUL_LIFE_MONTHS, `The useful life is at most ${MAX_USEFUL_LIFE_MONTHS} months`).nullable().default(null),
  amortizationAccount: groupCode.nullable().default(null),
});
export const acquisitionBody = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'The acquisition date is YYYY-MM-DD, a month end'),
  consideration: decimalText,
  considerationCurrency: z.string().regex(/^[A-Z]{3}$/, 'The consideration currency is a 3-letter ISO 4217 code'),
  nciMeasurement: z.enum(NCI_MEASUREMENTS, { errorMap: () => ({ message: 'NCI is measured at its proportionate share (proportionate) or at fair value (fair_value)' }) }),
  nciFairValue: decimalText.nullable().default(null),
  adjustments: z.array(adjustmentSchema).max(MAX_ADJUSTMENTS, `At most ${MAX_ADJUSTMENTS} fair-value adjustments`).default([]),
  /** Not supported yet: refused with a message saying so (service.ts). */
  disposalDate: z.unknown().optional(),
  additionalStake: z.unknown().optional(),
});

export const groupAccountSchema = z.object({
  code: groupCode,
  name: z.string().trim().min(1).max(200, 'A group account name has at most 200 characters'),
  type: z.enum(ACCOUNT_TYPES, { errorMap: () => ({ message: `The type is one of ${ACCOUNT_TYPES.join(', ')}` }) }),
  line: z.string().trim().max(400, 'A statement line has at most 400 characters').default(''),
  role: z.enum([...GROUP_ROLES, ...OPTIONAL_GROUP_ROLES], { errorMap: () => ({ message: `The role is one of ${[...GROUP_ROLES, ...OPTIONAL_GROUP_ROLES].join(', ')}` }) }).nullable().default(null),
  /** The account's rate type, overriding its type's (null: the type's rate). */
  rateType: z.enum(ACCOUNT_RATE_TYPES, { errorMap: () => ({ message: `The rate type is one of ${ACCOUNT_RATE_TYPES.join(', ')}, or null for the account type's rate` }) }).nullable().default(null),
  /** Where its movement goes in the cash flow (null: from its type and statement line). */
  cashFlow: z.enum(CASH_FLOW_CATEGORIES, { errorMap: () => ({ message: `The cash-flow category is one of ${CASH_FLOW_CATEGORIES.join(', ')}, or null for the one its type and line give` }) }).nullable().default(null),
});
export const accountsBody = z.object({ accounts: z.array(groupAccountSchema).min(1).max(MAX_ACCOUNTS) });

export const mappingSchema = z.object({
  entity: key,
  sourceAccount: key,
  groupAccount: groupCode,
  icCounterparty: key.nullable().default(null),
  icCategory: icCategory.nullable().default(null),
});
export const mappingsBody = z.object({ mappings: z.array(mappingSchema).min(1).max(MAX_ROWS) });
export const mappingsQuery = z.object({
  entity: key.optional(),
  unmapped: z.enum(['true', 'false']).default('false'),
  intercompany: z.enum(['true', 'false']).default('false'),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(500).default(100),
});
export const acceptBody = z.object({ entity: key.optional() });

export const rateSchema = z.object({ currency: z.string().trim().max(3, 'A currency is a 3-letter ISO 4217 code'), period, closing: decimalText, average: decimalText, quote });
export const ratesBody = z.object({ rates: z.array(rateSchema).min(1).max(MAX_ROWS) });
export const historicalSchema = z.object({ entity: key, groupAccount: groupCode, rate: decimalText, quote });
export const historicalBody = z.object({ rates: z.array(historicalSchema).min(1).max(MAX_ROWS) });

export const runBody = z.object({ from: period.optional(), to: period.optional() }).refine((b) => !b.from || !b.to || b.from <= b.to, 'from must not be after to');
export const runQuery = z.object({ wait: z.enum(['true', 'false']).default('true') });
export const resultsQuery = z.object({ period });
export const drilldownQuery = z.object({ period, groupAccount: groupCode, entity: key.optional() });

/**
 * Each body's limit, sized to what its validator accepts: the most rows it takes, every text at
 * its longest (plain ASCII; numbers as 40 digits, NUMBER_TEXT_MAX), written as JSON (keys and
 * punctuation included) or as CSV. test/openapi.test.ts builds those bodies and checks they fit.
 */
export const BODY_LIMITS = {
  /** 10,000 accounts of about 720 bytes: 7.2 MB. */
  accounts: { limit: '8mb', why: `${MAX_ACCOUNTS.toLocaleString('en')} accounts at their longest` },
  /** The CSV imports keep their 20 MB where that is more than their rows at their longest take. */
  accountsCsv: { limit: '20mb', why: `more than ${MAX_ACCOUNTS.toLocaleString('en')} accounts at their longest take` },
  /** 50,000 mappings of about 745 bytes: 37.3 MB (as CSV, about 33 MB). */
  mappings: { limit: '38mb', why: `${MAX_ROWS.toLocaleString('en')} mappings at their longest` },
  mappingsCsv: { limit: '38mb', why: `${MAX_ROWS.toLocaleString('en')} mappings at their longest` },
  /** 50,000 rates of about 144 bytes: 7.2 MB. */
  rates: { limit: '8mb', why: `${MAX_ROWS.toLocaleString('en')} rates at their longest` },
  ratesCsv: { limit: '20mb', why: `more than ${MAX_ROWS.toLocaleString('en')} rates at their longest take` },
  /** 50,000 historical rates of about 322 bytes: 16.1 MB. */
  historicalRates: { limit: '17mb', why: `${MAX_ROWS.toLocaleString('en')} historical rates at their longest` },
} as const satisfies Record<string, { limit: BodyLimit; why: string }>;
