// The organization's pipelines (issue 4): list, run all as one workflow, run history,
// cancel. Mounted at /pipeline beside the file-upload router (another module).
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { Router } from 'express';
import { z } from 'zod';
import { publicPipelineRun, type PipelineRunRecord } from '../../../common/models/pipeline-run';
import { withRunStore, type PipelineRunFilter } from '../../../warehouse/records/run-store';
import { workflowIds } from '../../../common/temporal';
import { pipelineRunWorkflow, type PipelineRunOutput, type PipelineRunProgress } from '../../../workflows/pipelines';
import type { AppDeps } from '../../deps';
import { assertOrgAccess, auth } from '../../lib/auth';
import { ApiError, badRequest, notFound, stepFailure } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { route } from '../../lib/route';
import { pipelineRunSchema, runHistorySchema } from '../../../common/contract/pipeline-runs';
import { assertOrganizationExists, findOrganization } from '../../lib/organization';
import { temporalUiUrl, STILL_RUNNING, queryProgress, resultWithin, workflowStart } from '../../lib/temporal';
import { PAGE_SIZE } from '../../../common/constants';
import { orgParams, runParams, runPipelineParams, runPipelineQuery, runsQuery } from './schemas';

export { PAGE_SIZE };
export const RUN_FAILED = 'An error occurred while running the pipeline';
const NOT_ONBOARDED = 'This organization has no data factory yet: an admin must onboard it first.';

const onboardedOrg = findOrganization;

