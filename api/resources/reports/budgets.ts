// Budgets of an organization (issue 34, budget vs actual), under the reports:
//   GET    /api/v1/reports/:orgId/budgets             the budgets (name, version, lines, who saved)
//   POST   /api/v1/reports/:orgId/budgets             save { name, lines [{ entity, period, account, amount }] }
//   POST   /api/v1/reports/:orgId/budgets/import      save a CSV (text/csv; ?name=)
//   GET    /api/v1/reports/:orgId/budgets/:id         one budget with its lines
//   DELETE /api/v1/reports/:orgId/budgets/:id
// Saving under a name that exists is a new version of that budget (its lines replaced at once).
// Every line is checked first (common/reports/budget.ts): a problem names its row and column, and
// nothing is saved. The statements' ?budget=<id> reads budgetColumn (warehouse/reports/budget-figures.ts).
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import type { Request, RequestHandler, Router } from 'express';
import { AMOUNT_SCALE, formatTrim } from '../../../common/consolidation/decimal';
import { checkBudget, MAX_BUDGET_LINES, problemsText, type BudgetInput } from '../../../common/reports/budget';
import { setupOf } from '../../../warehouse/reports/budget-figures';
import type { OrgDatabase } from '../../../warehouse/connection';
import { deleteBudget, listBudgets, readBudget, readBudgetLines, saveBudget } from '../../../warehouse/reports/budgets';
import { ApiError } from '../../lib/errors';
import { orgIdSchema } from '../../lib/organization';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { validate } from '../../lib/validate';

export const BUDGET_ID_RE = /^[a-z0-9-]{1,60}$/;
const budgetId = z.string().regex(BUDGET_ID_RE, 'A budget id is lowercase letters, digits and dashes');
const budgetName = z.string().trim().min(1, 'A budget needs a name').max(120, 'A budget name is at most 120 characters');
export const budgetParams = z.object({ orgId: orgIdSchema, id: budgetId });
const orgParams = z.object({ orgId: orgIdSchema });
const text = (max: number) => z.union([z.string(), z.number()]).transform(String).pipe(z.string().max(max));
export const budgetBody = z.object({
  name: budgetName,
  lines: z
    .array(z.object({ entity: z.string().max(200).nullable().optional(), period: text(20), account: text(200).nullable().optional(), groupAccount: text(40).nullable().optional(), amount: text(40) }))
    .min(1, 'A budget needs at least one line')
    .max(MAX_BUDGET_LINES, `A budget holds at most ${MAX_BUDGET_LINES.toLocaleString('en')} lines`),
});
const importQuery = z.object({ name: budgetName });
/**
 * The bodies' limits, sized to what the validators accept: 100,000 lines with every field at its
 * longest (entity 200, period 20, account 200, group account 40, amount 40): about 57 MB as JSON
 * with its keys, about 50.5 MB as CSV rows. test/openapi.test.ts checks they fit.
 */
export const BUDGET_BODY = { limit: '60mb', why: `${MAX_BUDGET_LINES.toLocaleString('en')} lines with every field at its longest` } as const;
export const BUDGET_CSV_BODY = { limit: '52mb', why: `${MAX_BUDGET_LINES.toLocaleString('en')} rows with every field at its longest` } as const;
/** The budget query of a report: ?budget=<id>. */
export const budgetQueryField = budgetId.optional();

/** The consolidation's entities, chart, mappings and rates: what lines are checked, mapped and translated against. */
/** A CSV's rows as budget inputs, each with its row in the file (the header is row 1). */
export function budgetInputsFromCsv(csvText: string): { inputs: BudgetInput[]; rows: number[] } {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(csvText, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), skip_empty_lines: true, trim: true, bom: true, info: true }) as typeof records;
  } catch (e) {
    throw new ApiError(400, `Budget not saved: the file is not a readable CSV (${String((e as Error).message).split('\n')[0]!.slice(0, 200)})`);
  }
  if (!records.length) throw new ApiError(400, 'Budget not saved: the file has no rows under its header');
  const header = records[0]!.record;
  const missing = [...(['period', 'amount'] as const).filter((c) => !(c in header)), ...(!('account' in header) && !('group_account' in header) ? ['account (or group_account)'] : [])];
  if (missing.length) throw new ApiError(400, `Budget not saved: the header needs the columns entity, period, account or group_account, amount (missing ${missing.join(', ')})`);
  if (records.length > MAX_BUDGET_LINES) throw new ApiError(400, `Budget not saved: a budget holds at most ${MAX_BUDGET_LINES.toLocaleString('en')} lines; this file has ${records.length.toLocaleString('en')}`);
  return {
    inputs: records.map(({ record: r }) => ({ entity: r.entity ?? '', period: r.period ?? '', account: r.account ?? '', groupAccount: r.group_account ?? '', amount: r.amount ?? '' })),
    rows: records.map(({ info }) => info.lines),
  };
}

