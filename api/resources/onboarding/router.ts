import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { Router } from 'express';
import { z } from 'zod';
import { Organization, type OrganizationDoc } from '../../../common/models/organization';
import { encryptSecret } from '../../../common/crypto';
import { PROGRESS_QUERY, workflowIds } from '../../../common/temporal';
import { SHORT_NAME_RE, messages } from '../../../common/validation';
import { AZURE_DATABASE_NAME, AZURE_FACTORY_NAME, CONTAINER_NAME } from '../../../common/resources';
import type { Config } from '../../../common/config';
import {
  createContainerWorkflow,
  createDatabaseWorkflow,
  createDataFactoryWorkflow,
  importDataFactoryWorkflow,
  onboardOrganizationWorkflow,
  type OnboardingProgress,
  type StepProgress,
} from '../../../workflows/onboarding';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { ApiError, notFound, stepFailure } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { route } from '../../lib/route';
import { findOrganization, orgIdSchema } from '../../lib/organization';
import { STILL_RUNNING, temporalUiUrl, within, workflowStart } from '../../lib/temporal';
import { settingsSchema, settingsShape } from './schemas';

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

export { orgIdSchema } from '../../lib/organization';

type Provider = Config['PROVIDER'];

/** Local: the spec's short-name rule. Azure: Azure's own container naming rule. */
function containerNameSchema(provider: Provider) {
  return provider === 'azure'
    ? z.string({ required_error: 'Container name is required' }).regex(CONTAINER_NAME, 'Container name must be 3-63 lowercase letters, digits or single dashes')
    : z.string({ required_error: 'Container name is required' }).regex(SHORT_NAME_RE, `Container name: ${messages.shortName}`);
}
function databaseNameSchema(provider: Provider) {
  return provider === 'azure'
    ? z.string({ required_error: 'Database name is required' }).regex(AZURE_DATABASE_NAME, 'Database name must be 1-128 characters without <>*%&:\\/? and not end with a dot or space')
    : z.string({ required_error: 'Database name is required' }).regex(SHORT_NAME_RE, `Database name: ${messages.shortName}`);
}
function factoryNameSchema(provider: Provider, field = 'Data factory name') {
  return provider === 'azure'
    ? z.string({ required_error: `${field} is required` }).regex(AZURE_FACTORY_NAME, `${field} must be 3-63 letters, digits or single hyphens`)
    : z.string({ required_error: `${field} is required` }).regex(SHORT_NAME_RE, `${field}: ${messages.shortName}`);
}
type Settings = z.infer<typeof settingsSchema>;
/** The web form also sends the spec's names (adminUsername/adminPassword). */
const settingAliases: Record<string, keyof Settings> = { adminUsername: 'sqlAdminUsername', adminPassword: 'sqlAdminPassword', serverName: 'sqlServerName' };
function withAliases(v: unknown): unknown {
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  for (const [alias, name] of Object.entries(settingAliases)) if (out[alias] !== undefined && out[name] === undefined) out[name] = out[alias];
  for (const [k, x] of Object.entries(out)) if (typeof x === 'string' && x.trim() === '') delete out[k];
  return out;
}

/** Stores the section 3 fields on the organization (never in workflow inputs: histories are not encrypted). */
async function saveSettings(orgId: string, s: Settings, cfg: Config): Promise<void> {
  const set: Record<string, unknown> = {};
  if (s.storageAccountName) set['onboarding.storageAccountName'] = s.storageAccountName;
  if (s.sqlServerName) set['onboarding.sqlServerName'] = s.sqlServerName;
  if (s.sqlAdminUsername) set['onboarding.sqlAdminUsername'] = s.sqlAdminUsername;
  if (s.location) set['onboarding.location'] = s.location;
  if (s.sqlAdminPassword) set['onboarding.sqlAdminPasswordEnc'] = encryptSecret(s.sqlAdminPassword, cfg.ENCRYPTION_KEY);
  if (s.blobToSqlConnectionString) set['onboarding.blobToSqlConnectionStringEnc'] = encryptSecret(s.blobToSqlConnectionString, cfg.ENCRYPTION_KEY);
  if (Object.keys(set).length) await Organization.updateOne({ _id: orgId }, { $set: set });
}

