// The contract of the reports' answers (issue 19) as the api gives them
// (warehouse/reports/answers.ts) and the web app reads them: zod schemas and the types
// inferred from them. test/reports/api.test.ts parses real answers with them. Pure: zod only.
import { z } from 'zod';

export const STATEMENTS = ['trial-balance', 'profit-and-loss', 'balance-sheet', 'comprehensive-income', 'changes-in-equity', 'cash-flow'] as const;
export const RANGES = ['month', 'quarter', 'ytd', 'year'] as const;
export const COMPARISONS = ['prior', 'lastYear'] as const;
export const COLUMN_CHOICES = ['entities', 'eliminations', 'nci', 'adjustments', 'consolidated'] as const;
export const ROW_KINDS = ['section', 'group', 'account', 'subtotal', 'total', 'formula'] as const;
export const LINE_KINDS = ['accounts', 'subtotal', 'formula'] as const;

const period = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/);
/** Exact decimal text: amounts to the cent, percentages to 0.1. */
const decimal = z.string().regex(/^-?\d+(\.\d+)?$/);
/** A report figure: exact decimal text, or "n/m" for a variance % whose base is near zero (not meaningful). */
const figure = z.union([decimal, z.literal('n/m')]);
/** A moment, ISO 8601. */
const moment = z.string().datetime({ offset: true });
/** How fresh a report's figures are. */
export const freshnessSchema = z
  .object({
    /** When the figures were made: the last consolidation (null before the first). */
    dataAsOf: moment.nullable(),
    /** A sync or upload newer than that, which the figures do not include yet (run the consolidation). */
    stale: z.object({ at: moment, what: z.string() }).strict().nullable(),
  })
  .strict();

export const rangeSchema = z.object({ kind: z.enum(RANGES), months: z.array(period), from: period, to: period, label: z.string() });
export const monthStateSchema = z.object({ period, status: z.enum(['ok', 'blocked', 'missing']), locked: z.boolean(), messages: z.array(z.string()) });
export const reportColumnSchema = z.object({ key: z.string(), label: z.string(), format: z.enum(['amount', 'percent']) });
export const reportRowSchema = z.object({
  kind: z.enum(ROW_KINDS),
  label: z.string(),
  depth: z.number().int().min(0),
  /** A group account: what a drill-down opens. */
  account: z.string().optional(),
  /** A line of comprehensive income, changes in equity or the cash flow: what its drill-down opens (GET .../drilldown/{statement}?line=). */
  drill: z.string().optional(),
  values: z.array(figure.nullable()),
  notes: z.array(z.string()).optional(),
  /** A custom report's percentage line: its figures are percentages in every column. */
  format: z.literal('percent').optional(),
});
export const reportSchema = z
  .object({
    title: z.string(),
    currency: z.string(),
    range: rangeSchema,
    compareRange: rangeSchema.optional(),
    /** A balance sheet's date (YYYY-MM-DD): the last day of the range's last month. */
    asAt: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
    columns: z.array(reportColumnSchema),
    rows: z.array(reportRowSchema),
    balanced: z.array(z.boolean()).optional(),
    months: z.array(monthStateSchema),
    notices: z.array(z.string()),
    /** The budget beside the actual figures (?budget=): columns Actual, the budget, Variance, Variance %. */
    budget: z.object({ id: z.string(), name: z.string(), version: z.number().int() }).strict().optional(),
  })
  .merge(freshnessSchema)
  .strict();

const drillBase = { groupAccount: z.string(), groupAccountName: z.string(), accountType: z.string(), currency: z.string(), range: rangeSchema, months: z.array(period), note: z.string().nullable(), signs: z.enum(['display', 'net']), total: decimal };
export const drilldownEntitiesSchema = z
  .object({
    ...drillBase,
    level: z.literal('entities'),
    entities: z.array(z.object({ entity: z.string(), entityName: z.string(), amount: decimal })),
    entries: z.array(z.object({ kind: z.string(), entity: z.string().nullable(), entityName: z.string().nullable(), counterparty: z.string().nullable(), counterpartyName: z.string().nullable(), category: z.string().nullable(), amount: decimal, memo: z.string().nullable() })),
  })
  .strict();
export const drilldownSourcesSchema = z
  .object({
    ...drillBase,
    level: z.literal('sources'),
    entity: z.string(),
    entityName: z.string(),
    sources: z.array(z.object({ sourceAccount: z.string(), sourceAccountName: z.string().nullable(), label: z.string(), currency: z.string(), localAmount: decimal, amount: decimal, rateKind: z.string(), rate: z.string().nullable() })),
    entries: z.array(z.object({ kind: z.string(), amount: decimal })),
    earlierProfit: decimal.optional(),
  })
  .strict();
