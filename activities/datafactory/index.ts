// Pipeline runs of an organization's data factory: the local engine (./local-engine.ts: the
// installed pipeline's steps run by the worker, transforms on the warehouse) or Azure Data
// Factory (./adf-engine.ts: one Data Factory run per pipeline, created once and polled).
// The run record (common/models/pipeline-run, kept in the organization's database by
// warehouse/records/run-store.ts) is written at each transition and is also the resume point of a
// retried step.
import type { BlobServiceClient } from '@azure/storage-blob';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../common/config';
import type { PipelineRunRecord, PipelineStatus, RunStatus } from '../../common/models/pipeline-run';
import { withRequiredRunStore } from '../../warehouse/records/run-store';
import { createCsvLoader } from '../csv';
import type { LoadCsvBlob } from '../csv/contract';
import { createWarehouse } from '../../warehouse';
import type { Warehouse } from '../../warehouse/types';
import { createAdfEngine } from './adf-engine';
import type { AzureDeps } from '../../common/azure-arm';
import { createLocalEngine } from './local-engine';
import { listContainerFiles } from './local';
import { loadOnboardedOrg, setPipeline, type RunPipelineOutput } from './run-context';
import type { DataFactory } from './types';
import { CONSOLIDATE_PIPELINE } from '../../warehouse/consolidation/run';
import { createConsolidationActivities } from '../warehouse/consolidate';
import { fail } from '../../common/failures';

export type { RunPipelineOutput } from './run-context';
export type { DataFactory } from './types';

export interface PipelineActivityDeps {
  config: Config;
  blobService: BlobServiceClient;
  /** The CSV loader of activities/csv (contract in activities/csv/contract.ts); built from config and blobService when not given. */
  loadCsvBlob?: LoadCsvBlob;
  azure?: AzureDeps;
  /** The providers (activities/index.ts builds them once); built from config when not given (tests). */
  warehouse?: Warehouse;
  dataFactory?: DataFactory;
}

