// /api/v1/organization: list (admin all, user its own), one, add, update and delete (admin).
import { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { deleteOrganization } from './deletion';
import { createOrganization, getOrganization, listOrganizations, updateOrganization } from './service';
import { addBody, idParams, listQuery, updateBody } from './schemas';

export function organizationsRouter(deps: AppDeps): Router {
  const router = Router();

  router.get('/', auth(), validate({ query: listQuery }), async (req, res) => {
    ok(res, 'Organizations fetched successfully', await listOrganizations(req.user!, res.locals.query as z.infer<typeof listQuery>));
  });

  router.post('/add', auth('admin'), validate({ body: addBody }), async (req, res) => {
    ok(res, 'Organization created successfully', await createOrganization(req.user!, req.body as z.infer<typeof addBody>), 201);
  });

  router.get('/:id', auth(), validate({ params: idParams }), async (req, res) => {
    ok(res, 'Organization fetched successfully', await getOrganization(req.user!, (req.params as z.infer<typeof idParams>).id));
  });

  router.put('/:id', auth('admin'), validate({ params: idParams, body: updateBody }), async (req, res) => {
    ok(res, 'Organization updated successfully', await updateOrganization(req.user!, (req.params as z.infer<typeof idParams>).id, req.body as z.infer<typeof updateBody>));
  });

  /** 202 at once: the organization-delete workflow removes it (a repeated request joins the same workflow). */
  router.delete('/:id', auth('admin'), validate({ params: idParams }), async (req, res) => {
    const { workflowId, organizationName } = await deleteOrganization(deps, req.user!, (req.params as z.infer<typeof idParams>).id);
    ok(res, `Organization ${organizationName} is being deleted`, { workflowId }, 202);
  });

  return router;
}
