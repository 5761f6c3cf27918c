// Azure Data Factory provider (@azure/arm-datafactory): the factory, its linked services,
// datasets and pipelines from templates/datafactory, and pipeline runs created and polled.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../common/config';
import { AZURE_FACTORY_NAME } from '../../common/resources';
import { armStatus, azureCredential, classifyArmError, managementClientOptions, type AzureDeps } from '../../common/azure-arm';
import { trialBalanceScriptForDataFactory } from '../../warehouse/transforms/trial-balance';
import { fillPlaceholders, type FactoryTemplate } from './template';
import { fail } from '../../common/failures';

const OWNER_TAG = 'ledgerflowOrganizationId';

export interface ImportTemplateInput {
  orgId: string;
  factoryName: string;
  containerName: string;
  blobConnectionString: string;
  sqlConnectionString: string;
}

export interface AzureRunState {
  status: 'Queued' | 'InProgress' | 'Succeeded' | 'Failed' | 'Canceling' | 'Cancelled' | string;
  message?: string;
  durationMs?: number;
}

export function createAzureFactory(cfg: Config, azure: AzureDeps) {
  const rg = () => {
    if (!cfg.AZURE_RESOURCE_GROUP || !cfg.AZURE_SUBSCRIPTION_ID) throw fail.validation('AZURE_SUBSCRIPTION_ID and AZURE_RESOURCE_GROUP must be configured');
    return cfg.AZURE_RESOURCE_GROUP;
  };
  // Loaded on first use, like @azure/arm-sql: only azure mode pays for the SDK's models.
  const client = async () => new (await import('@azure/arm-datafactory')).DataFactoryManagementClient(await azureCredential(azure), cfg.AZURE_SUBSCRIPTION_ID ?? '', managementClientOptions(cfg, azure));

  return {
    /** Finds the organization's factory or creates it; a factory of that name owned by another organization is refused. */
    async ensureFactory({ orgId, factoryName, location }: { orgId: string; factoryName: string; location?: string }): Promise<{ created: boolean }> {
      if (!AZURE_FACTORY_NAME.test(factoryName)) throw fail.validation(`Invalid data factory name "${factoryName}"`);
      const adf = await client();
      try {
        const existing = await adf.factories.get(rg(), factoryName);
        const owner = existing.tags?.[OWNER_TAG];
        if (owner && owner !== orgId) throw fail.validation(`Data factory "${factoryName}" belongs to another organization`);
        return { created: false };
      } catch (e) {
        if (e instanceof ApplicationFailure) throw e;
        if (armStatus(e) !== 404) classifyArmError(e, `Azure refused to read data factory "${factoryName}"`);
      }
      try {
        await adf.factories.createOrUpdate(rg(), factoryName, { location: location || cfg.AZURE_LOCATION, identity: { type: 'SystemAssigned' }, tags: { [OWNER_TAG]: orgId } });
      } catch (e) {
        classifyArmError(e, `Azure refused to create data factory "${factoryName}"`);
      }
      return { created: true };
    },

    /** PUTs linked services, datasets and pipelines (an upsert each: a repeated import converges). */
    async importTemplate(template: FactoryTemplate, input: ImportTemplateInput): Promise<{ pipelines: string[] }> {
      const adf = await client();
      // The rebuild pipeline's script is the trial_balance transform compiled to T-SQL (warehouse/transforms).
      const vars = { containerName: input.containerName, blobConnectionString: input.blobConnectionString, sqlConnectionString: input.sqlConnectionString, trialBalanceScript: trialBalanceScriptForDataFactory() };
      const g = rg();
      try {
        await adf.factories.get(g, input.factoryName);
      } catch (e) {
        if (armStatus(e) === 404) throw fail.notFound(`Data factory "${input.factoryName}" does not exist: create it first`);
        classifyArmError(e, `Azure refused to read data factory "${input.factoryName}"`);
      }
      try {
        for (const ls of template.linkedServices) {
          await adf.linkedServices.createOrUpdate(g, input.factoryName, ls.name, { properties: fillPlaceholders(ls.properties, vars) as never });
        }
        for (const ds of template.datasets) {
          await adf.datasets.createOrUpdate(g, input.factoryName, ds.name, { properties: fillPlaceholders(ds.properties, vars) as never });
        }
        for (const p of template.pipelines) {
          await adf.pipelines.createOrUpdate(g, input.factoryName, p.name, fillPlaceholders(p.properties, vars) as never);
        }
      } catch (e) {
        classifyArmError(e, `Azure refused the data factory template`);
      }
      return { pipelines: template.pipelines.map((p) => p.name) };
    },

    async createRun(factoryName: string, pipelineName: string, parameters?: Record<string, string>): Promise<string> {
      const adf = await client();
      try {
        const res = await adf.pipelines.createRun(rg(), factoryName, pipelineName, parameters ? { parameters } : undefined);
        return res.runId;
      } catch (e) {
        return classifyArmError(e, `Azure refused to run pipeline "${pipelineName}"`);
      }
    },

    async getRun(factoryName: string, runId: string): Promise<AzureRunState> {
      const adf = await client();
      try {
        const r = await adf.pipelineRuns.get(rg(), factoryName, runId);
        return { status: r.status ?? 'InProgress', message: r.message, durationMs: r.durationInMs };
      } catch (e) {
        return classifyArmError(e, `Azure refused to read pipeline run ${runId}`);
      }
    },

    async cancelRun(factoryName: string, runId: string): Promise<void> {
      const adf = await client();
      await adf.pipelineRuns.cancel(rg(), factoryName, runId, { isRecursive: true });
    },

    /** Rows the run's Copy activities moved (ADF reports rowsCopied in each activity's output). */
    async rowsCopied(factoryName: string, runId: string, since: Date): Promise<number> {
      const adf = await client();
      const res = await adf.activityRuns.queryByPipelineRun(rg(), factoryName, runId, { lastUpdatedAfter: new Date(since.getTime() - 60_000), lastUpdatedBefore: new Date(Date.now() + 60_000) });
      let rows = 0;
      for (const a of res.value ?? []) {
        const out = a.output as { rowsCopied?: number } | undefined;
        if (a.activityType === 'Copy' && typeof out?.rowsCopied === 'number') rows += out.rowsCopied;
      }
      return rows;
    },
  };
}

export type AzureFactory = ReturnType<typeof createAzureFactory>;
