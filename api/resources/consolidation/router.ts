// The consolidation (issue 18): settings (entities, group chart, mappings, rates), runs, results,
// drill-down and period locks of one organization. Users reach their own organization's only;
// admins any. Settings and results live in the organization's own database (service.ts); a run
// is workflow consolidate-<orgId> on the worker.
import { WorkflowFailedError } from '@temporalio/client';
import express, { Router, type Request } from 'express';
import { Organization } from '../../../common/models/organization';
import type { OrgDatabase } from '../../../warehouse/connection';
import { readingAsProvisioned } from '../../../warehouse/org-schema';
import { workflowIds } from '../../../common/temporal';
import { consolidationWorkflow, type ConsolidateOutput, type ConsolidationProgress } from '../../../workflows/consolidation';
import { readChart } from '../../../warehouse/consolidation/store';
import type { AppDeps } from '../../deps';
import { assertOrgAccess, auth } from '../../lib/auth';
import { ApiError, stepFailure } from '../../lib/errors';
import { findOrganization } from '../../lib/organization';
import { NOT_ONBOARDED, withRequestOrgDatabase } from '../../lib/org-database';
import { ok } from '../../lib/respond';
import { queryProgress, resultWithin, STILL_RUNNING, temporalUiUrl, workflowStart } from '../../lib/temporal';
import { validate } from '../../lib/validate';
import * as s from './schemas';
import * as svc from './service';

export const RUN_FAILED = 'The consolidation did not run';

