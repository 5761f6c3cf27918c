// GET /api/v1/freshness: how fresh an organization's reports are (Apps' "up to date as of", Reports'
// "data as of"), and how one sync is getting on into them (Sync now follows its change id).
import { WorkflowNotFoundError } from '@temporalio/client';
import { Router } from 'express';
import { z } from 'zod';
import { CONNECTOR_LIST } from '../../../common/connectors';
import { freshnessSchema, type ChangeState, type FreshnessAnswer } from '../../../common/contract/freshness';
import type { ConnectorAccountDoc } from '../../../common/models/connector-account';
import { Freshness, freshnessKey, type FreshnessDoc } from '../../../common/models/freshness';
import { workflowIds } from '../../../common/temporal';
import { withRunStore } from '../../../warehouse/records/run-store';
import type { OrganizationChangesProgress } from '../../../workflows/organization-changes';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { resolveExistingOrgId } from '../../lib/connections';
import { optionalOrgId } from '../../lib/connection-schemas';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { queryProgress } from '../../lib/temporal';
import { validate } from '../../lib/validate';

const query = z.object({
  organization_id: optionalOrgId,
  /** A sync's change id (Sync now answers it as changeId). */
  changeId: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'Invalid change ID').optional(),
});

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
const times = (f: Pick<FreshnessDoc, 'changeAt' | 'consolidatedAt' | 'monthsChanged' | 'lastError'> | null | undefined) => ({
  changeAt: iso(f?.changeAt),
  consolidatedAt: iso(f?.consolidatedAt),
  monthsChanged: [...(f?.monthsChanged ?? [])],
  lastError: f?.lastError ?? null,
});


export function freshnessRouter(deps: AppDeps): Router {
  const router = Router();
  const spec = {
    summary:
      "How fresh the organization's reports are: per connection and for the organization, changeAt (when the newest sync applied to trial_balance finished) and consolidatedAt (when the consolidation including it finished); changes: its changes workflow's step and waiting syncs; with changeId (a Sync now answer's), that sync's state: waiting, gathering, trial-balance, consolidating, done or failed. organization_id: optional for a user (its own organization); an admin must name one",
    tag: 'freshness',
    answer: freshnessSchema,
    statuses: { 404: "'Organization not found': the organization_id is well formed but names no organization" },
  };
  route(router, 'get', '/', spec, auth('admin', 'user'), validate({ query }), async (req, res) => {
    const q = res.locals.query as z.infer<typeof query>;
    const orgId = await resolveExistingOrgId(req.user!, q.organization_id);
    const rows = await Freshness.find({ organization_id: orgId }).lean<FreshnessDoc[]>();
    const byKey = new Map(rows.map((r) => [r.key, r]));
    const connections: FreshnessAnswer['connections'] = [];
    for (const c of CONNECTOR_LIST) {
      const accounts = await c.model.find({ organization_id: orgId }).sort({ createdAt: 1 }).lean<ConnectorAccountDoc[]>();
      for (const a of accounts) {
        const id = String(a._id);
        connections.push({ provider: c.key, accountId: id, name: `${c.displayName}: ${c.connectionName(c.answer(a) as Record<string, unknown>) ?? id}`, ...times(byKey.get(freshnessKey.connection(c.key, id))) });
      }
    }

    let progress: OrganizationChangesProgress | null = null;
    const handle = deps.temporal.workflow.getHandle(workflowIds.organizationChanges(orgId));
    try {
      const running = (await handle.describe()).status.name === 'RUNNING';
      if (running) progress = await queryProgress<OrganizationChangesProgress>(deps.temporal, handle);
    } catch (e) {
      if (!(e instanceof WorkflowNotFoundError)) throw e;
    }
    const step = progress && progress.step !== 'done' ? progress.step : 'idle';
    const answer: FreshnessAnswer = {
      organization: times(byKey.get(freshnessKey.organization(orgId))),
      connections,
      changes: { step, pending: progress?.pending.length ?? 0, rounds: progress?.rounds ?? 0 },
    };

    if (q.changeId) {
      const id = q.changeId;
      const run = await withRunStore(deps.config, orgId, (s) => s.findSyncRun(id));
      const reports = run?.reports ?? null;
      let state: ChangeState = 'waiting';
      if (reports) state = reports.error ? 'failed' : 'done';
      else if (progress?.pending.includes(id)) state = 'gathering';
      else if (progress?.current?.changeIds.includes(id)) state = progress.step === 'consolidating' ? 'consolidating' : 'trial-balance';
      answer.change = {
        id,
        state,
        monthsChanged: reports ? [...reports.monthsChanged] : null,
        consolidation: reports?.consolidation ?? null,
        error: reports?.error ?? null,
      };
    }
    ok(res, 'Freshness fetched successfully', answer);
  });
  return router;
}
