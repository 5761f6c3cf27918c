import { WorkflowFailedError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { Router } from 'express';
import mongoose from 'mongoose';
import { z } from 'zod';
import { Organization } from '../../common/models/organization';
import { ORGANIZATION_ID, workflowIds } from '../../common/temporal';
import { SHORT_NAME_RE, messages } from '../../common/validation';
import { CONTAINER_NAME } from '../../activities/storage';
import type { createContainerWorkflow } from '../../workflows/onboarding';
import type { AppDeps } from '../deps';
import { auth } from '../lib/auth';
import { ApiError, notFound } from '../lib/errors';
import { ok } from '../lib/respond';
import { validate } from '../lib/validate';

/** `xJson` fields may arrive as objects or as JSON strings. */
function jsonObject<T extends z.ZodTypeAny>(inner: T) {
  return z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return undefined;
    }
  }, inner);
}

export const orgIdSchema = z
  .string({ required_error: 'Organization ID is missing', invalid_type_error: 'Organization ID is missing' })
  .trim()
  .min(1, 'Organization ID is missing')
  .refine((v) => mongoose.isValidObjectId(v), 'Organization ID is missing');

/** Local: the spec's short-name rule. Azure: Azure's own container naming rule. */
function containerNameSchema(provider: 'local' | 'azure') {
  return provider === 'azure'
    ? z.string({ required_error: 'Container name is required' }).regex(CONTAINER_NAME, 'Container name must be 3-63 lowercase letters, digits or single dashes')
    : z.string({ required_error: 'Container name is required' }).regex(SHORT_NAME_RE, `Container name: ${messages.shortName}`);
}

/** The failure's own message (an ApplicationFailure carries the user-facing one). */
export function workflowFailureMessage(e: unknown): string {
  let err: unknown = e instanceof WorkflowFailedError ? e.cause : e;
  while (err instanceof Error && err.cause instanceof Error) err = err.cause;
  return err instanceof Error ? err.message : String(err);
}

export function onboardRouter(deps: AppDeps): Router {
  const router = Router();
  const createContainerBody = z.object({
    orgID: orgIdSchema,
    containerJson: jsonObject(z.object({ containerName: containerNameSchema(deps.config.PROVIDER) }, { invalid_type_error: 'containerJson must be an object or a JSON string', required_error: 'containerJson is required' })),
  });

  router.post('/storage/create-container', auth('admin'), validate({ body: createContainerBody }), async (req, res) => {
    const { orgID, containerJson } = req.body as z.infer<typeof createContainerBody>;
    if (!(await Organization.exists({ _id: orgID }))) throw notFound('Organization not found');
    const workflowId = workflowIds.onboardingStep('container', orgID);
    try {
      const result = await deps.temporal.workflow.execute<typeof createContainerWorkflow>('createContainerWorkflow', {
        workflowId,
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [{ orgId: orgID, containerName: containerJson.containerName }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: new TypedSearchAttributes([{ key: ORGANIZATION_ID, value: orgID }]),
      });
      ok(res, result.created ? 'Container created successfully!' : 'Container already exists', result);
    } catch (e) {
      if (e instanceof WorkflowFailedError) throw new ApiError(502, 'Failed to create container', `Failed to create container: ${workflowFailureMessage(e)}`);
      throw e;
    }
  });
  return router;
}
