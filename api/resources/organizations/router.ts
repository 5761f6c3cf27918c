// /api/v1/organization: list (admin all, user its own), one, add, update and delete (admin).
import { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { route } from '../../lib/route';
import { deleteOrganization } from './deletion';
import { createOrganization, getOrganization, listOrganizations, updateOrganization } from './service';
import { addBody, idParams, listQuery, updateBody } from './schemas';

export function organizationsRouter(deps: AppDeps): Router {
  const router = Router();

  route(router, 'get', '/', { summary: 'Organizations (admin: all; user: its own) filtered by name, email, phone: data.organizations; with page, 10 per page and data { page, pageSize, total, pages }', tag: 'organizations' }, auth(), validate({ query: listQuery }), async (req, res) => {
    ok(res, 'Organizations fetched successfully', await listOrganizations(req.user!, res.locals.query as z.infer<typeof listQuery>));
  });

  route(router, 'post', '/add', { summary: 'Add an organization (admin): data.createdOrganization', tag: 'organizations', statuses: { 201: 'Created', 409: 'Another organization has this name (or one being deleted has it)' } }, auth('admin'), validate({ body: addBody }), async (req, res) => {
    ok(res, 'Organization created successfully', await createOrganization(req.user!, req.body as z.infer<typeof addBody>), 201);
  });

  route(router, 'get', '/:id', { summary: 'One organization (admin: any; user: its own): data.organization', tag: 'organizations' }, auth(), validate({ params: idParams }), async (req, res) => {
    ok(res, 'Organization fetched successfully', await getOrganization(req.user!, (req.params as z.infer<typeof idParams>).id));
  });

  route(router, 'put', '/:id', { summary: 'Update an organization (admin): data.updatedOrganization', tag: 'organizations', statuses: { 409: 'Another organization has this name' } }, auth('admin'), validate({ params: idParams, body: updateBody }), async (req, res) => {
    ok(res, 'Organization updated successfully', await updateOrganization(req.user!, (req.params as z.infer<typeof idParams>).id, req.body as z.infer<typeof updateBody>));
  });

  /** 202 at once: the organization-delete workflow removes it (a repeated request joins the same workflow). */
  const deleteSpec = {
    summary:
      "Delete an organization (admin): marks it deleting at once (no list or read shows it from then on; its users' sessions end; for the demo organization the app setting demo-organization is written, so the demo is never created again), then workflow organization-delete-<id> removes its sync schedules, connections (encrypted secrets, pending connections, OAuth states), files and storage container, SQL database (and data factory on azure), pipeline and sync runs, users and finally the organization; audited as organization.delete. 202 'Organization <name> is being deleted' with data { workflowId }; a repeated request while it is deleting answers the same workflowId. 409 while a pipeline run, sync, onboarding, consolidation or CSV save of it is in progress; 404 unknown. A failed step leaves it listed for admins with deletion { status: 'failed', error }: a new DELETE retries",
    tag: 'organizations',
    statuses: { 202: 'The deletion workflow runs (data.workflowId)', 409: 'A pipeline run, sync, onboarding, consolidation or CSV save of it is in progress' },
  };
  route(router, 'delete', '/:id', deleteSpec, auth('admin'), validate({ params: idParams }), async (req, res) => {
    const { workflowId, organizationName } = await deleteOrganization(deps, req.user!, (req.params as z.infer<typeof idParams>).id);
    ok(res, `Organization ${organizationName} is being deleted`, { workflowId }, 202);
  });

  return router;
}
