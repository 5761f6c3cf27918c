// The consolidation (issue 18): settings (entities, group chart, mappings, rates), runs, results,
// drill-down and period locks of one organization. Users reach their own organization's only;
// admins any. Settings and results live in the organization's own database (service.ts); a run
// is workflow consolidate-<orgId> on the worker.
import { WorkflowFailedError } from '@temporalio/client';
import { Router, type Request } from 'express';
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
import { route, type RouteSpec } from '../../lib/route';
import { BODY_LIMITS } from './schemas';
import { acquisitionsSchema } from '../../../common/contract/consolidation';
import * as s from './schemas';
import * as svc from './service';
import { journalRoutes } from './journals';
import { sendLockedPacks } from '../packs/service';

export const RUN_FAILED = 'The consolidation did not run';

export function consolidationRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  const tag = 'consolidation';
  const csvBody = (schema: string) => ({ 'text/csv': { schema: { type: 'string', description: schema } } });
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

  route(router, 'get', '/:orgId', { tag, summary: "The organization's consolidation (user of the organization or admin): data { settings { configured, presentationCurrency, method (full | proportional), toleranceAmount, tolerancePct, fiscalYearStartMonth }, entities [{ entity, name, currency, ownership (percent), parent, included, basis (balances | movements | ytd), source }], accounts (the group chart), locks, checks per period }. Every entity of trial_balance is listed (added with defaults on first sight)" }, any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Consolidation fetched', await readDb(req, ({ db, dialect }, orgId) => svc.overview(db, dialect, orgId)));
  });

  route(router, 'put', '/:orgId/settings', { tag, summary: 'Save the group settings (presentation currency, method, intercompany tolerance as an amount and a percent, fiscal year start month); from then on every pipeline run ends with the consolidation. 400 naming what is wrong; nothing is saved then' }, any, validate({ params: s.orgParams, body: s.settingsBody }), async (req, res) => {
    await orgDb(req, ({ db }, orgId) => svc.saveSettings(db, who(req), req.body).then(() => Organization.updateOne({ _id: orgId, consolidationConfiguredAt: null }, { $set: { consolidationConfiguredAt: new Date() } })));
    ok(res, 'Consolidation settings saved');
  });

  route(router, 'put', '/:orgId/entities/:entity', { tag, summary: 'Save one entity: display name, functional currency, ownership % (more than 0, at most 100; a value above 0 and at most 1 is refused as ambiguous unless ownershipUnit is \'percent\' (0.75 = 0.75 %) or \'fraction\' (0.75 = 75 %)), parent (groups of groups), included, basis of its trial_balance rows, remeasure (true: remeasured by the ASC 830-10 temporal method, its exchange difference to the fx_remeasurement account in profit or loss; false: translated, the difference to the CTA; absent: unchanged); with ownershipFrom (YYYY-MM) the ownership holds from that month on and the months before keep theirs (a change after an acquisition is refused: step acquisitions and disposals are not supported yet). 400 for a cycle in the entity tree, a bad ownership, or remeasure with no fx_remeasurement account in the chart (nothing saved); 404 for an entity not in trial_balance' }, any, validate({ params: s.entityParams, body: s.entityBody }), async (req, res) => {
    await orgDb(req, ({ db }) => svc.saveEntity(db, who(req), (req.params as { entity: string }).entity, req.body));
    ok(res, 'Entity saved');
  });

  route(router, 'get', '/:orgId/acquisitions', { tag, summary: "Acquisitions (IFRS 3) and effective-dated ownership: data { acquisitions [{ entity, entityName, date, consideration, considerationCurrency, nciMeasurement (proportionate | fair_value), nciFairValue, adjustments [{ groupAccount, groupAccountName, amount, usefulLifeMonths, amortizationAccount }], updatedBy, updatedAt }], ownershipChanges [{ entity, entityName, from, ownership (percent) }] }; amounts as entered, in the entity's currency but the consideration's own", answer: acquisitionsSchema }, any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Acquisitions fetched', await readDb(req, ({ db }) => svc.listAcquisitions(db)));
  });
  route(router, 'put', '/:orgId/acquisitions/:entity', { tag, summary: "Set up (or replace) an entity's acquisition: date (a month end: that month's trial balance is its equity at acquisition), consideration and its currency (the entity's or the presentation currency), nciMeasurement proportionate or fair_value with nciFairValue (in the entity's currency), fair-value adjustments [{ groupAccount (asset or liability), amount (entity's currency), usefulLifeMonths (optional, 1-1200), amortizationAccount (expense, with a useful life) }]. Goodwill = consideration + NCI - identifiable net assets, computed by the run. 400 naming every fault (and for disposalDate or additionalStake: disposals and step acquisitions are not supported yet); nothing saved then; 404 for an entity not in trial_balance", body: { limit: '200kb', why: 'an acquisition with 200 adjustments at their longest' } }, any, validate({ params: s.entityParams, body: s.acquisitionBody }), async (req, res) => {
    await orgDb(req, ({ db, dialect }) => svc.saveAcquisition(db, dialect, who(req), (req.params as { entity: string }).entity, req.body));
    ok(res, 'Acquisition saved');
  });
  route(router, 'delete', '/:orgId/acquisitions/:entity', { tag, summary: "Remove an entity's acquisition (it is consolidated as before: its whole equity on its lines); 404 when it has none" }, any, validate({ params: s.entityParams }), async (req, res) => {
    await orgDb(req, ({ db }) => svc.deleteAcquisition(db, who(req), (req.params as { entity: string }).entity));
    ok(res, 'Acquisition removed');
  });

  route(router, 'get', '/:orgId/accounts', { tag, summary: 'The group chart: data.accounts [{ code, name, type, line (statement line path), role, rateType (closing | average | historical, or null for the type\'s rate) }]' }, any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Group chart fetched', { accounts: await readDb(req, ({ db }) => readChart(db)) });
  });
  route(router, 'put', '/:orgId/accounts', { tag, summary: 'Replace the group chart; exactly one account per role (retained_earnings, cta, nci_equity, nci_profit, ic_difference, ic_suspense, unmapped, rounding), at most one per optional role (ic_difference_income and ic_suspense_debit: intercompany differences of credit and debit sign; fx_remeasurement, type income or expense: remeasured entities\' exchange difference; goodwill and bargain_purchase, needed once an acquisition is set up); each account\'s rateType (closing, average, historical or null) overrides its type\'s rate, never on retained_earnings; an account used by a mapping cannot go, nor can an account with intercompany marks take the retained_earnings role, nor the fx_remeasurement account while an entity is remeasured. 400 naming the problems; nothing saved then', body: BODY_LIMITS.accounts }, any, validate({ params: s.orgParams, body: s.accountsBody }), async (req, res) => {
    await orgDb(req, ({ db, dialect }) => svc.saveChart(db, dialect, who(req), req.body.accounts));
    ok(res, 'Group chart saved');
  });
  route(router, 'get', '/:orgId/accounts/export', { tag, summary: 'The group chart as CSV (code, name, type, line, role, rate_type); a failure is JSON' }, any, validate({ params: s.orgParams }), async (req, res) => {
    const csv = await readDb(req, async ({ db }) => svc.chartCsv(await readChart(db)));
    res.type('text/csv').attachment('group-chart.csv').send(csv);
  });
  route(router, 'post', '/:orgId/accounts/import', { tag, summary: 'Replace the group chart from a CSV (text/csv body with the columns code, name, type, line, role, rate_type; role and rate_type may be empty or left out); checked as the JSON form', body: { ...BODY_LIMITS.accountsCsv, csv: true, content: csvBody('code, name, type, line, role, rate_type') } }, any, validate({ params: s.orgParams }), async (req, res) => {
    const accounts = svc.chartFromCsv(String(req.body ?? ''));
    await orgDb(req, ({ db, dialect }) => svc.saveChart(db, dialect, who(req), accounts));
    ok(res, `Group chart imported: ${accounts.length} accounts`, { accounts: accounts.length });
  });

  route(router, 'get', '/:orgId/mappings', { tag, summary: 'Source accounts of trial_balance with their mapping, paged (page, pageSize up to 500), ?unmapped=true for the unmapped only, ?intercompany=true for the accounts marked intercompany, ?entity= one entity; each unmapped account carries a suggestion { groupAccount, groupAccountName, reason, confidence (high | medium | low) }, never of another account type than the source account (same code and type, same name and type: high; closest name within the type: medium from 60 % alike, else low; one level lower for a source account without a type). data { mappings, total, unmapped, page, pageSize, pages }' }, any, validate({ params: s.orgParams, query: s.mappingsQuery }), async (req, res) => {
    ok(res, 'Mappings fetched', await readDb(req, ({ db }) => svc.listMappings(db, res.locals.query)));
  });
  route(router, 'put', '/:orgId/mappings', { tag, summary: 'Save mappings (entity, sourceAccount) -> groupAccount, optionally intercompany (icCounterparty, icCategory). 400 naming unknown entities, accounts not in trial_balance, unknown group accounts or categories, and an intercompany mark on an account mapped to the retained-earnings role (the engine rolls it forward and cannot eliminate on it); nothing saved then', body: BODY_LIMITS.mappings }, any, validate({ params: s.orgParams, body: s.mappingsBody }), async (req, res) => {
    const n = await orgDb(req, ({ db, dialect }) => svc.saveMappings(db, dialect, who(req), req.body.mappings));
    ok(res, `${n} mapping${n === 1 ? '' : 's'} saved`, { saved: n });
  });
  route(router, 'post', '/:orgId/mappings/accept-suggestions', { tag, summary: 'Accept the high-confidence suggestions for the unmapped accounts (of one entity with { entity }); data { saved, left (unmapped accounts left to review), suggested (of them, with a less confident suggestion) }' }, any, validate({ params: s.orgParams, body: s.acceptBody }), async (req, res) => {
    const r = await orgDb(req, ({ db, dialect }) => svc.acceptSuggestions(db, dialect, who(req), req.body.entity));
    const review = r.left ? `; ${r.left} left to review${r.suggested ? ` (${r.suggested} with a suggestion not confident enough to take in bulk)` : ''}` : '';
    ok(res, `${r.saved} suggestion${r.saved === 1 ? '' : 's'} accepted${review}`, r);
  });
  route(router, 'get', '/:orgId/mappings/export', { tag, summary: 'Mappings as CSV (entity, source_account, group_account, ic_counterparty, ic_category); a failure is JSON' }, any, validate({ params: s.orgParams }), async (req, res) => {
    // The CSV type and file name only once the CSV is there: a failure (403, 404) answers JSON.
    const csv = await readDb(req, ({ db }) => svc.mappingsCsv(db));
    res.type('text/csv').attachment('mappings.csv').send(csv);
  });
  route(router, 'post', '/:orgId/mappings/import', { tag, summary: "Save mappings from a CSV (text/csv, the export's columns); checked as the JSON form: a file naming unknown accounts changes nothing", body: { ...BODY_LIMITS.mappingsCsv, csv: true, content: csvBody('entity, source_account, group_account, ic_counterparty, ic_category') } }, any, validate({ params: s.orgParams }), async (req, res) => {
    const rows = svc.mappingsFromCsv(String(req.body ?? ''));
    const n = await orgDb(req, ({ db, dialect }) => svc.saveMappings(db, dialect, who(req), rows, 'mappings.import'));
    ok(res, `Mappings imported: ${n}`, { saved: n });
  });

  route(router, 'get', '/:orgId/rates', { tag, summary: 'Exchange rates to the presentation currency per currency and month: data.rates [{ currency, period, closing, average, quote (direct | indirect), source, updated_by, updated_at }], as entered' }, any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Rates fetched', { rates: await readDb(req, ({ db }) => svc.listRates(db)) });
  });
  route(router, 'put', '/:orgId/rates', { tag, summary: 'Save closing and average rates per currency and month, at most 12 decimals, below 1,000,000,000, with quote \'direct\' (default: presentation currency per unit, presentation = local x rate) or \'indirect\' (units per presentation currency, presentation = local / rate). 400 naming each fault (zero or below, more than 12 decimals, too large, an unknown currency code or a bad month), and asking \'EUR per USD or USD per EUR?\' for a row without its quote more than 5 times away from the latest earlier month\'s rate; nothing saved then', body: BODY_LIMITS.rates }, any, validate({ params: s.orgParams, body: s.ratesBody }), async (req, res) => {
    const n = await orgDb(req, ({ db, dialect }) => svc.saveRates(db, dialect, who(req), req.body.rates));
    ok(res, `${n} rate${n === 1 ? '' : 's'} saved`, { saved: n });
  });
  route(router, 'post', '/:orgId/rates/import', { tag, summary: 'Save rates from a CSV (text/csv with currency, period, closing, average and optionally quote); checked as the JSON form', body: { ...BODY_LIMITS.ratesCsv, csv: true, content: csvBody('currency, period, closing, average') } }, any, validate({ params: s.orgParams }), async (req, res) => {
    const rows = svc.ratesFromCsv(String(req.body ?? ''));
    const n = await orgDb(req, ({ db, dialect }) => svc.saveRates(db, dialect, who(req), rows, 'rates.import'));
    ok(res, `Rates imported: ${n}`, { saved: n });
  });
  route(router, 'get', '/:orgId/historical-rates', { tag, summary: 'Historical rates of equity accounts: data.rates [{ entity, group_account, rate, quote, updated_by, updated_at }]' }, any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Historical rates fetched', { rates: await readDb(req, ({ db }) => svc.listHistorical(db)) });
  });
  route(router, 'put', '/:orgId/historical-rates', { tag, summary: "Save historical rates for equity accounts per entity and group account, with an optional quote as for rates (without one, the closing rate of the entity's first period is used and the run says so)", body: BODY_LIMITS.historicalRates }, any, validate({ params: s.orgParams, body: s.historicalBody }), async (req, res) => {
    await orgDb(req, ({ db, dialect }) => svc.saveHistorical(db, dialect, who(req), req.body.rates));
    ok(res, 'Historical rates saved');
  });

  const runSpec: RouteSpec = {
    tag,
    summary:
      "Run the consolidation now (workflow consolidate-<orgId>; a call while one runs joins it), for every period or { from, to } (YYYY-MM). Waits like a pipeline run: data { periods, rows, blocked, mismatches, unmapped, summary [{ period, status (ok | blocked | locked), messages }], workflowId, temporalUrl }; 202 with data.progress when still running; ?wait=false answers 202 at once; 400 'The consolidation did not run' with the reason when the settings are refused",
    statuses: {
      202: '?wait=false, or still running after PIPELINE_WAIT_SECONDS: data.progress',
      409: `'${RUN_FAILED}': the organization's data is not ready for it (errors[0].msg)`,
      502: `'${RUN_FAILED}': a step failed (errors[0].msg)`,
      503: `Temporal or Mongo is unreachable, or the warehouse is unavailable ('${RUN_FAILED}')`,
    },
  };
  const lockSpec: RouteSpec = {
    tag,
    summary: 'Lock a consolidated period: its figures stay as they are (later runs keep them, and later months roll forward from them) until it is unlocked. 404 before it was consolidated; 409 while it is blocked',
    statuses: { 409: 'The period is blocked: fix its messages and run the consolidation before locking it' },
  };

  /** Runs the consolidation now (all periods, or from/to): joins a running one; waits like a pipeline run. */
  route(router, 'post', '/:orgId/run', runSpec, any, validate({ params: s.orgParams, body: s.runBody, query: s.runQuery }), async (req, res) => {
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

  route(router, 'get', '/:orgId/results', { tag, summary: 'One period (?period=YYYY-MM) of the consolidated trial balance: data { period, locked, check { status, tbNet, assets, liabilitiesAndEquity, eliminationsNet, unmappedCount, missingRates, messages }, columns [{ entity, name }], rows [{ groupAccount, name, type, line, entities { <entity>: amount }, eliminations, nci, consolidated }], mismatches [{ entityA, entityB, category, amountA, amountB, difference, withinTolerance, likelyCause }] }; amounts as decimal text in the presentation currency; 404 before the first run' }, any, validate({ params: s.orgParams, query: s.resultsQuery }), async (req, res) => {
    ok(res, 'Consolidated trial balance fetched', await readDb(req, ({ db }) => svc.results(db, res.locals.query.period)));
  });
  route(router, 'get', '/:orgId/drilldown', { tag, summary: 'What makes one consolidated figure (?period, ?groupAccount, optional ?entity): data { lines [{ entity, entityName, sourceAccount, sourceAccountName, localAmount, currency, rateKind, rate, presentationAmount }], entries [{ entryId, kind (translation | rounding | elimination | ic_difference | nci | acquisition), entity, counterparty, category, amount, sources, memo }] }' }, any, validate({ params: s.orgParams, query: s.drilldownQuery }), async (req, res) => {
    ok(res, 'Drill-down fetched', await readDb(req, ({ db }) => svc.drilldown(db, res.locals.query)));
  });
  route(router, 'put', '/:orgId/locks/:period', lockSpec, any, validate({ params: s.periodParams }), async (req, res) => {
    const { orgId, period } = req.params as { orgId: string; period: string };
    await orgDb(req, ({ db }) => svc.lockPeriod(db, who(req), period));
    // Packs scheduled "when the month is locked" go out once for this month (never again for a second lock of it).
    await sendLockedPacks(deps.temporal, cfg, orgId, period, who(req).name ?? 'A user');
    ok(res, 'Period locked');
  });
  route(router, 'delete', '/:orgId/locks/:period', { tag, summary: 'Unlock a period (404 when it is not locked)' }, any, validate({ params: s.periodParams }), async (req, res) => {
    await orgDb(req, ({ db }) => svc.unlockPeriod(db, who(req), (req.params as { period: string }).period));
    ok(res, 'Period unlocked');
  });

  journalRoutes(router, { orgDb, readDb, who, any });

  return router;
}
