// Request schemas of the data explorer (validated by validate(), shown by the OpenAPI document).
// A table or column name is any text here: the service accepts only names the database's own
// catalog lists (an unknown table is 404, an unknown column 400), never one taken as SQL.
import { DEFAULT_PAGE_SIZE, filterSchema, MAX_FILTERS, MAX_PAGE_SIZE } from '../../../common/contract/tables';
import { orgIdSchema } from '../../lib/organization';
import { z } from '../../lib/zod';

const name = (what: string) => z.string({ required_error: `${what} is missing` }).min(1, `${what} is missing`).max(128, `${what} is at most 128 characters`);

export const orgParams = z.object({ orgId: orgIdSchema });
export const tableParams = z.object({ orgId: orgIdSchema, table: name('The table name').openapi({ description: "A table of the organization's database, as GET /tables/{orgId} lists it" }) });

const filters = z.array(filterSchema, { invalid_type_error: 'Filters are a list of { column, op, value }' }).max(MAX_FILTERS, `At most ${MAX_FILTERS} filters`);

/** Filters in a query string: a JSON list of { column, op, value }. */
const filtersParam = z
  .string()
  .max(20_000, 'Filters are too long')
  .transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Filters must be a JSON list of { column, op, value }' });
      return z.NEVER;
    }
  })
  .pipe(filters)
  .openapi({
    type: 'string',
    description: `A JSON list (URL-encoded) of up to ${MAX_FILTERS} filters { column, op, value }, all of which a row must match; op is eq, ne, contains, starts_with, gt, gte, lt, lte, is_empty or not_empty. Example: [{"column":"amount","op":"gte","value":"100"},{"column":"memo","op":"contains","value":"rent"}]`,
  });

const order = {
  sort: name('The sort column').optional().openapi({ description: 'A column to sort by (ties, and no sort, keep the order the rows were written in)' }),
  dir: z.enum(['asc', 'desc'], { errorMap: () => ({ message: 'dir is asc or desc' }) }).default('asc'),
};

export const rowsQuery = z.object({
  page: z.coerce.number({ invalid_type_error: 'page is a number' }).int().min(1, 'page starts at 1').max(1_000_000).default(1),
  pageSize: z.coerce.number({ invalid_type_error: 'pageSize is a number' }).int().min(1).max(MAX_PAGE_SIZE, `At most ${MAX_PAGE_SIZE} rows per page`).default(DEFAULT_PAGE_SIZE),
  ...order,
  filters: filtersParam.optional(),
});

/** The download: the same order and filters as a page (all matching rows), or a link's token. */
export const csvQuery = z.object({
  ...order,
  filters: filtersParam.optional(),
  link: z.string().max(8000).optional().openapi({ description: 'A download link\'s token (POST .../csv-link) instead of a bearer token: its order and filters apply' }),
});

/** POST .../csv-link: the order and filters the download keeps. */
export const csvLinkBody = z.object({ ...order, filters: filters.default([]) });