/** The one place the data factory provider is chosen. */
export function createDataFactory(deps: { config: Config; blobService: BlobServiceClient; warehouse: Warehouse; azure?: AzureDeps; loadCsvBlob?: LoadCsvBlob }): DataFactory {
  if (deps.config.PROVIDER === 'azure') return createAdfEngine(deps.config, deps.azure);
  const loadCsvBlob = deps.loadCsvBlob ?? createCsvLoader({ config: deps.config, blobService: deps.blobService, warehouse: deps.warehouse });
  return createLocalEngine({ config: deps.config, blobService: deps.blobService, warehouse: deps.warehouse, loadCsvBlob });
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
export interface FinishPipelineRunInput {
  /** The run's organization, from the workflow's input. */
  orgId: string;
  runId: string;
  status: RunStatus;
  error?: string;
  /** Pipelines never started: skipped (a dependency failed) or cancelled. */
  unstarted?: 'skipped' | 'cancelled';
  /** Each pipeline as the workflow saw it end (status, rows, error): what the record says. */
  outcomes?: { name: string; status: string; rowsMoved: number; error?: string }[];
}

export function createPipelineActivities(deps: PipelineActivityDeps) {
  const { config: cfg, blobService } = deps;
  const dataFactory = deps.dataFactory ?? createDataFactory({ config: cfg, blobService, warehouse: deps.warehouse ?? createWarehouse(cfg, deps.azure), azure: deps.azure, loadCsvBlob: deps.loadCsvBlob });

  const { consolidate } = createConsolidationActivities({ config: cfg });
  /** The consolidation as a pipeline of the run: blocked months are warnings on the run, a refused configuration fails it. */
  async function consolidateStep(orgId: string, runId: string, name: string): Promise<RunPipelineOutput> {
    try {
      const out = await consolidate({ orgId, runId });
      const warnings = out.summary.filter((s) => s.status === 'blocked').map((s) => `${s.period}: ${s.messages.join('; ')}`);
      await setPipeline(cfg, orgId, runId, name, { warnings });
      return { name, status: 'succeeded', rowsMoved: out.rows };
    } catch (e) {
      if (e instanceof ApplicationFailure && e.nonRetryable) return { name, status: 'failed', rowsMoved: 0, error: e.message };
      throw e;
    }
  }

  return {
    /** Creates the run record (idempotent by runId) and counts the container's files. */
    async startPipelineRun(input: StartPipelineRunInput): Promise<StartPipelineRunOutput> {
      const org = await loadOnboardedOrg(input.orgId);
      const files = await listContainerFiles(blobService, org.onboarding.containerName, 1000);
      const pipelines = (org.onboarding.pipelines ?? []).map((p) => ({ name: p.name, dependsOn: [...(p.dependsOn ?? [])] }));
      // Once the organization has set its consolidation up, every run ends with it (a worker step
      // on both providers, beside the Data Factory pipelines, not inside them).
      if (org.consolidationConfiguredAt && !pipelines.some((p) => p.name === CONSOLIDATE_PIPELINE)) {
        pipelines.push({ name: CONSOLIDATE_PIPELINE, dependsOn: pipelines.filter((p) => p.name === 'rebuild-reporting-tables').map((p) => p.name) });
      }
      // Created once (a retried attempt finds it); the file count is the latest attempt's.
      await withRequiredRunStore(cfg, input.orgId, (s) =>
        s.updatePipelineRun(input.runId, (run) => {
          const record: PipelineRunRecord = run ?? {
            organization_id: input.orgId,
            workflowId: input.workflowId,
            runId: input.runId,
            startedAt: new Date(input.startedAt),
            startedBy: input.startedBy ?? {},
            status: 'running',
            rowsMoved: 0,
            pipelines: pipelines.map((p) => ({ name: p.name, status: 'pending', rowsMoved: 0, files: [], tables: [], warnings: [] })),
          };
          record.fileCount = files.length;
          return record;
        }),
      );
      return { pipelines, fileCount: files.length };
    },

    /** Runs one pipeline of the organization's factory; a business failure is an outcome, not a throw. */
    async runFactoryPipeline({ orgId, runId, pipelineName }: RunPipelineInput): Promise<RunPipelineOutput> {
      const org = await loadOnboardedOrg(orgId);
      const startedAt = new Date();
      // A run the workflow already closed (cancelled while this attempt was starting) stays closed.
      await setPipeline(cfg, orgId, runId, pipelineName, { status: 'running', startedAt }, { onlyWhileRunning: true });
      const out = pipelineName === CONSOLIDATE_PIPELINE ? await consolidateStep(orgId, runId, pipelineName) : await dataFactory.runPipeline({ org, runId, pipelineName, startedAt });
      // Rows and error only: the pipeline's status is the workflow's to record (finishPipelineRun),
      // so the record never says "succeeded" for a step the workflow has not seen finish.
      await setPipeline(cfg, orgId, runId, pipelineName, { endedAt: new Date(), rowsMoved: out.rowsMoved, error: out.error ?? null });
      return out;
    },

    /**
     * Closes the run record from the workflow's own outcome: its status, and each pipeline's
     * status, rows and error as the workflow counted them (older histories send no outcomes:
     * then the record's own entries are closed as before).
     */
    async finishPipelineRun({ orgId, runId, status, error, unstarted, outcomes }: FinishPipelineRunInput): Promise<void> {
      if (!orgId) throw fail.validation('Organization ID is missing');
      await withRequiredRunStore(cfg, orgId, (s) =>
        s.updatePipelineRun(runId, (run) => {
          if (!run) throw fail.notFound(`Pipeline run ${runId} not found`);
          const endedAt = run.endedAt ?? new Date();
          const pipelines = run.pipelines.map((p) => {
            const o = outcomes?.find((x) => x.name === p.name);
            if (o) {
              const st = (o.status === 'pending' ? (unstarted ?? 'skipped') : o.status === 'running' ? (status === 'cancelled' ? 'cancelled' : 'failed') : o.status) as PipelineStatus;
              return { ...p, status: st, rowsMoved: o.rowsMoved, error: o.error ?? (st === 'cancelled' ? 'Cancelled' : p.error), endedAt: p.endedAt ?? (p.startedAt ? endedAt : undefined) };
            }
            return { ...p, status: p.status === 'pending' ? (unstarted ?? 'skipped') : p.status === 'running' && status === 'cancelled' ? 'cancelled' : p.status };
          });
          return {
            ...run,
            status,
            endedAt,
            durationMs: endedAt.getTime() - new Date(run.startedAt).getTime(),
            rowsMoved: pipelines.reduce((n, p) => n + (p.rowsMoved ?? 0), 0),
            error: error ?? pipelines.find((p) => p.error)?.error ?? null,
            pipelines,
          };
        }),
      );
    },
  };
}

export type PipelineActivities = ReturnType<typeof createPipelineActivities>;
