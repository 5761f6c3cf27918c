// Azure Data Factory as the organization's data factory: the factory and the template's
// resources through ARM (./azure.ts), wired to the organization's own container and its own
// SQL database login (warehouse/connection.ts); a pipeline run is one Data Factory run,
// created once (its id kept on the run record and in the heartbeat) and polled until it ends.
import { CancelledFailure } from '@temporalio/common';
import type { Config } from '../../common/config';
import { AZURE_FACTORY_NAME } from '../../common/resources';
import { sqlConnectionStringOf } from '../../warehouse/connection';
import { createAzureFactory } from './azure';
import type { AzureDeps } from '../../common/azure-arm';
import { cancelled, findRun, heartbeat, heartbeatRunId, setPipeline, sleep, type OnboardedOrg, type RunPipelineOutput } from './run-context';
import { uploadRecords } from '../../warehouse/records/uploads';
import { trialBalanceScriptForDataFactory, type SchemaSnapshot } from '../../warehouse/transforms/trial-balance';
import type { RunPipelineInput, DataFactory, EnsureFactoryInput, ImportInput } from './types';
import { fail } from '../../common/failures';

/** The pipeline that rebuilds trial_balance takes its script per run (template version 3 on). */
const REBUILD_PIPELINE = 'rebuild-reporting-tables';

/**
 * The organization's saved CSV tables and their columns, from its upload records: the last save
 * to a table is what the table holds (a save replaces it), plus the two columns every load adds.
 */
export async function savedCsvTables(cfg: Config, orgId: string): Promise<SchemaSnapshot> {
  const time = (d: Date | null) => (d ? d.getTime() : -Infinity);
  const uploads = (await uploadRecords(cfg).all(orgId)).filter((u) => u.status === 'saved' && u.tableName != null).sort((a, b) => time(a.savedAt) - time(b.savedAt));
  const tables = new Map<string, string[]>();
  for (const u of uploads) {
    const columns = [...(u.columns ?? []).map((c) => c.name), '_upload_id', '_loaded_at'];
    for (const t of u.tables?.length ? u.tables : [u.tableName!]) tables.set(t, columns);
  }
  return [...tables].map(([name, columns]) => ({ name, columns }));
}

async function runParameters(cfg: Config, org: OnboardedOrg, pipelineName: string): Promise<Record<string, string> | undefined> {
  if (pipelineName !== REBUILD_PIPELINE || (org.onboarding.factoryTemplateVersion ?? 0) < 3) return undefined;
  return { script: trialBalanceScriptForDataFactory(await savedCsvTables(cfg, String(org._id))) };
}

export function createAdfEngine(cfg: Config, azure: AzureDeps = {}): DataFactory {
  const adf = createAzureFactory(cfg, azure);
  return {
    provider: 'azure',

    ensureFactory({ orgId, factoryName, org }: EnsureFactoryInput) {
      return adf.ensureFactory({ orgId, factoryName, location: org.onboarding?.location ?? undefined });
    },

    async importTemplate(template, { orgId, factoryName, containerName, databaseName, org }: ImportInput) {
      if (!AZURE_FACTORY_NAME.test(factoryName)) throw fail.validation(`Invalid data factory name "${factoryName}"`);
      await adf.importTemplate(template, {
        orgId,
        factoryName,
        containerName,
        blobConnectionString: cfg.AZURE_STORAGE_CONNECTION_STRING,
        sqlConnectionString: sqlConnectionStringOf(cfg, org.onboarding ?? undefined, databaseName),
      });
    },

    async runPipeline({ org, runId, pipelineName, startedAt }: RunPipelineInput): Promise<RunPipelineOutput> {
      const factory = org.onboarding.dataFactoryName;
      const orgId = String(org._id);
      const run = await findRun(cfg, orgId, runId);
      // A retried attempt polls the Data Factory run it already created (kept on the record and in
      // the heartbeat details) instead of starting a second one.
      let externalRunId = run?.pipelines.find((p) => p.name === pipelineName)?.externalRunId ?? heartbeatRunId(pipelineName);
      if (!externalRunId) {
        externalRunId = await adf.createRun(factory, pipelineName, await runParameters(cfg, org, pipelineName));
        heartbeat({ pipeline: pipelineName, externalRunId });
        await setPipeline(cfg, orgId, runId, pipelineName, { externalRunId });
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
          await sleep(azure.pollIntervalMs ?? 10_000);
        } catch (e) {
          if (e instanceof CancelledFailure) await adf.cancelRun(factory, externalRunId);
          throw e;
        }
      }
    },
  };
}