export function consolidationRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  const csvText = express.text({ type: ['text/csv', 'text/plain', 'application/csv'], limit: '20mb' });
  const who = (req: Request): svc.Who => ({ userId: String(req.user!._id), name: req.user!.fullName || req.user!.email });

  /** The organization's database for a change, after the tenant check: its tables made when missing, its entities synced. */
  function orgDb<T>(req: Request, fn: (o: OrgDatabase, orgId: string) => Promise<T>): Promise<T> {
    return withRequestOrgDatabase(cfg, req, async (o, { orgId }) => {
      await svc.prepare(o.db, o.dialect, orgId);
      return fn(o, orgId);
    });
  }
  /** The organization's database for a read, after the tenant check: opened read-only (tables not made yet read as made). */
  function readDb<T>(req: Request, fn: (o: OrgDatabase, orgId: string) => Promise<T>): Promise<T> {
    return withRequestOrgDatabase(cfg, req, async (o, { orgId }) => fn(await readingAsProvisioned(o), orgId), { readOnly: true });
  }
  const any = auth('admin', 'user');

  router.get('/:orgId', any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Consolidation fetched', await readDb(req, ({ db }, orgId) => svc.overview(db, orgId)));
  });

  router.put('/:orgId/settings', any, validate({ params: s.orgParams, body: s.settingsBody }), async (req, res) => {
    await orgDb(req, ({ db }, orgId) => svc.saveSettings(db, who(req), req.body).then(() => Organization.updateOne({ _id: orgId, consolidationConfiguredAt: null }, { $set: { consolidationConfiguredAt: new Date() } })));
    ok(res, 'Consolidation settings saved');
  });

  router.put('/:orgId/entities/:entity', any, validate({ params: s.entityParams, body: s.entityBody }), async (req, res) => {
    await orgDb(req, ({ db }) => svc.saveEntity(db, who(req), (req.params as { entity: string }).entity, req.body));
    ok(res, 'Entity saved');
  });

  router.get('/:orgId/accounts', any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Group chart fetched', { accounts: await readDb(req, ({ db }) => readChart(db)) });
  });
  router.put('/:orgId/accounts', any, validate({ params: s.orgParams, body: s.accountsBody }), async (req, res) => {
    await orgDb(req, ({ db, dialect }) => svc.saveChart(db, dialect, who(req), req.body.accounts));
    ok(res, 'Group chart saved');
  });
  router.get('/:orgId/accounts/export', any, validate({ params: s.orgParams }), async (req, res) => {
    const csv = await readDb(req, async ({ db }) => svc.chartCsv(await readChart(db)));
    res.type('text/csv').attachment('group-chart.csv').send(csv);
  });
  router.post('/:orgId/accounts/import', any, csvText, validate({ params: s.orgParams }), async (req, res) => {
    const accounts = svc.chartFromCsv(String(req.body ?? ''));
    await orgDb(req, ({ db, dialect }) => svc.saveChart(db, dialect, who(req), accounts));
    ok(res, `Group chart imported: ${accounts.length} accounts`, { accounts: accounts.length });
  });

  router.get('/:orgId/mappings', any, validate({ params: s.orgParams, query: s.mappingsQuery }), async (req, res) => {
    ok(res, 'Mappings fetched', await readDb(req, ({ db }) => svc.listMappings(db, res.locals.query)));
  });
  router.put('/:orgId/mappings', any, validate({ params: s.orgParams, body: s.mappingsBody }), async (req, res) => {
    const n = await orgDb(req, ({ db, dialect }) => svc.saveMappings(db, dialect, who(req), req.body.mappings));
    ok(res, `${n} mapping${n === 1 ? '' : 's'} saved`, { saved: n });
  });
  router.post('/:orgId/mappings/accept-suggestions', any, validate({ params: s.orgParams, body: s.acceptBody }), async (req, res) => {
    const n = await orgDb(req, ({ db, dialect }) => svc.acceptSuggestions(db, dialect, who(req), req.body.entity));
    ok(res, `${n} suggestion${n === 1 ? '' : 's'} accepted`, { saved: n });
  });
  router.get('/:orgId/mappings/export', any, validate({ params: s.orgParams }), async (req, res) => {
    res.type('text/csv').attachment('mappings.csv').send(await readDb(req, ({ db }) => svc.mappingsCsv(db)));
  });
  router.post('/:orgId/mappings/import', any, csvText, validate({ params: s.orgParams }), async (req, res) => {
    const rows = svc.mappingsFromCsv(String(req.body ?? ''));
    const n = await orgDb(req, ({ db, dialect }) => svc.saveMappings(db, dialect, who(req), rows, 'mappings.import'));
    ok(res, `Mappings imported: ${n}`, { saved: n });
  });

  router.get('/:orgId/rates', any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Rates fetched', { rates: await readDb(req, ({ db }) => svc.listRates(db)) });
  });
  router.put('/:orgId/rates', any, validate({ params: s.orgParams, body: s.ratesBody }), async (req, res) => {
    const n = await orgDb(req, ({ db, dialect }) => svc.saveRates(db, dialect, who(req), req.body.rates));
    ok(res, `${n} rate${n === 1 ? '' : 's'} saved`, { saved: n });
  });
  router.post('/:orgId/rates/import', any, csvText, validate({ params: s.orgParams }), async (req, res) => {
    const rows = svc.ratesFromCsv(String(req.body ?? ''));
    const n = await orgDb(req, ({ db, dialect }) => svc.saveRates(db, dialect, who(req), rows, 'rates.import'));
    ok(res, `Rates imported: ${n}`, { saved: n });
  });
  router.get('/:orgId/historical-rates', any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Historical rates fetched', { rates: await readDb(req, ({ db }) => svc.listHistorical(db)) });
  });
  router.put('/:orgId/historical-rates', any, validate({ params: s.orgParams, body: s.historicalBody }), async (req, res) => {
    await orgDb(req, ({ db, dialect }) => svc.saveHistorical(db, dialect, who(req), req.body.rates));
    ok(res, 'Historical rates saved');
  });

  /** Runs the consolidation now (all periods, or from/to): joins a running one; waits like a pipeline run. */
  router.post('/:orgId/run', any, validate({ params: s.orgParams, body: s.runBody, query: s.runQuery }), async (req, res) => {
    const { orgId } = req.params as { orgId: string };
    assertOrgAccess(req.user!, orgId);
    const org = await findOrganization(orgId);
    if (!org.onboarding?.databaseName) throw new ApiError(400, NOT_ONBOARDED);
    const workflowId = workflowIds.consolidation(orgId);
    const handle = await deps.temporal.workflow.start(consolidationWorkflow, {
      ...workflowStart(cfg, workflowId, orgId),
      args: [{ orgId, from: req.body.from, to: req.body.to, startedBy: who(req) }],
    });
    const link = temporalUiUrl(cfg, workflowId, handle.firstExecutionRunId);
    if (res.locals.query.wait === 'false') {
      ok(res, 'Consolidation started', { workflowId, runId: handle.firstExecutionRunId, temporalUrl: link }, 202);
      return;
    }
    try {
      const out = await resultWithin<ConsolidateOutput>(deps.temporal, handle, cfg.PIPELINE_WAIT_SECONDS * 1000);
      if (out === STILL_RUNNING) {
        const progress = await queryProgress<ConsolidationProgress>(deps.temporal, handle);
        ok(res, 'The consolidation is still running', { workflowId, runId: handle.firstExecutionRunId, progress, temporalUrl: link }, 202);
        return;
      }
      const message = out.periods === 0 ? (out.nothing ?? 'Nothing to consolidate') : out.blocked ? `Consolidation done: ${out.blocked} period${out.blocked === 1 ? '' : 's'} blocked` : 'Consolidation done';
      ok(res, message, { ...out, workflowId, temporalUrl: link });
    } catch (e) {
      if (e instanceof WorkflowFailedError) stepFailure(e, RUN_FAILED);
      throw e;
    }
  });

  router.get('/:orgId/results', any, validate({ params: s.orgParams, query: s.resultsQuery }), async (req, res) => {
    ok(res, 'Consolidated trial balance fetched', await readDb(req, ({ db }) => svc.results(db, res.locals.query.period)));
  });
  router.get('/:orgId/drilldown', any, validate({ params: s.orgParams, query: s.drilldownQuery }), async (req, res) => {
    ok(res, 'Drill-down fetched', await readDb(req, ({ db }) => svc.drilldown(db, res.locals.query)));
  });
  router.put('/:orgId/locks/:period', any, validate({ params: s.periodParams }), async (req, res) => {
    await orgDb(req, ({ db }) => svc.lockPeriod(db, who(req), (req.params as { period: string }).period));
    ok(res, 'Period locked');
  });
  router.delete('/:orgId/locks/:period', any, validate({ params: s.periodParams }), async (req, res) => {
    await orgDb(req, ({ db }) => svc.unlockPeriod(db, who(req), (req.params as { period: string }).period));
    ok(res, 'Period unlocked');
  });

  return router;
}
