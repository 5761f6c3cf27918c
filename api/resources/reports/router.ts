// Reports (issue 19): the built-in statements (trial balance, profit and loss, balance sheet) and
// custom layouts over the consolidation's outputs, their drill-down and XLSX / CSV exports. Users
// reach their own organization's only; admins any. Everything is read from (and layouts kept in)
// the organization's own database.
import { randomUUID } from 'node:crypto';
import { Router, type Request } from 'express';
import type { OrgDatabase } from '../../../warehouse/connection';
import { ensureOrgSchema, readingAsProvisioned } from '../../../warehouse/org-schema';
import { deleteLayout, listLayouts, readLayout, saveLayout } from '../../../warehouse/reports/store';
import type { FlowStatementKind, StatementKind } from '../../../common/reports/statements';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { ApiError } from '../../lib/errors';
import { withRequestOrgDatabase } from '../../lib/org-database';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { route } from '../../lib/route';
import { drilldownSchema, flowDrilldownSchema, freshnessSchema, layoutListSchema, overviewSchema, reportSchema, storedLayoutSchema } from '../../../common/contract/reports';
import { budgetRoutes } from './budgets';
import { overview } from './overview';
import * as s from './schemas';
import { LAYOUT_BODY } from './schemas';
import * as svc from '../../../warehouse/reports/answers';


