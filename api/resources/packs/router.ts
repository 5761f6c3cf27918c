// Report packs (issue 34) under /api/v1/reports/:orgId/packs: a named list of built-in
// statements and custom reports for a month or range, with recipients among the organization's
// users, sent by mail (PDF and XLSX) now, when a month is locked or on the Nth working day; its
// files downloaded now; every send in its history. Users reach their own organization's packs,
// admins any (as the other report routes). Changes are audited.
import { Router, type Request, type Response } from 'express';
import { ReportPack, ReportPackSend, type ReportPackDoc } from '../../../common/models/report-pack';
import { Organization } from '../../../common/models/organization';
import type { RangeKind } from '../../../common/reports/periods';
import { resolveOrgConnection, type OrgDatabase } from '../../../warehouse/connection';
import { readingAsProvisioned } from '../../../warehouse/org-schema';
import { latestConsolidatedMonth, PackError, packFileName, type PackItem, type PackMeta, type PackPlan } from '../../../warehouse/reports/pack';
import { openPackRender, type PackFile } from '../../../warehouse/reports/pack-thread';
import type { AppDeps } from '../../deps';
import { audit } from '../../lib/audit';
import { assertOrgAccess, auth } from '../../lib/auth';
import { ApiError } from '../../lib/errors';
import { withRequestOrgDatabase } from '../../lib/org-database';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { validate } from '../../lib/validate';
import * as s from './schemas';
import * as svc from './service';

const NOT_FOUND = 'Report pack not found';

