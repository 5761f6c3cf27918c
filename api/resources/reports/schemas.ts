// Request schemas of the reports resource (validated by validate(), shown by the OpenAPI document).
import { z } from 'zod';
import { PERIOD_RE } from '../../../common/consolidation/validate';
import { LINE_ID_RE, LINE_KINDS } from '../../../common/reports/custom';
import { COMPARISONS, RANGES } from '../../../common/reports/periods';
import { FLOW_STATEMENTS, STATEMENTS } from '../../../common/reports/statements';
import { orgIdSchema } from '../../lib/organization';
import { COLUMN_CHOICES } from '../../../warehouse/reports/answers';
import { budgetQueryField } from './budgets';
import type { BodyLimit } from '../../lib/route';

const period = z.string().regex(PERIOD_RE, 'A period is a month, YYYY-MM');
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

export const orgParams = z.object({ orgId: orgIdSchema });
export const statementParams = z.object({ orgId: orgIdSchema, statement: z.enum(STATEMENTS) });
export const flowStatementParams = z.object({ orgId: orgIdSchema, statement: z.enum(FLOW_STATEMENTS, { errorMap: () => ({ message: `A drill-down by line is for ${FLOW_STATEMENTS.join(', ')}` }) }) });
export const layoutParams = z.object({ orgId: orgIdSchema, id: z.string().regex(/^[a-z0-9-]{1,60}$/, 'A report id is lowercase letters, digits and dashes') });

/** ?period=YYYY-MM&range=month|quarter|ytd|year&columns=entities,eliminations,nci,adjustments,consolidated&compare=prior|lastYear */
export const reportQuery = z.object({
  period,
  range: z.enum(RANGES).default('month'),
  columns: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((c) => c.trim()).filter(Boolean))
    .pipe(z.array(z.enum(COLUMN_CHOICES, { errorMap: () => ({ message: `Columns are among ${COLUMN_CHOICES.join(', ')}` }) }))),
  compare: z.enum(COMPARISONS).optional(),
  showZero: flag.optional(),
  /** A budget's id: actual, budget, variance and variance % (the profit and loss and custom reports). */
  budget: budgetQueryField,
});
export const exportQuery = reportQuery.extend({ format: z.enum(['xlsx', 'csv']).default('xlsx') });
export const drilldownQuery = z.object({
  period,
  range: z.enum(RANGES).default('month'),
  groupAccount: z.string().trim().min(1).max(40),
  entity: z.string().trim().min(1).max(200).optional(),
  signs: z.enum(['display', 'net'], { errorMap: () => ({ message: 'signs is display or net' }) }).default('display'),
});

/** The statement's query, and the line (a row's drill key) and value column clicked. */
export const flowDrilldownQuery = reportQuery.extend({
  line: z.string().trim().regex(/^[a-z][a-z-]*(:[A-Za-z0-9_.:-]{1,240})?$/, 'line is a row\'s drill key, e.g. profit, fx, account:1100 or ce:0:closing'),
  column: z.string().trim().min(1, 'column is the value column clicked, e.g. consolidated').max(240),
});

const codes = z.array(z.string().trim().min(1).max(40)).max(1000);
export const lineSchema = z.object({
  id: z.string().regex(LINE_ID_RE, 'A line id starts with a letter and uses only a-z, digits and _ (at most 40)'),
  label: z.string().trim().min(1, 'Every line needs a label').max(200),
  kind: z.enum(LINE_KINDS),
  accounts: codes.optional(),
  groups: z.array(z.string().trim().min(1).max(400)).max(200).optional(),
  of: z.array(z.string().max(40)).max(200).optional(),
  formula: z.string().trim().max(1000).optional(),
  format: z.enum(['amount', 'percent']).default('amount'),
});
export const layoutBody = z.object({
  name: z.string().trim().min(1, 'A report needs a name').max(120),
  lines: z.array(lineSchema).min(1, 'A report needs at least one line').max(300),
});

/** ?to=YYYY-MM (default: the latest consolidated month)&months=1-36 (default 12) */
export const overviewQuery = z.object({
  to: period.optional(),
  months: z.coerce
    .number({ invalid_type_error: 'months is a whole number from 1 to 36' })
    .int('months is a whole number from 1 to 36')
    .min(1, 'months is a whole number from 1 to 36')
    .max(36, 'months is a whole number from 1 to 36')
    .default(12),
  budget: budgetQueryField,
});

/**
 * A layout body's limit, sized to what layoutBody accepts: 300 lines, each with every list at its
 * longest (1,000 account codes of 40, 200 groups of 400, 200 line ids of 40) and a 1,000-character
 * formula, in plain ASCII: about 40.1 MB. test/openapi.test.ts builds that body and checks it fits.
 */
export const LAYOUT_BODY = { limit: '41mb', why: '300 lines with every list and text at its longest' } as const satisfies { limit: BodyLimit; why: string };
