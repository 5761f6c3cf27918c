// The contract of the consolidation's answers (issue 18) as the api gives them
// (api/resources/consolidation/service.ts) and the web app reads them: zod schemas and the
// TypeScript types inferred from them (the web app's types). test/e2e/consolidation.test.ts
// checks real answers against them. Pure: zod only, so the web app can include it; the word
// lists repeat common/consolidation/types.ts (the consolidation screens' test compares them).
import { z } from 'zod';
import { pageCounts } from './paging';

export const METHODS = ['full', 'proportional'] as const;
export const AMOUNT_BASES = ['balances', 'movements', 'ytd'] as const;
export const ACCOUNT_TYPES = ['asset', 'liability', 'equity', 'income', 'expense'] as const;
export const GROUP_ROLES = ['retained_earnings', 'cta', 'nci_equity', 'nci_profit', 'ic_difference', 'ic_suspense', 'unmapped', 'rounding'] as const;
/** Roles a chart has at most once: intercompany differences of credit and debit sign, remeasurement differences, goodwill and the gain on a bargain purchase. */
export const OPTIONAL_GROUP_ROLES = ['ic_difference_income', 'ic_suspense_debit', 'fx_remeasurement', 'goodwill', 'bargain_purchase'] as const;
/** A group account's own rate type (null: its type's rate). */
export const ACCOUNT_RATE_TYPES = ['closing', 'average', 'historical'] as const;
/** A group account's cash-flow category (indirect method; null: from its type and statement line). */
export const CASH_FLOW_CATEGORIES = ['working_capital', 'non_cash', 'investing', 'financing', 'cash'] as const;
export const IC_CATEGORIES = ['receivable_payable', 'revenue_expense', 'loan', 'investment_equity'] as const;
export const RATE_KINDS = ['same', 'closing', 'average', 'historical', 'historical_assumed', 'rolled'] as const;
export const ENTRY_KINDS = ['translation', 'rounding', 'elimination', 'ic_difference', 'nci', 'acquisition', 'adjustment'] as const;
/** How a rate is quoted: direct (presentation currency per unit, USD per EUR) or indirect (EUR per USD). */
export const QUOTES = ['direct', 'indirect'] as const;
/** How sure a mapping suggestion is (common/consolidation/suggest.ts); accepting in bulk takes the high ones. */
export const CONFIDENCES = ['high', 'medium', 'low'] as const;
export const CHECK_STATUSES = ['ok', 'blocked'] as const;
/** What a run says of each period: consolidated (ok), blocked, or left alone because it is locked. */
export const RUN_PERIOD_STATUSES = ['ok', 'blocked', 'locked'] as const;

/** A month, YYYY-MM. */
const period = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/);
/** Amounts travel as decimal text ("-5440.00"): credits negative, as in trial_balance. */
const amount = z.string().regex(/^-?\d+(\.\d+)?$/);
/** A stored amount the overview answers as the database holds it. */
const stored = z.union([z.number(), z.string()]);

export const settingsSchema = z.object({
  /** False until the settings were saved once (the answer then shows the defaults). */
  configured: z.boolean(),
  presentationCurrency: z.string(),
  method: z.enum(METHODS),
  toleranceAmount: z.string(),
  /** Percent, e.g. "1.5". */
  tolerancePct: z.string(),
  fiscalYearStartMonth: z.number().int().min(1).max(12),
  /** Two-person rule: a consolidation journal posts only once a different user approved it. */
  journalApproval: z.boolean(),
});

export const entitySchema = z.object({
  /** The entity's key in trial_balance. */
  entity: z.string(),
  name: z.string(),
  currency: z.string().nullable(),
  /** Percent owned by its parent, e.g. "80". */
  ownership: z.string(),
  /** The parent's key. */
  parent: z.string().nullable(),
  included: z.boolean(),
  basis: z.enum(AMOUNT_BASES),
  /** Where its rows come from: quickbooks, sage, netsuite or csv:<table>. */
  source: z.string().nullable(),
  /** Remeasured (ASC 830-10 temporal method: its exchange difference in profit or loss) instead of translated. */
  remeasure: z.boolean(),
});