/** The organization's onboarding fields as answers carry them: secrets only as "set". */
export function publicOnboarding(org: OrganizationDoc) {
  const ob = org.onboarding ?? {};
  return {
    containerName: ob.containerName ?? null,
    databaseName: ob.databaseName ?? null,
    dataFactoryName: ob.dataFactoryName ?? null,
    factoryImportedAt: ob.factoryImportedAt ?? null,
    pipelines: (ob.pipelines ?? []).map((p) => p.name),
    storageAccountName: ob.storageAccountName ?? null,
    sqlServerName: ob.sqlServerName ?? null,
    sqlAdminUsername: ob.sqlAdminUsername ?? null,
    sqlAdminPasswordSet: Boolean(ob.sqlAdminPasswordEnc),
    location: ob.location ?? null,
    blobToSqlConnectionStringSet: Boolean(ob.blobToSqlConnectionStringEnc),
  };
}

const requireOrg = findOrganization;

/** The onboarding steps in order: each needs the one before it done (its result stored on the organization). */
const STEP_ORDER = [
  { name: 'createContainer', label: 'the storage container', done: (ob: Onboarding) => Boolean(ob.containerName) },
  { name: 'createDatabase', label: 'the SQL database', done: (ob: Onboarding) => Boolean(ob.databaseName) },
  { name: 'createDataFactory', label: 'the data factory', done: (ob: Onboarding) => Boolean(ob.dataFactoryName) },
  { name: 'importDataFactory', label: 'the factory template import', done: (ob: Onboarding) => Boolean(ob.factoryImportedAt) },
] as const;
type Onboarding = NonNullable<OrganizationDoc['onboarding']>;

/** 409 unless the step before `step` is done: onboarding runs container -> database -> data factory -> import. */
function requirePreviousStep(org: OrganizationDoc, step: (typeof STEP_ORDER)[number]['name']): void {
  const i = STEP_ORDER.findIndex((s) => s.name === step);
  const previous = STEP_ORDER[i - 1];
  if (previous && !previous.done(org.onboarding ?? {})) {
    throw new ApiError(409, `Create ${previous.label} first: onboarding runs in order (storage container, SQL database, data factory, template import).`);
  }
}

/** The steps as the organization's record shows them, and the overall state they add up to. */
function recordedSteps(org: OrganizationDoc): { steps: StepProgress[]; status: 'not_started' | 'incomplete' | 'completed' } {
  const ob = org.onboarding ?? {};
  const results: Record<string, Record<string, unknown> | undefined> = {
    createContainer: ob.containerName ? { containerName: ob.containerName } : undefined,
    createDatabase: ob.databaseName ? { databaseName: ob.databaseName } : undefined,
    createDataFactory: ob.dataFactoryName ? { dataFactoryName: ob.dataFactoryName } : undefined,
    importDataFactory: undefined,
  };
  const steps = STEP_ORDER.map((s): StepProgress => {
    const result = results[s.name];
    return { name: s.name, status: s.done(ob) ? 'done' : 'pending', ...(result ? { result } : {}) } as StepProgress;
  });
  const done = steps.filter((s) => s.status === 'done').length;
  return { steps, status: done === 0 ? 'not_started' : done === steps.length ? 'completed' : 'incomplete' };
}