export function reportsRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  const any = auth('admin', 'user');
  const tag = 'reports';
  const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  /** Databases whose tables are known to exist (they are only ever added). */
  const ready = new Set<string>();

  /** The organization's database for a change: its tables made when missing (provisioning or the worker's migration made them already, but for a database not migrated yet). */
  function orgDb<T>(req: Request, fn: (o: OrgDatabase) => Promise<T>): Promise<T> {
    return withRequestOrgDatabase(cfg, req, async (o, { orgId, databaseName }) => {
      const key = `${orgId}/${databaseName}`;
      if (!ready.has(key)) {
        await ensureOrgSchema(o);
        ready.add(key);
      }
      return fn(o);
    });
  }
  /** The organization's database for a read: opened read-only (tables not made yet read as made: empty). */
  function readDb<T>(req: Request, fn: (o: OrgDatabase) => Promise<T>): Promise<T> {
    return withRequestOrgDatabase(cfg, req, async (o) => fn(await readingAsProvisioned(o)), { readOnly: true });
  }
  const who = (req: Request) => req.user!.fullName || req.user!.email;
  const statementOf = (req: Request) => (req.params as { statement: StatementKind }).statement;

  route(router, 'get', '/:orgId/statements/:statement', { tag, answer: reportSchema, summary: "A built-in statement (trial-balance | profit-and-loss | balance-sheet | comprehensive-income | changes-in-equity | cash-flow) over the consolidation's outputs, user of the organization or admin. ?period=YYYY-MM and ?range=month | quarter | ytd | year (fiscal quarters and years from the group's fiscal year start); ?columns= a comma list among entities, eliminations, nci, adjustments (posted consolidation journals; left out for a range without any), consolidated (default all), or ?compare=prior | lastYear for the consolidated figures beside the same months a period or a year earlier, with variance and variance % ('n/m' when the base is near zero: below 1.00, or a change of 1,000 % or more); or (profit and loss only) ?budget=<id> for columns Actual (consolidated), the budget's, Variance (actual less budget) and Variance % of the budget (the same 'n/m'), data.budget { id, name, version }; a budget with a comparison, or on another statement, is a 400, an unknown budget a 404. A quarter or year still in progress holds its months up to the last one consolidated, and its label says so ('Jan-Oct 2026, year to date'). Balance-sheet accounts at the range's last month (asAt, its last day), income and expenses summed over it, retained earnings less the range's earlier profit (shown as profit for the period), so every column balances; the profit and loss has gross profit and operating profit from the group chart's lines. comprehensive-income: profit, then OCI (exchange differences on translating foreign operations: the CTA's movement over the range), each split between owners and NCI; changes-in-equity: columns share capital, retained earnings, translation reserve, owners, NCI, total; rows opening (the month before the range), profit, OCI, dividends, shares issued, acquisitions (NCI arising), closing and the balance sheet's equity (consolidated figures; with ?compare a second block); cash-flow (IAS 7, indirect): operating (profit, non-cash items, working capital by each group account's cash-flow category), investing (an acquisition one line net of cash acquired), financing, the effect of exchange rates on cash, opening and closing cash, foreign entities' flows at the month's average rate. Each has check rows and balanced per column (a notice when a check fails). Entity columns in the group's order (a parent before its subsidiaries). data { title, currency, range { kind, from, to, label, months }, compareRange, asAt, columns [{ key, label, format }], rows [{ kind (section | group | account | subtotal | total), label, depth, account, values (decimal text, 'n/m' or null) }], balanced (per column), months [{ period, status (ok | blocked | missing), locked, messages }], notices (never a month still to come; a blocked month with its reason; intercompany mismatches beyond tolerance; a sync or upload the figures do not include yet), dataAsOf, stale }" }, any, validate({ params: s.statementParams, query: s.reportQuery }), async (req, res) => {
    ok(res, 'Report fetched', await readDb(req, ({ db, dialect }) => svc.statement(db, dialect, statementOf(req), res.locals.query)));
  });

  route(router, 'get', '/:orgId/statements/:statement/export', { tag, summary: 'The statement as XLSX (?format=xlsx, default: one sheet per built-in statement, the chosen one first; real numbers with number formats, frozen header) or CSV (?format=csv: this statement, exact decimal text); the same query as the statement. A failure is JSON' }, any, validate({ params: s.statementParams, query: s.exportQuery }), async (req, res) => {
    const q = res.locals.query as svc.ReportQuery & { format: 'xlsx' | 'csv' };
    const kind = statementOf(req);
    if (q.format === 'csv') {
      const r = await readDb(req, ({ db, dialect }) => svc.statement(db, dialect, kind, q));
      res.type('text/csv').attachment(svc.fileName(r.title, r.range, 'csv')).send(svc.csv(r));
      return;
    }
    const all = await readDb(req, ({ db, dialect }) => svc.allStatements(db, dialect, kind, q));
    // The file's type and name only once it is made: a failure answers JSON.
    const book = await svc.xlsx(all);
    res.type(XLSX).attachment(svc.fileName('statements', all[0]!.range, 'xlsx')).send(book);
  });

  route(router, 'get', '/:orgId/overview', { tag, answer: overviewSchema, summary: "The Dashboard overview, user of the organization or admin: ?months= (1-36, default 12) months ending ?to=YYYY-MM (default the latest consolidated month). data { currency, range { from, to, label } (null when nothing is consolidated yet), months [{ period, label, status (ok | blocked | missing), locked, messages (why a blocked month could not run), revenue (income accounts, positive), grossMargin (revenue less the accounts under Expenses > Cost of sales), netIncome (profit attributable to owners of the parent), cash (accounts under Assets > Current assets > Cash at the month's end) }] (figures are decimal text, null for a month not consolidated), contribution { entities [{ entity, entityName, profit }], eliminations, nci, adjustments (consolidation journals), netIncome } over the range's consolidated months (they add up to netIncome), notices, budget ({ id, name, months [{ period, revenue, netIncome }] }: the budget ?budget=<id> asks for, else the one saved last; null without any) }" }, any, validate({ params: s.orgParams, query: s.overviewQuery }), async (req, res) => {
    ok(res, 'Overview fetched', await readDb(req, ({ db, dialect }) => overview(db, dialect, res.locals.query)));
  });

  // The open pages' version check: three small reads, no figures. A page refetches its report only when this changes.
  route(router, 'get', '/:orgId/freshness', { tag, answer: freshnessSchema, summary: "How fresh the organization's figures are, user of the organization or admin; what an open Reports or Dashboard page checks (about every 15 s) to refresh itself when a consolidation lands. data { dataAsOf (the last consolidation, ISO, null before the first), stale ({ at, what }: a sync or upload newer than it, which the figures do not include yet; else null) }" }, any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Freshness fetched', await readDb(req, ({ db }) => svc.freshness(db)));
  });

  route(router, 'get', '/:orgId/drilldown', { tag, answer: drilldownSchema, statuses: { 404: 'A group account not in the chart, or an entity not in the consolidation' }, summary: "What makes a report figure (?period, ?range, ?groupAccount; ?signs=display (default: the statements' signs, income, liabilities and equity positive) or net (debit positive, as the trial balance)): data.level 'entities' with entities [{ entity, entityName, amount }] in the group's order and the elimination, intercompany-difference and NCI entries; with ?entity=, data.level 'sources' with that entity's source accounts [{ sourceAccount, sourceAccountName, label (the account's number and name; a QuickBooks account by its name, its code being an internal Id), currency, localAmount, amount, rateKind, rate }] and its translation entries; total: what the lines add up to (the report's figure). The range is cut at its last consolidated month as the statements cut it. 404 for a group account not in the chart or an entity not in the consolidation" }, any, validate({ params: s.orgParams, query: s.drilldownQuery }), async (req, res) => {
    ok(res, 'Drill-down fetched', await readDb(req, ({ db, dialect }) => svc.drilldown(db, dialect, res.locals.query)));
  });

  route(router, 'get', '/:orgId/drilldown/:statement', { tag, answer: flowDrilldownSchema, statuses: { 404: 'No such line or column in the statement as the query shows it' }, summary: "What makes a figure of comprehensive-income, changes-in-equity or cash-flow, user of the organization or admin: the statement's query (?period, ?range, ?columns or ?compare, ?showZero) with ?line= (the row's drill key: profit, oci, tci, profit-owners, ..., account:<code>, acquisition:<entity>, equity-other, opening-cash, closing-cash, fx, fx-own, operating, investing, financing, net; changes in equity ce:<block>:<row>) and ?column= (the value column's key; changes in equity: capital | retained | translation | owners | nci | total). data { statement, title, line, label, column, columnLabel, currency, range, months, parts [{ column, columnLabel, entity, account, accountName, amount }] (by report column, each entity in the group's order, then eliminations, NCI, adjustments, and group account; the line's own signs; none nil), rounding (the cents rounding the translated flows once per line and column leaves, or null), total (the figure shown: parts and rounding add up to it), note (how a computed line is made) }" }, any, validate({ params: s.flowStatementParams, query: s.flowDrilldownQuery }), async (req, res) => {
    const kind = (req.params as { statement: FlowStatementKind }).statement;
    ok(res, 'Drill-down fetched', await readDb(req, ({ db, dialect }) => svc.flowDrilldown(db, dialect, kind, res.locals.query)));
  });

  route(router, 'get', '/:orgId/custom', { tag, answer: layoutListSchema, summary: 'Custom report layouts of the organization: data.reports [{ id, name, layout { name, lines }, updatedBy, updatedAt }]' }, any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Custom reports fetched', { reports: await readDb(req, ({ db }) => listLayouts(db)) });
  });
  route(router, 'post', '/:orgId/custom', { tag, body: LAYOUT_BODY, statuses: { 201: 'Saved: data.id' }, summary: 'Save a new layout: name and lines [{ id, label, kind (accounts | subtotal | formula), accounts (group account codes), groups (statement line paths), of (line ids above), formula (over line ids above, numbers, + - * / and parentheses), format (amount | percent) }]; 201 with data.id; 400 naming every unknown line, account or group and unreadable formula (nothing saved)' }, any, validate({ params: s.orgParams, body: s.layoutBody }), async (req, res) => {
    const id = randomUUID().slice(0, 8);
    await orgDb(req, async ({ db }) => {
      await svc.checkLayoutOrRefuse(db, req.body);
      await saveLayout(db, id, req.body, who(req));
    });
    ok(res, 'Report saved', { id }, 201);
  });
  route(router, 'get', '/:orgId/custom/:id', { tag, answer: storedLayoutSchema, summary: 'One layout (404 when unknown)' }, any, validate({ params: s.layoutParams }), async (req, res) => {
    const found = await readDb(req, ({ db }) => readLayout(db, (req.params as { id: string }).id));
    if (!found) throw new ApiError(404, 'Report not found');
    ok(res, 'Custom report fetched', found);
  });
  route(router, 'put', '/:orgId/custom/:id', { tag, body: LAYOUT_BODY, summary: 'Replace a layout; checked as on creation' }, any, validate({ params: s.layoutParams, body: s.layoutBody }), async (req, res) => {
    const id = (req.params as { id: string }).id;
    await orgDb(req, async ({ db }) => {
      if (!(await readLayout(db, id))) throw new ApiError(404, 'Report not found');
      await svc.checkLayoutOrRefuse(db, req.body);
      await saveLayout(db, id, req.body, who(req));
    });
    ok(res, 'Report saved', { id });
  });
  route(router, 'delete', '/:orgId/custom/:id', { tag, summary: 'Delete a layout' }, any, validate({ params: s.layoutParams }), async (req, res) => {
    if (!(await orgDb(req, ({ db }) => deleteLayout(db, (req.params as { id: string }).id)))) throw new ApiError(404, 'Report not found');
    ok(res, 'Report deleted');
  });
  route(router, 'get', '/:orgId/custom/:id/figures', { tag, answer: reportSchema, summary: "A layout's figures, with the statements' query (?period, ?range, ?columns or ?compare): formula lines exact, rounded half-even (amounts to the cent, percentages to 0.1); a division by zero leaves the figure null with a note naming the line" }, any, validate({ params: s.layoutParams, query: s.reportQuery }), async (req, res) => {
    ok(res, 'Report fetched', await readDb(req, async ({ db, dialect }) => {
      const found = await readLayout(db, (req.params as { id: string }).id);
      if (!found) throw new ApiError(404, 'Report not found');
      return svc.customReport(db, dialect, found.layout, res.locals.query);
    }));
  });
  route(router, 'get', '/:orgId/custom/:id/export', { tag, summary: "A layout's figures as XLSX (one sheet) or CSV (?format=); a failure is JSON" }, any, validate({ params: s.layoutParams, query: s.exportQuery }), async (req, res) => {
    const q = res.locals.query as svc.ReportQuery & { format: 'xlsx' | 'csv' };
    const r = await readDb(req, async ({ db, dialect }) => {
      const found = await readLayout(db, (req.params as { id: string }).id);
      if (!found) throw new ApiError(404, 'Report not found');
      return svc.customReport(db, dialect, found.layout, q);
    });
    if (q.format === 'csv') res.type('text/csv').attachment(svc.fileName(r.title, r.range, 'csv')).send(svc.csv(r));
    else {
      const book = await svc.xlsx([r]);
      res.type(XLSX).attachment(svc.fileName(r.title, r.range, 'xlsx')).send(book);
    }
  });

  budgetRoutes(router, { orgDb, readDb, who, any });

  return router;
}