export const groupAccountSchema = z.object({
  code: z.string(),
  name: z.string(),
  type: z.enum(ACCOUNT_TYPES),
  /** Statement line path, e.g. "Assets > Current assets > Cash". */
  line: z.string(),
  role: z.enum([...GROUP_ROLES, ...OPTIONAL_GROUP_ROLES]).nullable(),
  /** The account's rate type, overriding its type's; null (or absent from an older answer): its type's. */
  rateType: z.enum(ACCOUNT_RATE_TYPES).nullable().optional(),
  /** Its cash-flow category (working_capital, non_cash, investing, financing, cash); null (or absent from an older answer): from its type and line. */
  cashFlow: z.enum(CASH_FLOW_CATEGORIES).nullable().optional(),
});

export const lockSchema = z.object({ period, locked_by: z.string(), locked_at: z.string() });

export const periodCheckSchema = z.object({
  period,
  status: z.enum(CHECK_STATUSES),
  tb_net: stored,
  assets: stored,
  liabilities_and_equity: stored,
  eliminations_net: stored,
  unmapped_count: z.coerce.number(),
  missing_rates: z.coerce.number(),
  messages: z.array(z.string()),
});

/** GET /consolidation/{orgId} */
export const overviewSchema = z.object({
  settings: settingsSchema,
  entities: z.array(entitySchema),
  accounts: z.array(groupAccountSchema),
  locks: z.array(lockSchema),
  checks: z.array(periodCheckSchema),
});

export const mappingRowSchema = z.object({
  entity: z.string(),
  sourceAccount: z.string(),
  sourceAccountName: z.string().nullable(),
  sourceAccountType: z.string().nullable(),
  /** Null while the account is unmapped. */
  groupAccount: z.string().nullable(),
  groupAccountName: z.string().nullable(),
  icCounterparty: z.string().nullable(),
  icCategory: z.enum(IC_CATEGORIES).nullable(),
  /** How the mapping was made ("set by hand", "suggested: same code"). */
  reason: z.string().nullable(),
  /** For an unmapped account: the group account it most likely belongs to, and why. */
  suggestion: z.object({ groupAccount: z.string(), groupAccountName: z.string().nullable(), reason: z.string(), confidence: z.enum(CONFIDENCES) }).nullable(),
});

/** GET /consolidation/{orgId}/mappings */
export const mappingsPageSchema = z.object({
  mappings: z.array(mappingRowSchema),
  ...pageCounts,
  unmapped: z.number().int().min(0),
});

export const rateSchema = z.object({
  currency: z.string(),
  period,
  closing: z.string(),
  average: z.string(),
  /** As entered: closing and average are quoted this way. */
  quote: z.enum(QUOTES),
  source: z.string(),
  updated_by: z.string().nullable(),
  updated_at: z.string().nullable(),
});

/** GET /consolidation/{orgId}/rates */
export const ratesSchema = z.object({ rates: z.array(rateSchema) });

export const mismatchSchema = z.object({
  entityA: z.string(),
  entityAName: z.string(),
  entityB: z.string(),
  entityBName: z.string(),
  category: z.enum(IC_CATEGORIES),
  amountA: amount,
  amountB: amount,
  difference: amount,
  withinTolerance: z.boolean(),
  likelyCause: z.string(),
});

export const ctbRowSchema = z.object({
  groupAccount: z.string(),
  name: z.string(),
  type: z.enum(ACCOUNT_TYPES),
  line: z.string(),
  /** One amount per column's entity. */
  entities: z.record(amount),
  eliminations: amount,
  nci: amount,
  /** Posted consolidation journals (the "Adjustments" column). */
  adjustments: amount,
  consolidated: amount,
});

/** GET /consolidation/{orgId}/results?period= */
export const resultsSchema = z.object({
  period,
  locked: z.object({ lockedBy: z.string(), lockedAt: z.string() }).nullable(),
  check: z.object({
    status: z.enum(CHECK_STATUSES),
    tbNet: amount,
    assets: amount,
    liabilitiesAndEquity: amount,
    eliminationsNet: amount,
    unmappedCount: z.number().int(),
    missingRates: z.number().int(),
    messages: z.array(z.string()),
  }),
  columns: z.array(z.object({ entity: z.string(), name: z.string() })),
  rows: z.array(ctbRowSchema),
  mismatches: z.array(mismatchSchema),
});