export function packsRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  const any = auth('admin', 'user');
  const tag = 'reports';
  const who = (req: Request) => req.user!.fullName || req.user!.email;
  const params = (req: Request) => req.params as { orgId: string; packId: string };
  const readDb = <T>(req: Request, fn: (o: OrgDatabase) => Promise<T>) => withRequestOrgDatabase(cfg, req, async (o) => fn(await readingAsProvisioned(o)), { readOnly: true });
  /** The pack of the route, of the route's organization (404 otherwise; the tenant checked first). */
  const packOf = async (req: Request): Promise<ReportPackDoc> => {
    const { orgId, packId } = params(req);
    assertOrgAccess(req.user!, orgId);
    const p = await ReportPack.findOne({ _id: packId, organization_id: orgId }).lean<ReportPackDoc>();
    if (!p) throw new ApiError(404, NOT_FOUND);
    return p;
  };

  route(router, 'get', '/:orgId/packs', { tag, summary: "The organization's report packs, user of the organization or admin: data.packs [{ id, name, items [{ kind (statement | custom), ref, title }], range, period (null: the trigger's month), parentheses, recipients [{ id, name, email }], schedule { kind (none | locked | working-day), day }, updatedBy, updatedAt, lastSend }]" }, any, validate({ params: s.orgParams }), async (req, res) => {
    const { orgId } = params(req);
    const packs = await readDb(req, async ({ db }) => svc.packAnswers(db, orgId, await ReportPack.find({ organization_id: orgId }).sort({ name: 1 }).lean<ReportPackDoc[]>()));
    ok(res, 'Report packs fetched', { packs });
  });

  route(router, 'get', '/:orgId/packs/options', { tag, summary: 'What a pack may hold and whom it may go to: data { statements [{ ref, title }] (every built-in statement), custom [{ id, name }], users [{ id, name, email }] (the organization\'s users) }' }, any, validate({ params: s.orgParams }), async (req, res) => {
    ok(res, 'Pack options fetched', await readDb(req, ({ db }) => svc.packOptions(db, params(req).orgId)));
  });

  route(router, 'post', '/:orgId/packs', { tag, statuses: { 201: 'Saved: data.id' }, summary: 'A new pack: { name, items [{ kind: statement | custom, ref (a statement of the list, or a custom report id) }], range (month | quarter | ytd | year), period (YYYY-MM, or null: the trigger\'s month), parentheses, recipients (ids of users of the organization), schedule { kind: none | locked (when the month is locked) | working-day, day (1-20: the Nth working day, Monday to Friday UTC) } }; 400 naming unknown reports and recipients who are not users of the organization (nothing saved)' }, any, validate({ params: s.orgParams, body: s.packBody }), async (req, res) => {
    const { orgId } = params(req);
    const body = req.body as s.PackBody;
    await readDb(req, ({ db }) => svc.checkPack(db, orgId, body));
    const created = await ReportPack.create({ ...body, organization_id: orgId, createdBy: who(req), updatedBy: who(req) });
    const id = String(created._id);
    try {
      await svc.syncPackSchedule(deps.temporal, cfg, orgId, { id, schedule: body.schedule });
    } catch (err) {
      // Nothing half made: without its schedule the pack is not kept.
      await ReportPack.deleteOne({ _id: created._id });
      throw err;
    }
    await audit({ actor: req.user!, action: 'reportPack.create', targetType: 'reportPack', targetId: id, after: created.toObject() });
    ok(res, 'Report pack saved', { id }, 201);
  });

  route(router, 'get', '/:orgId/packs/:packId', { tag, summary: 'One pack (404 when unknown)' }, any, validate({ params: s.packParams }), async (req, res) => {
    const p = await packOf(req);
    ok(res, 'Report pack fetched', (await readDb(req, ({ db }) => svc.packAnswers(db, params(req).orgId, [p])))[0]);
  });

  route(router, 'put', '/:orgId/packs/:packId', { tag, summary: 'Replace a pack; checked as on creation (its schedule follows)' }, any, validate({ params: s.packParams, body: s.packBody }), async (req, res) => {
    const before = await packOf(req);
    const { orgId, packId } = params(req);
    const body = req.body as s.PackBody;
    await readDb(req, ({ db }) => svc.checkPack(db, orgId, body));
    await svc.syncPackSchedule(deps.temporal, cfg, orgId, { id: packId, schedule: body.schedule });
    const after = await ReportPack.findOneAndUpdate({ _id: packId, organization_id: orgId }, { $set: { ...body, updatedBy: who(req) } }, { new: true }).lean();
    await audit({ actor: req.user!, action: 'reportPack.update', targetType: 'reportPack', targetId: packId, before, after });
    ok(res, 'Report pack saved', { id: packId });
  });

  route(router, 'delete', '/:orgId/packs/:packId', { tag, summary: 'Delete a pack, its schedule and its history' }, any, validate({ params: s.packParams }), async (req, res) => {
    const before = await packOf(req);
    const { packId } = params(req);
    await svc.deletePackSchedule(deps.temporal, packId);
    await ReportPack.deleteOne({ _id: packId });
    await ReportPackSend.deleteMany({ pack_id: packId });
    await audit({ actor: req.user!, action: 'reportPack.delete', targetType: 'reportPack', targetId: packId, before });
    ok(res, 'Report pack deleted');
  });

  route(router, 'get', '/:orgId/packs/:packId/history', { tag, summary: "The pack's sends, newest first (at most 100): data.sends [{ id, key, trigger (now | locked | working-day), requestedBy, period, recipients (addresses), status (sending | retrying | sent | failed), attempts, error, pages, startedAt, finishedAt }]" }, any, validate({ params: s.packParams }), async (req, res) => {
    const p = await packOf(req);
    const sends = await ReportPackSend.find({ pack_id: p._id }).sort({ startedAt: -1 }).limit(100).lean();
    ok(res, 'Report pack history fetched', { sends: sends.map(svc.sendAnswer) });
  });

  route(router, 'post', '/:orgId/packs/:packId/send', { tag, statuses: { 202: 'Started: data { key, workflowId }; its outcome is in the history' }, summary: 'Send the pack now to its recipients (a Temporal workflow: rendered, mailed with the PDF and the XLSX attached, retried while the mail server cannot be reached, recorded in the history). Body { period? } (YYYY-MM; default the pack\'s, else the latest consolidated month)' }, any, validate({ params: s.packParams, body: s.sendBody }), async (req, res) => {
    const p = await packOf(req);
    const { orgId, packId } = params(req);
    const started = await svc.startSend(deps.temporal, cfg, { orgId, packId, trigger: 'now', period: (req.body as { period?: string }).period ?? p.period ?? undefined, requestedBy: who(req) });
    await audit({ actor: req.user!, action: 'reportPack.send', targetType: 'reportPack', targetId: packId, after: { key: started.key } });
    ok(res, 'Report pack send started', { key: started.key, workflowId: started.workflowId }, 202);
  });

  /**
   * A download of the pack's file (?period, else the pack's, else the latest consolidated month),
   * made on a thread of its own (warehouse/reports/pack-thread.ts: the api's memory stays as it was)
   * and streamed. Refusals before the first byte are JSON (nothing consolidated: 409; a pack that
   * cannot be made: 400).
   */
  const download = async (req: Request, res: Response, p: ReportPackDoc, file: PackFile, meta: (plan: PackPlan | null, period: string) => PackMeta) => {
    const { period, conn } = await withRequestOrgDatabase(
      cfg,
      req,
      async (o, ref) => ({
        period: (res.locals.query as { period?: string }).period ?? p.period ?? (await latestConsolidatedMonth((await readingAsProvisioned(o)).db)),
        conn: await resolveOrgConnection(cfg, ref),
      }),
      { readOnly: true },
    );
    if (!period) throw new ApiError(409, 'Nothing is consolidated yet: run the consolidation before making the pack');
    let render;
    try {
      render = await openPackRender({ conn, items: p.items as PackItem[], range: p.range as RangeKind, period, plan: file === 'pdf' });
    } catch (e) {
      if (e instanceof PackError) throw new ApiError(400, e.message);
      throw e;
    }
    res.type(file === 'pdf' ? 'application/pdf' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet').attachment(packFileName(p.name, period, file));
    await render.draw(meta(render.plan, period), { [file]: res });
  };

  route(router, 'get', '/:orgId/packs/:packId/pdf', { tag, statuses: { 409: 'Nothing is consolidated yet' }, summary: 'The pack as one PDF now (?period=YYYY-MM): cover, contents, each report with its notices, "Page n of N"; laid out first, then streamed as it is drawn, one report in memory at a time, on a thread of its own. A failure before the first byte is JSON' }, any, validate({ params: s.packParams, query: s.fileQuery }), async (req, res) => {
    const p = await packOf(req);
    const org = await Organization.findById(params(req).orgId, { organizationName: 1 }).lean();
    await download(req, res, p, 'pdf', (plan, period) => ({ organization: org?.organizationName ?? '', name: p.name, periodLabel: plan?.reports[0]?.rangeLabel ?? period, date: new Date(), parentheses: p.parentheses ?? true }));
  });

  route(router, 'get', '/:orgId/packs/:packId/xlsx', { tag, statuses: { 409: 'Nothing is consolidated yet' }, summary: 'The pack as one XLSX now (?period=YYYY-MM): one sheet per report, as the statements\' export; streamed a report at a time, on a thread of its own' }, any, validate({ params: s.packParams, query: s.fileQuery }), async (req, res) => {
    const p = await packOf(req);
    await download(req, res, p, 'xlsx', (_plan, period) => ({ organization: '', name: p.name, periodLabel: period, date: new Date(), parentheses: p.parentheses ?? true }));
  });

  return router;
}