export function pipelinesRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  const withLink = (r: PipelineRunRecord) => ({ ...publicPipelineRun(r), temporalUrl: temporalUiUrl(cfg, r.workflowId, r.runId) });

  /** A running run's live state (the workflow's progress query), or null when no worker answers within 3 s. */
  const runProgress = (workflowId: string, runId: string) => queryProgress<PipelineRunProgress>(deps.temporal, deps.temporal.workflow.getHandle(workflowId, runId));

  /**
   * A record still "running" whose workflow has ended without closing it (terminated by an
   * operator, timed out) is closed here, so the screen never shows a ghost run forever.
   */
  async function reconcile(runs: PipelineRunRecord[]): Promise<PipelineRunRecord[]> {
    return Promise.all(
      runs.map(async (r) => {
        if (r.status !== 'running') return r;
        let ended: { how: string; at: Date } | undefined;
        try {
          const d = await deps.temporal.workflow.getHandle(r.workflowId, r.runId).describe();
          if (d.status.name !== 'RUNNING') ended = { how: d.status.name.toLowerCase().replace(/_/g, ' '), at: d.closeTime ?? new Date() };
        } catch (e) {
          if (!(e instanceof WorkflowNotFoundError)) throw e;
          ended = { how: 'missing', at: new Date() };
        }
        if (!ended) {
          // Still running: each pipeline's state as the workflow itself sees it (one source).
          const live = await runProgress(r.workflowId, r.runId);
          if (!live) return r;
          const pipelines = r.pipelines.map((p) => {
            const l = live.pipelines.find((x) => x.name === p.name);
            return l ? { ...p, status: l.status, rowsMoved: l.status === 'running' ? p.rowsMoved : l.rowsMoved, error: l.error ?? p.error } : p;
          });
          return { ...r, pipelines } as PipelineRunRecord;
        }
        const status = ended.how === 'cancelled' ? 'cancelled' : 'failed';
        const error = `The run's workflow ended (${ended.how}) before the run was recorded as finished`;
        const durationMs = ended.at.getTime() - new Date(r.startedAt).getTime();
        // Its pipelines end with it (e.g. cancelled before the run's first step returned).
        const pipelines: PipelineRunRecord['pipelines'] = r.pipelines.map((p) => (p.status === 'pending' || p.status === 'running' ? { ...p, status } : p));
        const closed = { ...r, status, endedAt: ended.at, durationMs, error, pipelines } as PipelineRunRecord;
        // Only while still running: the workflow's own close, if it came meanwhile, stays.
        await withRunStore(cfg, String(r.organization_id), (s) => s.updatePipelineRun(r.runId, (now) => (now?.status === 'running' ? { ...now, status, endedAt: ended.at, durationMs, error, pipelines } : null)));
        return closed;
      }),
    );
  }

  const listSpec = {
    summary:
      "The organization's pipelines (installed by the data factory import), user of the organization or admin: data.pipelines [{ name, description, dependsOn, activities, factoryName, lastRun { runId, status, startedAt, endedAt, rowsMoved, error }, lastRunStatus, lastRunAt }]",
    tag: 'pipelines',
  };
  route(router, 'get', '/list-pipelines/:organizationId', listSpec, auth('admin', 'user'), validate({ params: orgParams }), async (req, res) => {
    const { organizationId } = req.params as { organizationId: string };
    assertOrgAccess(req.user!, organizationId);
    const org = await onboardedOrg(organizationId);
    const pipelines = await Promise.all(
      (org.onboarding?.pipelines ?? []).map(async (p) => {
        const last = await withRunStore(cfg, organizationId, (s) => s.lastPipelineRun(p.name));
        const mine = last?.pipelines.find((x) => x.name === p.name);
        const lastRun = last && mine ? { runId: last.runId, status: mine.status, startedAt: mine.startedAt ?? last.startedAt, endedAt: mine.endedAt ?? null, rowsMoved: mine.rowsMoved ?? 0, error: mine.error ?? null } : null;
        return {
          name: p.name,
          description: p.description ?? '',
          dependsOn: p.dependsOn ?? [],
          activities: (p.activities ?? []).map((a) => ({ name: a.name, type: a.type })),
          factoryName: org.onboarding?.dataFactoryName ?? null,
          lastRun,
          lastRunStatus: lastRun?.status ?? null,
          lastRunAt: lastRun?.startedAt ?? null,
        };
      }),
    );
    ok(res, 'Pipelines fetched successfully', { pipelines });
  });

  /**
   * Runs every pipeline of the organization as one workflow (pipelines-<orgId>). A call while a
   * run is going joins that run. Waits for the outcome unless ?wait=false (then 202 at once).
   */
  const runSpec = {
    summary:
      "Run all pipelines of organization {id} as one workflow; a call while a run is going joins it. Waits for the outcome: 'All pipelines ran successfully!' data { run, pipelines }; 404 'No files found to process.' when the container holds no file; 502 'Failed to run some pipelines.' with each pipeline's outcome in errors and data; 409 when cancelled. ?wait=false answers 202 at once with data.run { runId, workflowId, status, temporalUrl }",
    tag: 'pipelines',
    statuses: {
      202: '?wait=false, or still running after PIPELINE_WAIT_SECONDS: data.run',
      404: "'Organization not found', or 'No files found to process.' when the container holds no file",
      409: 'The run was cancelled',
      502: "'Failed to run some pipelines.' (each pipeline's outcome in errors and data) or a failed step",
    },
  };
  route(router, 'get', '/run-pipeline/:id', runSpec, auth('admin', 'user'), validate({ params: runPipelineParams, query: runPipelineQuery }), async (req, res) => {
    const { id: orgId } = req.params as { id: string };
    assertOrgAccess(req.user!, orgId);
    const org = await onboardedOrg(orgId);
    if (!org.onboarding?.pipelines?.length) throw badRequest(NOT_ONBOARDED);
    const user = req.user!;
    const workflowId = workflowIds.pipelineRun(orgId);
    // One run at a time per organization: a second call gets the running one.
    const handle = await deps.temporal.workflow.start(pipelineRunWorkflow, {
      ...workflowStart(cfg, workflowId, orgId),
      args: [{ orgId, startedBy: { userId: String(user._id), name: user.fullName || user.email, email: user.email } }],
    });
    const runId = handle.firstExecutionRunId;
    const temporalUrl = temporalUiUrl(cfg, workflowId, runId);
    if ((res.locals.query as { wait: string }).wait === 'false') {
      return ok(res, 'Pipeline run started', { run: { runId, workflowId, status: 'running', temporalUrl } }, 202);
    }
    let out: PipelineRunOutput;
    const runHandle = deps.temporal.workflow.getHandle<typeof pipelineRunWorkflow>(workflowId, runId);
    try {
      // Answer before the client gives up (100 s): a longer run goes on and is followed by its id.
      const outcome = await resultWithin(deps.temporal, runHandle, cfg.PIPELINE_WAIT_SECONDS * 1000);
      if (outcome === STILL_RUNNING) {
        const progress = await runProgress(workflowId, runId);
        return ok(res, 'The pipelines are still running: follow the run in the pipeline history.', { run: { runId, workflowId, status: 'running', temporalUrl, progress } }, 202);
      }
      out = outcome;
    } catch (e) {
      if (e instanceof WorkflowFailedError && e.cause instanceof CancelledFailure) throw new ApiError(409, 'The pipeline run was cancelled');
      return stepFailure(e, RUN_FAILED);
    }
    const record = await withRunStore(cfg, orgId, (s) => s.findPipelineRun(runId));
    const run = record ? withLink(record) : { ...out, temporalUrl };
    if (out.status === 'no_files') throw notFound('No files found to process.');
    if (out.status === 'succeeded') return ok(res, 'All pipelines ran successfully!', { run, pipelines: out.pipelines });
    const errors = out.pipelines.filter((p) => p.status !== 'succeeded').map((p) => ({ msg: `${p.name}: ${p.status}${p.error ? `: ${p.error}` : ''}` }));
    res.status(502).json({ status: false, message: 'Failed to run some pipelines.', errors, data: { run, pipelines: out.pipelines } });
  });

  /** Run history and running runs: filters status, pipeline, from/to (YYYY-MM-DD, by start), 10 per page, newest first. */
  const historySpec = {
    summary:
      'Run history and running runs, newest first, 10 per page: data { runs [{ id, runId, status (running | succeeded | failed | cancelled | no_files), startedAt, endedAt, durationMs, rowsMoved, fileCount, error, startedBy { userId, name, email }, pipelines [{ name, status, startedAt, endedAt, rowsMoved, error, files }], temporalUrl }], total, page, pageSize, pages }',
    tag: 'pipelines',
    answer: runHistorySchema,
  };
  route(router, 'get', '/runs/:organizationId', historySpec, auth('admin', 'user'), validate({ params: orgParams, query: runsQuery }), async (req, res) => {
    const { organizationId } = req.params as { organizationId: string };
    assertOrgAccess(req.user!, organizationId);
    await assertOrganizationExists(organizationId);
    const q = res.locals.query as z.infer<typeof runsQuery>;
    const filter: PipelineRunFilter = {
      status: q.status,
      pipeline: q.pipeline,
      from: q.from ? new Date(`${q.from}T00:00:00.000Z`) : undefined,
      to: q.to ? new Date(new Date(`${q.to}T00:00:00.000Z`).getTime() + 86_400_000) : undefined,
    };
    const { total, runs } = (await withRunStore(cfg, organizationId, (s) => s.listPipelineRuns(filter, { offset: (q.page - 1) * PAGE_SIZE, limit: PAGE_SIZE }))) ?? { total: 0, runs: [] };
    ok(res, 'Pipeline runs fetched successfully', { runs: (await reconcile(runs)).map(withLink), total, page: q.page, pageSize: PAGE_SIZE, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) });
  });

  route(router, 'get', '/runs/:organizationId/:runId', { summary: 'One run: data.run (as in the history)', tag: 'pipelines', answer: z.object({ run: pipelineRunSchema }) }, auth('admin', 'user'), validate({ params: runParams }), async (req, res) => {
    const { organizationId, runId } = req.params as z.infer<typeof runParams>;
    assertOrgAccess(req.user!, organizationId);
    await assertOrganizationExists(organizationId);
    const run = await withRunStore(cfg, organizationId, (s) => s.findPipelineRun(runId));
    if (!run) throw notFound('Pipeline run not found');
    const [current] = await reconcile([run]);
    ok(res, 'Pipeline run fetched successfully', { run: withLink(current!) });
  });

  /** Cancels a running run: the workflow records it as cancelled, a running Azure run is cancelled too. */
  const cancelSpec = {
    summary: "Cancel a running run ('Cancellation requested'); the run ends as cancelled, an Azure Data Factory run is cancelled too; 409 when it is not running",
    tag: 'pipelines',
    statuses: { 409: 'This pipeline run is not running' },
  };
  route(router, 'post', '/runs/:organizationId/:runId/cancel', cancelSpec, auth('admin', 'user'), validate({ params: runParams }), async (req, res) => {
    const { organizationId, runId } = req.params as z.infer<typeof runParams>;
    assertOrgAccess(req.user!, organizationId);
    const run = await withRunStore(cfg, organizationId, (s) => s.findPipelineRun(runId));
    if (!run) throw notFound('Pipeline run not found');
    if (run.status !== 'running') throw new ApiError(409, 'This pipeline run is not running');
    try {
      await deps.temporal.workflow.getHandle(run.workflowId, run.runId).cancel();
    } catch (e) {
      if (e instanceof WorkflowNotFoundError) throw new ApiError(409, 'This pipeline run is not running');
      throw e;
    }
    ok(res, 'Cancellation requested', { run: withLink(run) });
  });

  return router;
}
