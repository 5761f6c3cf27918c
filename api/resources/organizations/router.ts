// /api/v1/organization: list (admin all, user its own), one, add and update (admin).
import { Router } from 'express';
import { z } from 'zod';
import { dashboards, email, messages, objectId, organizationName, phone } from '../../../common/validation';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { createOrganization, getOrganization, listOrganizations, updateOrganization } from './service';

const BODY_OBJECT = 'Request body must be a JSON object';
const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);

const filter = (label: string, max: number) =>
  z.preprocess(emptyToUndefined, z.string({ invalid_type_error: `The ${label} filter must be a single value` }).trim().max(max, `The ${label} filter is too long`).optional());

const listQuery = z.object({ name: filter('name', 100), email: filter('email', 254), phone: filter('phone', 30) });

const idParams = z.object({ id: objectId('Invalid organization ID') });

const address = z.string({ invalid_type_error: messages.address }).trim().max(300, messages.address);
const description = z.string({ invalid_type_error: messages.description }).trim().max(1000, messages.description);

const addBody = z.object(
  {
    organizationName,
    organizationEmail: email,
    organizationPhoneNumber: phone,
    organizationAddress: address.optional(),
    organizationDescription: description.optional(),
    dashboards: dashboards.optional(),
  },
  { invalid_type_error: BODY_OBJECT },
);

const updateBody = z
  .object(
    {
      organizationName: organizationName.optional(),
      organizationEmail: email.optional(),
      organizationPhoneNumber: phone.optional(),
      organizationAddress: address.optional(),
      organizationDescription: description.optional(),
      dashboards: dashboards.optional(),
    },
    { invalid_type_error: BODY_OBJECT },
  )
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'Nothing to update');

export function organizationsRouter(_deps: AppDeps): Router {
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

  return router;
}