export const drilldownSchema = z.discriminatedUnion('level', [drilldownEntitiesSchema, drilldownSourcesSchema]);
/** What makes a figure of comprehensive income, changes in equity or the cash flow (GET /reports/{orgId}/drilldown/{statement}). */
export const flowDrilldownSchema = z
  .object({
    statement: z.enum(['comprehensive-income', 'changes-in-equity', 'cash-flow']),
    title: z.string(),
    /** The row's drill key, and its label. */
    line: z.string(),
    label: z.string(),
    /** The value column (changes in equity: the component) and its label. */
    column: z.string(),
    columnLabel: z.string(),
    currency: z.string(),
    range: rangeSchema,
    months: z.array(period),
    /** By report column (each entity in the group's order, eliminations, NCI, adjustments) and group account, in the line's signs; none nil. */
    parts: z.array(z.object({ column: z.string(), columnLabel: z.string(), entity: z.string().nullable(), account: z.string(), accountName: z.string(), amount: decimal }).strict()),
    /** What rounding the translated flows once per line and column leaves (null when nothing). */
    rounding: decimal.nullable(),
    /** The figure shown: the parts and the rounding add up to it. */
    total: decimal,
    note: z.string().nullable(),
  })
  .strict();

export const layoutLineSchema = z.object({
  id: z.string(),
  label: z.string(),
  kind: z.enum(LINE_KINDS),
  accounts: z.array(z.string()).optional(),
  groups: z.array(z.string()).optional(),
  of: z.array(z.string()).optional(),
  formula: z.string().optional(),
  format: z.enum(['amount', 'percent']).optional(),
});
export const layoutSchema = z.object({ name: z.string(), lines: z.array(layoutLineSchema) });
export const storedLayoutSchema = z.object({ id: z.string(), name: z.string(), layout: layoutSchema, updatedBy: z.string().nullable(), updatedAt: z.string().nullable() }).strict();
export const layoutListSchema = z.object({ reports: z.array(storedLayoutSchema) }).strict();

export type ReportAnswer = z.infer<typeof reportSchema>;
export type ReportRowAnswer = z.infer<typeof reportRowSchema>;
export type DrilldownAnswer = z.infer<typeof drilldownSchema>;
export type FlowDrilldownAnswer = z.infer<typeof flowDrilldownSchema>;
export type LayoutLine = z.infer<typeof layoutLineSchema>;
export type Layout = z.infer<typeof layoutSchema>;
export type StoredLayoutAnswer = z.infer<typeof storedLayoutSchema>;

// --- the Dashboard overview (GET /reports/{orgId}/overview) ----------------------------------
/** One month of the overview: figures in exact decimal text, null (not zero) when the month is not consolidated. */
export const overviewMonthSchema = z
  .object({
    period,
    label: z.string(),
    status: z.enum(['ok', 'blocked', 'missing']),
    locked: z.boolean(),
    /** Why a blocked month could not be consolidated (its checks' messages). */
    messages: z.array(z.string()),
    /** Income accounts, shown positive. */
    revenue: decimal.nullable(),
    /** Revenue less the accounts under "Expenses > Cost of sales". */
    grossMargin: decimal.nullable(),
    /** Profit for the month attributable to owners of the parent (after the NCI share). */
    netIncome: decimal.nullable(),
    /** Accounts under "Assets > Current assets > Cash", at the month's end. */
    cash: decimal.nullable(),
  })
  .strict();
export const overviewSchema = z
  .object({
    currency: z.string(),
    /** null when nothing is consolidated yet (and no ?to= was asked). */
    range: z.object({ from: period, to: period, label: z.string() }).nullable(),
    months: z.array(overviewMonthSchema),
    /** Over the range's consolidated months: each entity's profit, the eliminations' and the NCI share; they add up to netIncome. */
    contribution: z
      .object({
        entities: z.array(z.object({ entity: z.string(), entityName: z.string(), profit: decimal }).strict()),
        eliminations: decimal,
        nci: decimal,
        /** Posted consolidation journals' share of the profit. */
        adjustments: decimal,
        netIncome: decimal,
      })
      .strict(),
    notices: z.array(z.string()),
    /** The budget drawn beside the figures (?budget=, else the one saved last; null without any): per month its revenue and net income, null where it has no line. */
    budget: z
      .object({ id: z.string(), name: z.string(), months: z.array(z.object({ period, revenue: decimal.nullable(), netIncome: decimal.nullable() }).strict()) })
      .strict()
      .nullable()
      .optional(),
  })
  .merge(freshnessSchema)
  .strict();

export type FreshnessAnswer = z.infer<typeof freshnessSchema>;
export type OverviewMonthAnswer = z.infer<typeof overviewMonthSchema>;
export type OverviewAnswer = z.infer<typeof overviewSchema>;