/** Checks the lines against the consolidation and saves them under `name` (a new version when it exists); 400 naming every problem, nothing saved. */
export async function saveBudgetLines(o: Pick<OrgDatabase, 'db' | 'dialect'>, name: string, inputs: BudgetInput[], where: (i: number) => string, who: string) {
  const { lines, problems } = checkBudget(inputs, await setupOf(o.db), where);
  if (problems.length) throw new ApiError(400, `Budget not saved: ${problemsText(problems)}`);
  const saved = await saveBudget(o.db, o.dialect, randomUUID().slice(0, 8), name, lines, who);
  return { ...saved, lines: lines.length };
}

interface Helpers {
  orgDb<T>(req: Request, fn: (o: OrgDatabase) => Promise<T>): Promise<T>;
  readDb<T>(req: Request, fn: (o: OrgDatabase) => Promise<T>): Promise<T>;
  who(req: Request): string;
  any: RequestHandler;
}

/** The budget routes on the reports router (the same roles: users of the organization and admins read and write). */
export function budgetRoutes(router: Router, h: Helpers): void {
  const tag = 'reports';
  const idOf = (req: Request) => (req.params as { id: string }).id;
  const LINES = 'lines [{ entity (an entity\'s key or name; "group" or empty for the group as a whole), period (YYYY-MM), account (an entity\'s source account, mapped as its trial balance is; a group account\'s code for the group) or groupAccount (a group account named directly, for an entity or the group), amount (decimal text, at most 4 decimals, in the profit and loss\'s signs: income and expenses positive; in the entity\'s functional currency, translated at the month\'s average rate) }]';
  route(router, 'get', '/:orgId/budgets', { tag, summary: 'The budgets of the organization, user of the organization or admin: data.budgets [{ id, name, version, lineCount, updatedBy, updatedAt }] by name' }, h.any, validate({ params: orgParams }), async (req, res) => {
    ok(res, 'Budgets fetched', { budgets: await h.readDb(req, ({ db }) => listBudgets(db)) });
  });
  route(router, 'post', '/:orgId/budgets', { tag, body: BUDGET_BODY, statuses: { 201: 'Saved: data { id, version, lines, replaced }' }, summary: `Save a budget: name and ${LINES}. Under a name that exists it is a new version of that budget (its lines replaced at once; 200). Income and expense accounts only. 400 naming every line's problem ("Line 3, column account: ..."); nothing saved then` }, h.any, validate({ params: orgParams, body: budgetBody }), async (req, res) => {
    const body = req.body as z.output<typeof budgetBody>;
    const saved = await h.orgDb(req, (o) => saveBudgetLines(o, body.name, body.lines, (i) => `Line ${i + 1}`, h.who(req)));
    ok(res, saved.replaced ? `Budget saved: version ${saved.version}` : 'Budget saved', saved, saved.replaced ? 200 : 201);
  });
  route(router, 'post', '/:orgId/budgets/import', { tag, body: { ...BUDGET_CSV_BODY, csv: true, content: { 'text/csv': { schema: { type: 'string', description: 'entity, period, account, amount' } } } }, statuses: { 201: 'Saved: data { id, version, lines, replaced }' }, summary: 'Save a budget from a CSV (text/csv with the columns entity, period, account or group_account, amount; entity may be left out for a budget of the group) under ?name=; checked as the JSON form, a problem naming its row in the file (the header is row 1) and its column' }, h.any, validate({ params: orgParams, query: importQuery }), async (req, res) => {
    const { inputs, rows } = budgetInputsFromCsv(String(req.body ?? ''));
    const name = (res.locals.query as z.output<typeof importQuery>).name;
    const saved = await h.orgDb(req, (o) => saveBudgetLines(o, name, inputs, (i) => `Row ${rows[i]}`, h.who(req)));
    ok(res, saved.replaced ? `Budget saved: version ${saved.version}` : 'Budget saved', saved, saved.replaced ? 200 : 201);
  });
  route(router, 'get', '/:orgId/budgets/:id', { tag, statuses: { 404: 'No such budget' }, summary: 'One budget with its lines as entered: data { id, name, version, lineCount, updatedBy, updatedAt, lines [{ entity (null: the group), period, account (a source account, else null), groupAccount (a group account named directly, else null), amount }] }' }, h.any, validate({ params: budgetParams }), async (req, res) => {
    const found = await h.readDb(req, async ({ db }) => {
      const b = await readBudget(db, idOf(req));
      return b && { ...b, lines: (await readBudgetLines(db, b.id)).map((l) => ({ entity: l.entity, period: l.period, account: l.direct ? null : l.account, groupAccount: l.direct ? l.account : null, amount: formatTrim(l.amount, AMOUNT_SCALE) })) };
    });
    if (!found) throw new ApiError(404, 'Budget not found');
    ok(res, 'Budget fetched', found);
  });
  route(router, 'delete', '/:orgId/budgets/:id', { tag, statuses: { 404: 'No such budget' }, summary: 'Delete a budget and its lines' }, h.any, validate({ params: budgetParams }), async (req, res) => {
    if (!(await h.orgDb(req, ({ db, dialect }) => deleteBudget(db, dialect, idOf(req))))) throw new ApiError(404, 'Budget not found');
    ok(res, 'Budget deleted');
  });
}