/** GET /consolidation/{orgId}/drilldown?period=&groupAccount= */
export const drilldownSchema = z.object({
  period,
  groupAccount: z.string(),
  lines: z.array(
    z.object({
      entity: z.string(),
      entityName: z.string(),
      sourceAccount: z.string(),
      sourceAccountName: z.string().nullable(),
      /** In the entity's currency, 4 decimals. */
      localAmount: amount,
      currency: z.string(),
      rateKind: z.enum(RATE_KINDS),
      /** Null for a carried figure (rolled-forward retained earnings). */
      rate: z.string().nullable(),
      presentationAmount: amount,
    }),
  ),
  entries: z.array(
    z.object({
      entryId: z.string(),
      kind: z.enum(ENTRY_KINDS),
      entity: z.string().nullable(),
      entityName: z.string().nullable(),
      counterparty: z.string().nullable(),
      category: z.enum(IC_CATEGORIES).nullable(),
      amount,
      sources: z.array(z.string()),
      memo: z.string(),
      /** An adjustment entry's journal (null for the balances of earlier months' journals and for other kinds). */
      journal: z.object({ id: z.string(), reference: z.string(), period, kind: z.string(), status: z.string(), memo: z.string().nullable(), author: z.string().nullable(), approver: z.string().nullable() }).nullable(),
    }),
  ),
});

/** POST /consolidation/{orgId}/run, finished (200). */
export const runSchema = z.object({
  periods: z.number().int().min(0),
  rows: z.number().int().min(0),
  blocked: z.number().int().min(0),
  mismatches: z.number().int().min(0),
  unmapped: z.number().int().min(0),
  summary: z.array(z.object({ period, status: z.enum(RUN_PERIOD_STATUSES), messages: z.array(z.string()) })),
  workflowId: z.string(),
  temporalUrl: z.string(),
});

export const NCI_MEASUREMENTS = ['proportionate', 'fair_value'] as const;

/** GET /consolidation/{orgId}/acquisitions */
export const acquisitionsSchema = z.object({
  acquisitions: z.array(
    z.object({
      entity: z.string(),
      entityName: z.string(),
      /** YYYY-MM-DD, a month end. */
      date: z.string(),
      /** As entered, in considerationCurrency. */
      consideration: z.string(),
      considerationCurrency: z.string(),
      nciMeasurement: z.enum(NCI_MEASUREMENTS),
      /** In the entity's currency; null when proportionate. */
      nciFairValue: z.string().nullable(),
      adjustments: z.array(z.object({ groupAccount: z.string(), groupAccountName: z.string().nullable(), amount: z.string(), usefulLifeMonths: z.number().int().nullable(), amortizationAccount: z.string().nullable() })),
      updatedBy: z.string().nullable(),
      updatedAt: z.string().nullable(),
    }),
  ),
  ownershipChanges: z.array(z.object({ entity: z.string(), entityName: z.string(), from: period, ownership: z.string() })),
});
export type AcquisitionsAnswer = z.infer<typeof acquisitionsSchema>;
export type AcquisitionAnswer = AcquisitionsAnswer['acquisitions'][number];
export type NciMeasurement = (typeof NCI_MEASUREMENTS)[number];

export type ConsolidationSettingsAnswer = z.infer<typeof settingsSchema>;
export type EntityAnswer = z.infer<typeof entitySchema>;
export type GroupAccountAnswer = z.infer<typeof groupAccountSchema>;
export type PeriodCheckAnswer = z.infer<typeof periodCheckSchema>;
export type LockAnswer = z.infer<typeof lockSchema>;
export type OverviewAnswer = z.infer<typeof overviewSchema>;
export type MappingRowAnswer = z.infer<typeof mappingRowSchema>;
export type MappingsPageAnswer = z.infer<typeof mappingsPageSchema>;
export type RateAnswer = z.infer<typeof rateSchema>;
export type MismatchAnswer = z.infer<typeof mismatchSchema>;
export type CtbRowAnswer = z.infer<typeof ctbRowSchema>;
export type ResultsAnswer = z.infer<typeof resultsSchema>;
export type DrilldownAnswer = z.infer<typeof drilldownSchema>;
export type RunAnswer = z.infer<typeof runSchema>;
export type AmountBasis = (typeof AMOUNT_BASES)[number];
export type Method = (typeof METHODS)[number];
export type IcCategory = (typeof IC_CATEGORIES)[number];
export type GroupRole = (typeof GROUP_ROLES)[number] | (typeof OPTIONAL_GROUP_ROLES)[number];
export type AccountRateType = (typeof ACCOUNT_RATE_TYPES)[number];
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export type RateKind = (typeof RATE_KINDS)[number];
export type EntryKind = (typeof ENTRY_KINDS)[number];
export type RunPeriodStatus = (typeof RUN_PERIOD_STATUSES)[number];
