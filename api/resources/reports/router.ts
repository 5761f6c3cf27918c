// Reports (issue 19): the built-in statements (trial balance, profit and loss, balance sheet) and
// custom layouts over the consolidation's outputs, their drill-down and XLSX / CSV exports. Users
// reach their own organization's only; admins any. Everything is read from (and layouts kept in)
// the organization's own database.
import { randomUUID } from 'node:crypto';
import { Router, type Request } from 'express';
import type { OrgDatabase } from '../../../warehouse/connection';
import { ensureOrgSchema, readingAsProvisioned } from '../../../warehouse/org-schema';
import { deleteLayout, listLayouts, readLayout, saveLayout } from '../../../warehouse/reports/store';
import type { StatementKind } from '../../../common/reports/statements';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { ApiError } from '../../lib/errors';
import { withRequestOrgDatabase } from '../../lib/org-database';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { overview } from './overview';
import * as s from './schemas';
import * as svc from './service';


export function reportsRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  const any = auth('admin', 'user');
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

  router.get('/:orgId/statements/:statement', any, validate({ params: s.statementParams, query: s.reportQuery }), async (req, res) => {
    ok(res, 'Report fetched', await readDb(req, ({ db, dialect }) => svc.statement(db, dialect, statementOf(req), res.locals.query)));
  });

  router.get('/:orgId/statements/:statement/export', any, validate({ params: s.statementParams, query: s.exportQuery }), async (req, res) => {
    const q = res.locals.query as svc.ReportQuery & { format: 'xlsx' | 'csv' };
    const kind = statementOf(req);
    if (q.format === 'csv') {
      const r = await readDb(req, ({ db, dialect }) => svc.statement(db, dialect, kind, q));
      res.type('text/csv').attachment(svc.fileName(r.title, r.range, 'csv')).send(svc.csv(r));
      return;
    }
    const all = await readDb(req, ({ db, dialect }) => svc.allStatements(db, dialect, kind, q));
    res.type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet').attachment(svc.fileName('statements', all[0]!.range, 'xlsx')).send(await svc.xlsx(all));
  });

  router.get('/:orgId/overview', any, validate({ params: s.orgParams, query: s.overviewQuery }), async (req, res) => {
    ok(res, 'Overview fetched', await readDb(req, ({ db, dialect }) => overview(db, dialect, res.locals.query)));
  });

  router.get('/:orgId/drilldown', any, validate({ params: s.orgParams, query: s.drilldownQuery }), async (req, res) => {
    ok(res, 'Drill-down fetched', await readDb(req, ({ db, dialect }) => svc.drilldown(db, dialect, res.locals.query)));
  });

  router.get('/:orgId/custom', any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Custom reports fetched', { reports: await readDb(req, ({ db }) => listLayouts(db)) });
  });
  router.post('/:orgId/custom', any, validate({ params: s.orgParams, body: s.layoutBody }), async (req, res) => {
    const id = randomUUID().slice(0, 8);
    await orgDb(req, async ({ db }) => {
      await svc.checkLayoutOrRefuse(db, req.body);
      await saveLayout(db, id, req.body, who(req));
    });
    ok(res, 'Report saved', { id }, 201);
  });
  router.get('/:orgId/custom/:id', any, validate({ params: s.layoutParams }), async (req, res) => {
    const found = await readDb(req, ({ db }) => readLayout(db, (req.params as { id: string }).id));
    if (!found) throw new ApiError(404, 'Report not found');
    ok(res, 'Custom report fetched', found);
  });
  router.put('/:orgId/custom/:id', any, validate({ params: s.layoutParams, body: s.layoutBody }), async (req, res) => {
    const id = (req.params as { id: string }).id;
    await orgDb(req, async ({ db }) => {
      if (!(await readLayout(db, id))) throw new ApiError(404, 'Report not found');
      await svc.checkLayoutOrRefuse(db, req.body);
      await saveLayout(db, id, req.body, who(req));
    });
    ok(res, 'Report saved', { id });
  });
  router.delete('/:orgId/custom/:id', any, validate({ params: s.layoutParams }), async (req, res) => {
    if (!(await orgDb(req, ({ db }) => deleteLayout(db, (req.params as { id: string }).id)))) throw new ApiError(404, 'Report not found');
    ok(res, 'Report deleted');
  });
  router.get('/:orgId/custom/:id/figures', any, validate({ params: s.layoutParams, query: s.reportQuery }), async (req, res) => {
    ok(res, 'Report fetched', await readDb(req, async ({ db, dialect }) => {
      const found = await readLayout(db, (req.params as { id: string }).id);
      if (!found) throw new ApiError(404, 'Report not found');
      return svc.customReport(db, dialect, found.layout, res.locals.query);
    }));
  });
  router.get('/:orgId/custom/:id/export', any, validate({ params: s.layoutParams, query: s.exportQuery }), async (req, res) => {
    const q = res.locals.query as svc.ReportQuery & { format: 'xlsx' | 'csv' };
    const r = await readDb(req, async ({ db, dialect }) => {
      const found = await readLayout(db, (req.params as { id: string }).id);
      if (!found) throw new ApiError(404, 'Report not found');
      return svc.customReport(db, dialect, found.layout, q);
    });
    if (q.format === 'csv') res.type('text/csv').attachment(svc.fileName(r.title, r.range, 'csv')).send(svc.csv(r));
    else res.type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet').attachment(svc.fileName(r.title, r.range, 'xlsx')).send(await svc.xlsx([r]));
  });

  return router;
}
