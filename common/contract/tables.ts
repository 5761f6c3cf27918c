// The contract of the data explorer (issue 19) as the api answers it (api/resources/tables) and
// the web app reads it (web/src/features/explorer): the tables of an organization's database,
// one page of a table's rows, the filters a page is asked with, and the limits. zod schemas and
// the TypeScript types inferred from them. test/explorer.test.ts checks real answers against
// them. Pure: zod only, so the web app can include it.
import { z } from 'zod';

/**
 * What wrote a table: a saved CSV, a connector sync, the reporting rebuild (trial_balance), the
 * consolidation's outputs or its settings, or something else (made outside LedgerFlow).
 */
export const TABLE_KINDS = ['csv', 'connector', 'reporting', 'consolidation', 'consolidation_settings', 'other'] as const;
export type TableKind = (typeof TABLE_KINDS)[number];

/** How a column's values read: what the web app formats by and which filters fit. */
export const COLUMN_KINDS = ['text', 'number', 'date', 'datetime', 'boolean'] as const;
export type ColumnKind = (typeof COLUMN_KINDS)[number];

/**
 * Filter operators: equals / not equals, contains / starts with (text, case as the database
 * compares), comparisons (numbers, dates, text order), and empty / not empty (null or '').
 */
export const FILTER_OPS = ['eq', 'ne', 'contains', 'starts_with', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'not_empty'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];
/** Operators that take no value. */
export const VALUELESS_OPS: readonly FilterOp[] = ['is_empty', 'not_empty'];
/** Operators that compare by order (numbers, dates, text). */
export const ORDER_OPS: readonly FilterOp[] = ['gt', 'gte', 'lt', 'lte'];
/** Operators that match text inside values (any column, as its text). */
export const TEXT_OPS: readonly FilterOp[] = ['contains', 'starts_with'];

export const FILTER_OP_LABELS: Record<FilterOp, string> = {
  eq: 'equals',
  ne: 'does not equal',
  contains: 'contains',
  starts_with: 'starts with',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  is_empty: 'is empty',
  not_empty: 'is not empty',
};

/** Which operators a column of each kind offers. */
export const OPS_FOR_KIND: Record<ColumnKind, readonly FilterOp[]> = {
  text: ['contains', 'eq', 'ne', 'starts_with', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'not_empty'],
  number: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'is_empty', 'not_empty'],
  date: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'starts_with', 'is_empty', 'not_empty'],
  datetime: ['gte', 'lt', 'gt', 'lte', 'starts_with', 'eq', 'ne', 'is_empty', 'not_empty'],
  boolean: ['eq', 'ne', 'is_empty', 'not_empty'],
};

export const DEFAULT_PAGE_SIZE = 50;
/** The most rows one page answers (the download has no limit: it streams). */
export const MAX_PAGE_SIZE = 500;
export const PAGE_SIZES = [25, 50, 100, 250, 500] as const;
/** The most filters one request takes, and the longest filter value. */
export const MAX_FILTERS = 20;
export const MAX_FILTER_VALUE = 500;

/** Pipelines that write product tables, by name, and the table a run's detail opens for each. */
export const PIPELINE_TABLES: Record<string, readonly string[]> = {
  'rebuild-reporting-tables': ['trial_balance'],
  consolidate: ['consolidated_trial_balance', 'consolidation_translated_lines', 'consolidation_entries', 'consolidation_checks'],
};

/** Dates travel as ISO text. */
const when = z.string().datetime({ offset: true });

export const filterSchema = z
  .object({
    column: z.string({ required_error: 'A filter names a column' }).min(1, 'A filter names a column').max(128),
    op: z.enum(FILTER_OPS, { errorMap: () => ({ message: `A filter's op is one of ${FILTER_OPS.join(', ')}` }) }),
    value: z.union([z.string(), z.number(), z.boolean()]).transform(String).pipe(z.string().max(MAX_FILTER_VALUE, `A filter value is at most ${MAX_FILTER_VALUE} characters`)).optional(),
  })
  .superRefine((f, ctx) => {
    if (!VALUELESS_OPS.includes(f.op) && (f.value === undefined || f.value === '')) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `The filter on "${f.column}" (${FILTER_OP_LABELS[f.op]}) needs a value` });
  });
export type TableFilter = z.input<typeof filterSchema>;

export const columnSchema = z.object({
  name: z.string(),
  /** The type the database declares (e.g. NUMERIC, TEXT, nvarchar(200)). */
  type: z.string(),
  kind: z.enum(COLUMN_KINDS),
});

/** Who or what wrote the table last, in words, with what the web app links or shows. */
export const tableSourceSchema = z.object({
  type: z.enum(['upload', 'pipeline', 'sync', 'consolidation', 'settings']),
  /** One line for people: "ledger.csv saved by Carla Controller", "QuickBooks sync of Sandbox Company". */
  label: z.string(),
  /** When that write happened (ISO), when known. */
  at: when.nullable(),
  /** The file the rows came from (upload id, name, who uploaded it). */
  upload: z.object({ id: z.string(), fileName: z.string(), uploadedBy: z.string().nullable() }).nullable(),
  /** The pipeline run that wrote it (run id, pipeline name, who started it). */
  pipelineRun: z.object({ runId: z.string(), pipeline: z.string(), startedBy: z.string().nullable() }).nullable(),
  /** The sync that wrote it (provider and the connection's company name). */
  sync: z.object({ provider: z.string(), account: z.string().nullable() }).nullable(),
});

export const tableInfoSchema = z.object({
  name: z.string(),
  kind: z.enum(TABLE_KINDS),
  rows: z.number().int().min(0),
  columns: z.array(columnSchema),
  source: tableSourceSchema.nullable(),
  /** When its rows were last written (ISO), when known. */
  lastWrittenAt: when.nullable(),
});

/** GET /tables/{orgId} */
export const tableListSchema = z.object({
  /** False until onboarding made the organization's database (tables is empty then). */
  databaseReady: z.boolean(),
  tables: z.array(tableInfoSchema),
});

/** GET /tables/{orgId}/{table} */
export const tableAnswerSchema = z.object({ table: tableInfoSchema });

/** GET /tables/{orgId}/{table}/rows: one page; each row's values in `columns`' order. */
export const rowsPageSchema = z.object({
  table: z.string(),
  columns: z.array(columnSchema),
  rows: z.array(z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))),
  /** Rows matching the filters. */
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  pageSize: z.number().int().min(1).max(MAX_PAGE_SIZE),
  pages: z.number().int().min(1),
  sort: z.object({ column: z.string(), dir: z.enum(['asc', 'desc']) }).nullable(),
  filters: z.array(z.object({ column: z.string(), op: z.enum(FILTER_OPS), value: z.string().optional() })),
});

/** POST /tables/{orgId}/{table}/csv-link: a short-lived address the browser downloads from (streamed to disk). */
export const csvLinkSchema = z.object({ url: z.string(), expiresAt: when });

export type ColumnAnswer = z.infer<typeof columnSchema>;
export type TableSourceAnswer = z.infer<typeof tableSourceSchema>;
export type TableInfoAnswer = z.infer<typeof tableInfoSchema>;
export type TableListAnswer = z.infer<typeof tableListSchema>;
export type RowsPageAnswer = z.infer<typeof rowsPageSchema>;
export type CsvLinkAnswer = z.infer<typeof csvLinkSchema>;
