// The getting-started checklist of one organization (issue 34, section 3): user of the
// organization or admin. Read-only: it reads the organization's connections and its database
// (opened read-only; tables not made yet read as empty) and never writes.
import { Router, type Request } from 'express';
import { z } from 'zod';
import { checklistSchema } from '../../../common/contract/getting-started';
import { readingAsProvisioned } from '../../../warehouse/org-schema';
import type { AppDeps } from '../../deps';
import { assertOrgAccess, auth } from '../../lib/auth';
import { findOrganization, orgIdSchema } from '../../lib/organization';
import { withRequestOrgDatabase } from '../../lib/org-database';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { validate } from '../../lib/validate';
import { checklist, notOnboardedChecklist } from './service';

export const CHECKLIST_FETCHED = 'Getting started checklist fetched';

export function gettingStartedRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  route(
    router,
    'get',
    '/:orgId',
    {
      tag: 'getting-started',
      answer: checklistSchema,
      summary:
        "The organization's getting-started checklist, user of the organization or admin: data { steps [{ key (source | trial_balance | entities | mappings | rates | consolidation | lock | pack), title, why, done, doneAt, doneBy, detail, link { path, label } }], done, total, next } with every step derived from the organization's state (never ticked by hand); an organization not onboarded yet has none done",
    },
    auth('admin', 'user'),
    validate({ params: z.object({ orgId: orgIdSchema }) }),
    async (req: Request, res) => {
      const { orgId } = req.params as { orgId: string };
      assertOrgAccess(req.user!, orgId);
      const org = await findOrganization(orgId);
      if (!org.onboarding?.databaseName) {
        ok(res, CHECKLIST_FETCHED, notOnboardedChecklist());
        return;
      }
      ok(res, CHECKLIST_FETCHED, await withRequestOrgDatabase(cfg, req, async (o) => checklist(await readingAsProvisioned(o), orgId), { readOnly: true }));
    },
  );
  return router;
}
