// Pipeline runs of an organization's data factory. Local: the template's steps run here
// (activities/datafactory/local.ts) against Azurite and the SQLite file. Azure: runs are
// created in Azure Data Factory and polled. The run record (common/models/pipeline-run) is
// written at each transition and is also the resume point of a retried step.
import type { BlobServiceClient } from '@azure/storage-blob';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import mongoose from 'mongoose';
import type { Config } from '../../common/config';
import { Organization, type OrganizationDoc } from '../../common/models/organization';
import { PipelineRun, type PipelineRunDoc, type RunStatus } from '../../common/models/pipeline-run';
import { Upload, type UploadDoc } from '../../common/models/upload';
import { createCsvLoader } from '../csv';
import type { LoadCsvBlob } from '../csv/contract';
import { localDatabaseFile } from '../warehouse';
import { createAzureFactory } from './azure';
import type { AzureDeps } from './azure-clients';
import { existsSync } from 'node:fs';
import { planCsvLoads, type TableOutcome } from './load-plan';
import { listContainerFiles, localTableHolding } from './local';
import { rebuildTrialBalanceInThread } from './rebuild-thread';

export interface PipelineActivityDeps {
  config: Config;
  blobService: BlobServiceClient;
  /** The CSV loader of activities/csv (contract in activities/csv/contract.ts); built from config and blobService when not given. */
  loadCsvBlob?: LoadCsvBlob;
  azure?: AzureDeps;
}

export interface PipelineRef {
  name: string;
  dependsOn: string[];
}
export interface StartPipelineRunInput {
  orgId: string;
  workflowId: string;
  runId: string;
  /** The workflow's start time (ISO), so a retried activity writes the same record. */
  startedAt: string;
  startedBy?: { userId?: string; name?: string; email?: string };
}
export interface StartPipelineRunOutput {
  pipelines: PipelineRef[];
  fileCount: number;
}
export interface RunPipelineInput {
  orgId: string;
  runId: string;
  pipelineName: string;
}
export interface RunPipelineOutput {
  name: string;
  status: 'succeeded' | 'failed';
  rowsMoved: number;
  error?: string;
}
export interface FinishPipelineRunInput {
  runId: string;
  status: RunStatus;
  error?: string;
  /** Pipelines never started: skipped (a dependency failed) or cancelled. */
  unstarted?: 'skipped' | 'cancelled';
  /** Each pipeline as the workflow saw it end (status, rows, error): what the record says. */
  outcomes?: { name: string; status: string; rowsMoved: number; error?: string }[];
}

async function loadOnboardedOrg(orgId: string): Promise<OrganizationDoc & { onboarding: NonNullable<OrganizationDoc['onboarding']> }> {
  if (!mongoose.isValidObjectId(orgId)) throw ApplicationFailure.nonRetryable('Organization ID is missing', 'ValidationError');
  const org = await Organization.findById(orgId).lean<OrganizationDoc>();
  if (!org) throw ApplicationFailure.nonRetryable(`Organization ${orgId} not found`, 'NotFound');
  const ob = org.onboarding;
  if (!ob?.containerName || !ob.databaseName || !ob.dataFactoryName || !ob.pipelines?.length) {
    throw ApplicationFailure.nonRetryable('This organization has no data factory yet: an admin must onboard it first.', 'NotOnboarded');
  }
  return org as never;
}

/** Writes one pipeline's entry of the run record (by index: FerretDB v1 has no arrayFilters). */
async function setPipeline(runId: string, name: string, fields: Record<string, unknown>): Promise<void> {
  const run = await PipelineRun.findOne({ runId }, { pipelines: 1 }).lean<PipelineRunDoc>();
  const idx = run?.pipelines.findIndex((p) => p.name === name) ?? -1;
  if (idx < 0) throw ApplicationFailure.nonRetryable(`Pipeline ${name} is not part of run ${runId}`, 'NotFound');
  await PipelineRun.updateOne({ runId }, { $set: Object.fromEntries(Object.entries(fields).map(([k, v]) => [`pipelines.${idx}.${k}`, v])) });
}

function heartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // called outside an activity (direct use in tests)
  }
}
/** The Data Factory run id an earlier attempt heartbeated, if any. */
function heartbeatRunId(pipelineName: string): string | undefined {
  try {
    const d = Context.current().info.heartbeatDetails as { pipeline?: string; externalRunId?: string } | undefined;
    return d?.pipeline === pipelineName ? d.externalRunId : undefined;
  } catch {
    return undefined;
  }
}
function cancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}
function cancelled(): boolean {
  try {
    return Context.current().cancellationSignal.aborted;
  } catch {
    return false;
  }
}
async function sleep(ms: number): Promise<void> {
  try {
    await Context.current().sleep(ms);
  } catch (e) {
    if (e instanceof CancelledFailure) throw e;
    await new Promise((r) => setTimeout(r, ms));
  }
}

export function createPipelineActivities(deps: PipelineActivityDeps) {
  const { config: cfg, blobService } = deps;
  const loadCsvBlob = deps.loadCsvBlob ?? createCsvLoader({ config: cfg, blobService });
  const adf = createAzureFactory(cfg, deps.azure ?? {});

  /**
   * "Load every uploaded CSV": the files load-plan.ts picks (never a file being saved or saved
   * as a table; per table the newest uploaded file, only when newer than what the table holds),
   * one loadCsvBlob each, skipping those this run already loaded (a retried attempt resumes).
   */
  async function loadCsvFiles(org: Awaited<ReturnType<typeof loadOnboardedOrg>>, runId: string, pipelineName: string): Promise<RunPipelineOutput> {
    const orgId = String(org._id);
    const { containerName, databaseName } = org.onboarding as { containerName: string; databaseName: string };
    const run = await PipelineRun.findOne({ runId }).lean<PipelineRunDoc>();
    const entry = run?.pipelines.find((p) => p.name === pipelineName);
    // A retried attempt (worker killed, transient failure) resumes after the files already done.
    const files = [...(entry?.files ?? [])].map((f) => ({ blobName: f.blobName, tableName: f.tableName, rows: f.rows ?? 0, status: f.status, error: f.error ?? undefined }));
    const done = new Set(files.map((f) => f.blobName));
    const blobs = await listContainerFiles(blobService, containerName);
    const uploads = (await Upload.find({ organization_id: orgId, containerName }, { blobName: 1, status: 1, tableName: 1, tables: 1, createdAt: 1 }).lean<UploadDoc[]>()).map((u) => ({
      id: String(u._id),
      blobName: u.blobName,
      status: u.status,
      tableName: u.tableName,
      tables: u.tables,
      createdAt: u.createdAt,
    }));
    const file = localDatabaseFile(cfg.WAREHOUSE_DIR, databaseName);
    const plan = await planCsvLoads(
      blobs.filter((b) => !done.has(b.name)),
      uploads,
      async (table) => (existsSync(file) ? localTableHolding(file, table) : { kind: 'missing' }),
    );
    const tables = (): TableOutcome[] => [
      ...files.map((f): TableOutcome => ({ tableName: f.tableName, action: f.status === 'loaded' ? 'loaded' : 'failed', blobName: f.blobName, rows: f.rows, reason: f.error })),
      ...plan.unchanged,
    ];
    for (const load of plan.loads) {
      if (cancelled()) throw new CancelledFailure('pipeline run cancelled');
      heartbeat({ pipeline: pipelineName, file: load.blobName, filesDone: files.length });
      try {
        const res = await loadCsvBlob({ orgId, containerName, blobName: load.blobName, databaseName, tableName: load.tableName, uploadId: load.uploadId });
        files.push({ blobName: load.blobName, tableName: res.tableName, rows: res.rowsLoaded, status: 'loaded', error: undefined });
      } catch (e) {
        // A bad file fails this file only; anything else (storage down, ...) is retried by Temporal.
        if (!(e instanceof ApplicationFailure && e.nonRetryable)) throw e;
        files.push({ blobName: load.blobName, tableName: load.tableName, rows: 0, status: 'failed', error: e.message });
      }
      const rowsMoved = files.reduce((n, f) => n + f.rows, 0);
      await setPipeline(runId, pipelineName, { files, rowsMoved, tables: tables() });
      heartbeat({ pipeline: pipelineName, filesDone: files.length });
    }
    await setPipeline(runId, pipelineName, { tables: tables() });
    const failed = files.filter((f) => f.status === 'failed');
    const rowsMoved = files.reduce((n, f) => n + f.rows, 0);
    return failed.length
      ? { name: pipelineName, status: 'failed', rowsMoved, error: failed.map((f) => `${f.blobName}: ${f.error}`).join('; ') }
      : { name: pipelineName, status: 'succeeded', rowsMoved };
  }

  async function runLocal(org: Awaited<ReturnType<typeof loadOnboardedOrg>>, runId: string, pipelineName: string): Promise<RunPipelineOutput> {
    const installed = org.onboarding.pipelines?.find((p) => p.name === pipelineName);
    if (!installed) throw ApplicationFailure.nonRetryable(`Pipeline ${pipelineName} is not installed`, 'NotFound');
    let rowsMoved = 0;
    for (const step of installed.activities) {
      if (step.type === 'loadCsvFiles') {
        const res = await loadCsvFiles(org, runId, pipelineName);
        rowsMoved += res.rowsMoved;
        if (res.status === 'failed') return { ...res, rowsMoved };
      } else if (step.type === 'rebuildTrialBalance') {
        heartbeat({ pipeline: pipelineName, step: step.name });
        try {
          // On its own thread: seconds of SQLite work on a big warehouse must not stop heartbeats.
          const res = await rebuildTrialBalanceInThread(localDatabaseFile(cfg.WAREHOUSE_DIR, org.onboarding.databaseName as string), {
            onBeat: () => heartbeat({ pipeline: pipelineName, step: step.name }),
            signal: cancellationSignal(),
          });
          rowsMoved += res.rows;
          // Source tables it could not read were left out: said on the run, the run goes on.
          await setPipeline(runId, pipelineName, { warnings: res.warnings ?? [] });
        } catch (e) {
          if (e instanceof ApplicationFailure && e.nonRetryable) return { name: pipelineName, status: 'failed', rowsMoved, error: e.message };
          throw e;
        }
      } else {
        return { name: pipelineName, status: 'failed', rowsMoved, error: `Unknown step type ${step.type}` };
      }
    }
    return { name: pipelineName, status: 'succeeded', rowsMoved };
  }

  /** Azure: one Data Factory run, created once (its id kept on the record) and polled until it ends. */
  async function runAzure(org: Awaited<ReturnType<typeof loadOnboardedOrg>>, runId: string, pipelineName: string, startedAt: Date): Promise<RunPipelineOutput> {
    const factory = org.onboarding.dataFactoryName as string;
    const run = await PipelineRun.findOne({ runId }).lean<PipelineRunDoc>();
    // A retried attempt polls the Data Factory run it already created (kept on the record and in
    // the heartbeat details) instead of starting a second one.
    let externalRunId = run?.pipelines.find((p) => p.name === pipelineName)?.externalRunId ?? heartbeatRunId(pipelineName);
    if (!externalRunId) {
      externalRunId = await adf.createRun(factory, pipelineName);
      heartbeat({ pipeline: pipelineName, externalRunId });
      await setPipeline(runId, pipelineName, { externalRunId });
    }
    for (;;) {
      heartbeat({ pipeline: pipelineName, externalRunId });
      if (cancelled()) {
        await adf.cancelRun(factory, externalRunId);
        throw new CancelledFailure('pipeline run cancelled');
      }
      const state = await adf.getRun(factory, externalRunId);
      if (state.status === 'Succeeded' || state.status === 'Failed' || state.status === 'Cancelled') {
        const rowsMoved = await adf.rowsCopied(factory, externalRunId, startedAt).catch(() => 0);
        if (state.status === 'Succeeded') return { name: pipelineName, status: 'succeeded', rowsMoved };
        return { name: pipelineName, status: 'failed', rowsMoved, error: state.message || `Azure Data Factory run ${state.status.toLowerCase()}` };
      }
      try {
        await sleep(deps.azure?.pollIntervalMs ?? 10_000);
      } catch (e) {
        if (e instanceof CancelledFailure) await adf.cancelRun(factory, externalRunId);
        throw e;
      }
    }
  }

  return {
    /** Creates the run record (idempotent by runId) and counts the container's files. */
    async startPipelineRun(input: StartPipelineRunInput): Promise<StartPipelineRunOutput> {
      const org = await loadOnboardedOrg(input.orgId);
      const files = await listContainerFiles(blobService, org.onboarding.containerName as string, 1000);
      const pipelines = (org.onboarding.pipelines ?? []).map((p) => ({ name: p.name, dependsOn: [...(p.dependsOn ?? [])] }));
      await PipelineRun.updateOne(
        { runId: input.runId },
        {
          $setOnInsert: {
            organization_id: input.orgId,
            workflowId: input.workflowId,
            runId: input.runId,
            startedAt: new Date(input.startedAt),
            startedBy: input.startedBy ?? {},
            status: 'running',
            pipelines: pipelines.map((p) => ({ name: p.name, status: 'pending', rowsMoved: 0, files: [] })),
          },
          $set: { fileCount: files.length },
        },
        { upsert: true },
      );
      return { pipelines, fileCount: files.length };
    },

    /** Runs one pipeline of the organization's factory; a business failure is an outcome, not a throw. */
    async runFactoryPipeline({ orgId, runId, pipelineName }: RunPipelineInput): Promise<RunPipelineOutput> {
      const org = await loadOnboardedOrg(orgId);
      const startedAt = new Date();
      // A run the workflow already closed (cancelled while this attempt was starting) stays closed.
      if (await PipelineRun.exists({ runId, status: 'running' })) await setPipeline(runId, pipelineName, { status: 'running', startedAt });
      const out = cfg.PROVIDER === 'azure' ? await runAzure(org, runId, pipelineName, startedAt) : await runLocal(org, runId, pipelineName);
      // Rows and error only: the pipeline's status is the workflow's to record (finishPipelineRun),
      // so the record never says "succeeded" for a step the workflow has not seen finish.
      await setPipeline(runId, pipelineName, { endedAt: new Date(), rowsMoved: out.rowsMoved, error: out.error ?? null });
      return out;
    },

    /**
     * Closes the run record from the workflow's own outcome: its status, and each pipeline's
     * status, rows and error as the workflow counted them (older histories send no outcomes:
     * then the record's own entries are closed as before).
     */
    async finishPipelineRun({ runId, status, error, unstarted, outcomes }: FinishPipelineRunInput): Promise<void> {
      const run = await PipelineRun.findOne({ runId }).lean<PipelineRunDoc>();
      if (!run) throw ApplicationFailure.nonRetryable(`Pipeline run ${runId} not found`, 'NotFound');
      const endedAt = run.endedAt ?? new Date();
      const pipelines = run.pipelines.map((p) => {
        const o = outcomes?.find((x) => x.name === p.name);
        if (o) {
          const st = o.status === 'pending' ? (unstarted ?? 'skipped') : o.status === 'running' ? (status === 'cancelled' ? 'cancelled' : 'failed') : o.status;
          return { ...p, status: st, rowsMoved: o.rowsMoved, error: o.error ?? (st === 'cancelled' ? 'Cancelled' : p.error), endedAt: p.endedAt ?? (p.startedAt ? endedAt : undefined) };
        }
        return { ...p, status: p.status === 'pending' ? (unstarted ?? 'skipped') : p.status === 'running' && status === 'cancelled' ? 'cancelled' : p.status };
      });
      await PipelineRun.updateOne(
        { runId },
        {
          $set: {
            status,
            endedAt,
            durationMs: endedAt.getTime() - new Date(run.startedAt).getTime(),
            rowsMoved: pipelines.reduce((n, p) => n + (p.rowsMoved ?? 0), 0),
            error: error ?? pipelines.find((p) => p.error)?.error ?? null,
            pipelines,
          },
        },
      );
    },
  };
}

export type PipelineActivities = ReturnType<typeof createPipelineActivities>;