export function onboardRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  // A repeated request joins the running step; a finished or failed one runs again (idempotent steps).
  const startOptions = (workflowId: string, orgId: string) => workflowStart(cfg, workflowId, orgId);

  const createContainerBody = z.object({
    orgID: orgIdSchema,
    containerJson: jsonObject(z.object({ containerName: containerNameSchema(cfg.PROVIDER) }, { invalid_type_error: 'containerJson must be an object or a JSON string', required_error: 'containerJson is required' })),
  });
  route(router, 'post', '/storage/create-container', { summary: 'Onboarding step 1 (admin): create the storage container; data.orgID', tag: 'onboarding', statuses: { 404: "'Organization not found': the orgID is well formed but names no organization", 409: 'A step before this one is not done (onboarding runs in order), or the step conflicts with what exists', 502: "'Failed to create container': the step failed (errors[0].msg says why)" } }, auth('admin'), validate({ body: createContainerBody }), async (req, res) => {
    const { orgID, containerJson } = req.body as z.infer<typeof createContainerBody>;
    await requireOrg(orgID);
    try {
      const result = await deps.temporal.workflow.execute(createContainerWorkflow, {
        ...startOptions(workflowIds.onboardingStep('container', orgID), orgID),
        args: [{ orgId: orgID, containerName: containerJson.containerName }],
      });
      ok(res, result.created ? 'Container created successfully!' : 'Container already exists', result);
    } catch (e) {
      stepFailure(e, 'Failed to create container');
    }
  });

  const createDatabaseBody = z.object({
    orgID: orgIdSchema,
    databaseJson: jsonObject(
      z.preprocess(withAliases, z.object({ databaseName: databaseNameSchema(cfg.PROVIDER), ...settingsShape }, { invalid_type_error: 'databaseJson must be an object or a JSON string', required_error: 'databaseJson is required' })),
    ),
  });
  const databaseSpec = {
    summary:
      "Onboarding step 2 (admin): the organization's SQL database (local: SQLite file; azure: Azure SQL). 'Database created successfully!' / 'Database already exists', data { orgID, databaseName, created }; failure 'Failed to create Database'. databaseJson may also carry the section 3 fields (sqlServerName, adminUsername, adminPassword, location, storageAccountName, blobToSqlConnectionString), stored encrypted where secret",
    tag: 'onboarding',
    statuses: { 404: "'Organization not found': the orgID is well formed but names no organization", 409: 'A step before this one is not done (onboarding runs in order), or the step conflicts with what exists', 502: "'Failed to create Database': the step failed (errors[0].msg says why)" },
  };
  route(router, 'post', '/sql/create-database', databaseSpec, auth('admin'), validate({ body: createDatabaseBody }), async (req, res) => {
    const { orgID, databaseJson } = req.body as z.infer<typeof createDatabaseBody>;
    const { databaseName, ...settings } = databaseJson;
    requirePreviousStep(await requireOrg(orgID), 'createDatabase');
    await saveSettings(orgID, settings, cfg);
    try {
      const result = await deps.temporal.workflow.execute(createDatabaseWorkflow, {
        ...startOptions(workflowIds.onboardingStep('database', orgID), orgID),
        args: [{ orgId: orgID, databaseName }],
      });
      ok(res, result.created ? 'Database created successfully!' : 'Database already exists', result);
    } catch (e) {
      stepFailure(e, 'Failed to create Database');
    }
  });

  const createFactoryBody = z.object({
    orgID: orgIdSchema,
    dataFactoryJson: jsonObject(
      z.object({ dataFactoryName: factoryNameSchema(cfg.PROVIDER) }, { invalid_type_error: 'dataFactoryJson must be an object or a JSON string', required_error: 'dataFactoryJson is required' }),
    ),
  });
  const factorySpec = {
    summary: "Onboarding step 3 (admin): the organization's data factory (local pipeline engine or Azure Data Factory). 'Data Factory created successfully!', data { orgID, dataFactoryName, created }; failure 'Failed to create Data Factory'",
    tag: 'onboarding',
    statuses: { 404: "'Organization not found': the orgID is well formed but names no organization", 409: 'A step before this one is not done (onboarding runs in order), or the step conflicts with what exists', 502: "'Failed to create Data Factory': the step failed (errors[0].msg says why)" },
  };
  route(router, 'post', '/data-factory/create', factorySpec, auth('admin'), validate({ body: createFactoryBody }), async (req, res) => {
    const { orgID, dataFactoryJson } = req.body as z.infer<typeof createFactoryBody>;
    requirePreviousStep(await requireOrg(orgID), 'createDataFactory');
    try {
      const result = await deps.temporal.workflow.execute(createDataFactoryWorkflow, {
        ...startOptions(workflowIds.onboardingStep('datafactory', orgID), orgID),
        args: [{ orgId: orgID, dataFactoryName: dataFactoryJson.dataFactoryName }],
      });
      ok(res, result.created ? 'Data Factory created successfully!' : 'Data Factory already exists', result);
    } catch (e) {
      stepFailure(e, 'Failed to create Data Factory');
    }
  });

  const importBody = z.object({
    factoryName: factoryNameSchema(cfg.PROVIDER, 'Factory name'),
    databaseName: databaseNameSchema(cfg.PROVIDER),
    containerName: containerNameSchema(cfg.PROVIDER),
    orgID: orgIdSchema.optional(),
  });
  const importSpec = {
    summary: "Onboarding step 4 (admin): install templates/datafactory into the factory (linked services, datasets, pipelines). 'Data Factory imported successfully!', data { factoryName, databaseName, containerName, pipelines }; failure 'Failed to import data factory'",
    tag: 'onboarding',
    statuses: {
      404: "'Organization not found' for an unknown orgID; without orgID, no organization has a data factory of that name",
      409: 'The data factory step is not done yet (onboarding runs in order)',
      502: "'Failed to import data factory': the step failed (errors[0].msg says why)",
    },
  };
  route(router, 'post', '/data-factory/import', importSpec, auth('admin'), validate({ body: importBody }), async (req, res) => {
    const body = req.body as z.infer<typeof importBody>;
    // The spec's call names the factory, not the organization: the factory's owner is found by it.
    const org = body.orgID ? await requireOrg(body.orgID) : await Organization.findOne({ 'onboarding.dataFactoryName': body.factoryName }).lean<OrganizationDoc>();
    if (!org) throw notFound(`No organization has a data factory named ${body.factoryName}: create it first`);
    requirePreviousStep(org, 'importDataFactory');
    const orgId = String(org._id);
    try {
      const result = await deps.temporal.workflow.execute(importDataFactoryWorkflow, {
        ...startOptions(workflowIds.onboardingStep('import', orgId), orgId),
        args: [{ orgId, factoryName: body.factoryName, databaseName: body.databaseName, containerName: body.containerName }],
      });
      ok(res, 'Data Factory imported successfully!', result);
    } catch (e) {
      stepFailure(e, 'Failed to import data factory');
    }
  });

  const startBody = z.preprocess(
    withAliases,
    z.object({
      orgID: orgIdSchema,
      containerName: containerNameSchema(cfg.PROVIDER),
      databaseName: databaseNameSchema(cfg.PROVIDER),
      dataFactoryName: factoryNameSchema(cfg.PROVIDER),
      ...settingsShape,
    }),
  );
  /** All four steps in one workflow (onboard-<orgId>); answers at once, progress via /status. */
  const startSpec = {
    summary: 'Whole onboarding (admin) as one workflow onboard-<orgId>: the four steps in order; a re-run finds what exists and continues from the failed step. 202, data { orgID, workflowId, runId, temporalUrl }',
    tag: 'onboarding',
    statuses: { 202: 'Started (or joined: data.joined)', 404: "'Organization not found': the orgID is well formed but names no organization" },
  };
  route(router, 'post', '/start', startSpec, auth('admin'), validate({ body: startBody }), async (req, res) => {
    const { orgID, containerName, databaseName, dataFactoryName, ...settings } = req.body as z.infer<typeof startBody>;
    await requireOrg(orgID);
    await saveSettings(orgID, settings, cfg);
    const workflowId = workflowIds.onboarding(orgID);
    const alreadyRunning = await deps.temporal.workflow
      .getHandle(workflowId)
      .describe()
      .then((d) => d.status.name === 'RUNNING')
      .catch((e: unknown) => {
        if (e instanceof WorkflowNotFoundError) return false;
        throw e;
      });
    const handle = await deps.temporal.workflow.start(onboardOrganizationWorkflow, {
      ...startOptions(workflowId, orgID),
      args: [{ orgId: orgID, containerName, databaseName, dataFactoryName }],
    });
    const runId = handle.firstExecutionRunId;
    // A call while onboarding runs joins that run (its inputs stand).
    ok(res, alreadyRunning ? 'Onboarding is already running' : 'Onboarding started', { orgID, workflowId, runId, joined: alreadyRunning, temporalUrl: temporalUiUrl(cfg, workflowId, runId) }, 202);
  });

  /** The onboarding workflow's progress query, each step's state, and the Temporal UI link. */
  const statusSpec = {
    summary:
      "Onboarding status (admin) from the workflow's progress query: data { status (not_started | running | completed | failed), workflowId, runId, currentStep, steps [{ name, status (pending | running | done | failed), result, error, existed, attempt, lastFailure }], settings (secrets only as sqlAdminPasswordSet / blobToSqlConnectionStringSet), temporalUrl }",
    tag: 'onboarding',
    statuses: { 503: 'Temporal or Mongo is unreachable, or no worker answered the progress query within 10 s' },
  };
  route(router, 'get', '/status/:orgID', statusSpec, auth('admin'), validate({ params: z.object({ orgID: orgIdSchema }) }), async (req, res) => {
    const { orgID } = req.params as { orgID: string };
    const org = await requireOrg(orgID);
    const workflowId = workflowIds.onboarding(orgID);
    const handle: WorkflowHandle = deps.temporal.workflow.getHandle(workflowId);
    let desc;
    try {
      desc = await handle.describe();
    } catch (e) {
      if (!(e instanceof WorkflowNotFoundError)) throw e;
      // Never run as one workflow (maybe step by step): the steps as the organization records them.
      const recorded = recordedSteps(org);
      return ok(res, 'Onboarding status', { orgID, status: recorded.status, workflowId, runId: null, steps: recorded.steps, settings: publicOnboarding(org), temporalUrl: null });
    }
    // The query needs a worker: when none answers in time, a clear 503 instead of a hanging request.
    const progress = await within(handle.query<OnboardingProgress>(PROGRESS_QUERY), 10_000);
    if (progress === STILL_RUNNING) throw new ApiError(503, 'The onboarding status is not available right now: no worker answered. Try again shortly.');
    // While a step's activity is retrying, its last failure shows beside the step.
    const pending = desc.raw.pendingActivities?.[0];
    const steps = progress.steps.map((s) =>
      s.status === 'running' && pending ? { ...s, attempt: pending.attempt ?? 1, lastFailure: pending.lastFailure?.message ?? null } : s,
    );
    // A finished workflow whose steps were later completed one by one: the record is the truth.
    const recorded = recordedSteps(org);
    const status = desc.status.name === 'RUNNING' ? 'running' : desc.status.name === 'COMPLETED' || recorded.status === 'completed' ? 'completed' : 'failed';
    ok(res, 'Onboarding status', {
      orgID,
      status,
      workflowStatus: desc.status.name,
      workflowId,
      runId: desc.runId,
      currentStep: progress.currentStep ?? null,
      steps: status === 'completed' && desc.status.name !== 'COMPLETED' ? recorded.steps : steps,
      settings: publicOnboarding(org),
      temporalUrl: temporalUiUrl(cfg, workflowId, desc.runId),
    });
  });

  /** Saves the onboarding fields of spec section 3 (secrets encrypted, answered only as "set"). */
  route(router, 'put', '/settings/:orgID', { summary: 'Save the onboarding fields of spec section 3 (admin); secrets encrypted at rest, answered only as "set"', tag: 'onboarding' }, auth('admin'), validate({ params: z.object({ orgID: orgIdSchema }), body: z.preprocess(withAliases, settingsSchema) }), async (req, res) => {
    const { orgID } = req.params as { orgID: string };
    await requireOrg(orgID);
    await saveSettings(orgID, req.body as Settings, cfg);
    ok(res, 'Onboarding settings saved', publicOnboarding(await requireOrg(orgID)));
  });

  return router;
}
