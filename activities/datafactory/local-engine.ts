// The local pipeline engine: what "data factory" means on the embedded provider. The factory is
// the organization's record; "import" checks the database is there; a pipeline runs its
// installed steps in order: the file step loads the container's CSVs (the ones load-plan.ts
// picks) through the CSV loader, resuming after the files an earlier attempt already loaded; a
// transform runs on the warehouse (off the activity's thread).
import type { BlobServiceClient } from '@azure/storage-blob';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Config } from '../../common/config';
import { LOCAL_FACTORY_NAME } from '../../common/resources';
import { Organization } from '../../common/models/organization';
import { uploadRecords } from '../../warehouse/records/uploads';
import type { LoadCsvBlob } from '../csv/contract';
import type { Warehouse } from '../../warehouse/types';
import { planCsvLoads, type TableOutcome } from './load-plan';
import { listContainerFiles } from './local';
import { cancellationSignal, cancelled, findRun, heartbeat, setPipeline, type OnboardedOrg, type RunPipelineOutput } from './run-context';
import type { RunPipelineInput, DataFactory, EnsureFactoryInput, ImportInput } from './types';
import { fail } from '../../common/failures';
import { withOrgDatabase } from '../../warehouse/connection';
import { CONNECTORS } from '../../common/connectors';
import { changedMonths, monthFingerprints } from '../changes/fingerprints';
import type { SyncProvider } from '../../common/contract/connections';
import type { ConnectorAccountDoc } from '../../common/models/connector-account';
import type { PipelineOfRunRecord } from '../../common/models/pipeline-run';
import { connectionName } from '../operations';
import { sql } from 'kysely';


export interface LocalEngineDeps {
  config: Config;
  blobService: BlobServiceClient;
  warehouse: Warehouse;
  loadCsvBlob: LoadCsvBlob;
}

/**
 * The rebuild's sources by name, as a finance user knows them: a connector's table is each of the
 * organization's connections of that ledger ("QuickBooks: Harbour Books LLC"), a saved table its name.
 */
export async function namedSources(orgId: string, labels: string[]): Promise<NonNullable<PipelineOfRunRecord['sources']>> {
  const out: NonNullable<PipelineOfRunRecord['sources']> = [];
  for (const label of labels) {
    if (label.startsWith('csv:')) {
      out.push({ kind: 'table', name: label.slice(4) });
      continue;
    }
    const c = CONNECTORS[label as SyncProvider];
    if (!c) continue;
    const accounts = await c.model.find({ organization_id: orgId }).lean<ConnectorAccountDoc[]>();
    for (const a of accounts) out.push({ kind: 'connection', name: connectionName(c.key, a) });
    if (!accounts.length) out.push({ kind: 'connection', name: c.displayName });
  }
  return out;
}

export function createLocalEngine({ config, blobService, warehouse, loadCsvBlob }: LocalEngineDeps): DataFactory {
  /**
   * "Load every uploaded CSV": the files load-plan.ts picks (never a file being saved or saved
   * as a table; per table the newest uploaded file, only when newer than what the table holds),
   * one loadCsvBlob each, skipping those this run already loaded (a retried attempt resumes).
   */
  async function loadCsvFiles(org: OnboardedOrg, runId: string, pipelineName: string): Promise<RunPipelineOutput> {
    const orgId = String(org._id);
    const { containerName, databaseName } = org.onboarding;
    const run = await findRun(config, orgId, runId);
    const entry = run?.pipelines.find((p) => p.name === pipelineName);
    // A retried attempt (worker killed, transient failure) resumes after the files already done.
    const files = [...(entry?.files ?? [])].map((f) => ({ blobName: f.blobName, tableName: f.tableName, rows: f.rows ?? 0, status: f.status, error: f.error ?? undefined }));
    const done = new Set(files.map((f) => f.blobName));
    const blobs = await listContainerFiles(blobService, containerName);
    const uploads = (await uploadRecords(config).all(orgId)).filter((u) => u.containerName === containerName).map((u) => ({
      id: String(u._id),
      blobName: u.blobName,
      status: u.status,
      tableName: u.tableName,
      tables: u.tables,
      createdAt: u.createdAt,
    }));
    const plan = await planCsvLoads(
      blobs.filter((b) => !done.has(b.name)),
      uploads,
      (table) => warehouse.tableHolding({ orgId, databaseName }, table),
    );
    // A worker killed after a file loaded but before the run recorded it leaves its table holding
    // this run's load: the retry counts that file as this run's (with its rows), neither loading
    // it again nor leaving its rows out of the run's figures.
    const startedAt = run?.startedAt ? new Date(run.startedAt).getTime() : NaN;
    for (const u of [...plan.unchanged]) {
      if (u.action !== 'up_to_date' || !u.blobName || done.has(u.blobName) || !Number.isFinite(startedAt)) continue;
      const held = await warehouse.tableHolding({ orgId, databaseName }, u.tableName);
      if (held.kind !== 'csv' || !held.loadedAt || Date.parse(held.loadedAt) < startedAt) continue;
      const counted = await withOrgDatabase(config, { orgId, databaseName }, ({ db }) => db.selectFrom(u.tableName).select(sql<number>`count(*)`.as('n')).executeTakeFirst());
      files.push({ blobName: u.blobName, tableName: u.tableName, rows: Number(counted?.n ?? 0), status: 'loaded', error: undefined });
      plan.unchanged.splice(plan.unchanged.indexOf(u), 1);
    }
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
      await setPipeline(config, orgId, runId, pipelineName, { files, rowsMoved, tables: tables() });
      heartbeat({ pipeline: pipelineName, filesDone: files.length });
    }
    await setPipeline(config, orgId, runId, pipelineName, { tables: tables() });
    const failed = files.filter((f) => f.status === 'failed');
    const rowsMoved = files.reduce((n, f) => n + f.rows, 0);
    return failed.length
      ? { name: pipelineName, status: 'failed', rowsMoved, error: failed.map((f) => `${f.blobName}: ${f.error}`).join('; ') }
      : { name: pipelineName, status: 'succeeded', rowsMoved };
  }

  return {
    provider: 'local',

    async ensureFactory({ orgId, factoryName, org }: EnsureFactoryInput) {
      if (!LOCAL_FACTORY_NAME.test(factoryName)) throw fail.validation(`Invalid data factory name "${factoryName}"`);
      // The local engine's factory is the organization's record: created when first named.
      const created = org.onboarding?.dataFactoryName !== factoryName;
      if (created) await Organization.updateOne({ _id: orgId }, { $set: { 'onboarding.dataFactoryCreatedAt': new Date() } });
      return { created };
    },

    async importTemplate(_template, { orgId, databaseName }: ImportInput) {
      if (!(await warehouse.databaseExists({ orgId, databaseName }))) throw fail.notFound(`Database "${databaseName}" does not exist`);
    },

    async runPipeline({ org, runId, pipelineName }: RunPipelineInput): Promise<RunPipelineOutput> {
      const installed = org.onboarding.pipelines?.find((p) => p.name === pipelineName);
      if (!installed) throw fail.notFound(`Pipeline ${pipelineName} is not installed`);
      let rowsMoved = 0;
      for (const step of installed.activities) {
        if (step.type === 'loadCsvFiles') {
          const res = await loadCsvFiles(org, runId, pipelineName);
          rowsMoved += res.rowsMoved;
          if (res.status === 'failed') return { ...res, rowsMoved };
        } else if (step.type === 'rebuildTrialBalance') {
          heartbeat({ pipeline: pipelineName, step: step.name });
          try {
            const ref = { orgId: String(org._id), databaseName: org.onboarding.databaseName };
            // Each month's figures before and after: the months this rebuild changed, for "what changed".
            const before = await monthFingerprints(config, ref);
            // On its own thread: seconds of SQLite work on a big warehouse must not stop heartbeats.
            const res = await warehouse.rebuildTrialBalance(ref, { onBeat: () => heartbeat({ pipeline: pipelineName, step: step.name }), signal: cancellationSignal() });
            rowsMoved += res.rows;
            const monthsChanged = changedMonths(before, await monthFingerprints(config, ref));
            // Source tables it could not read were left out: said on the run, the run goes on.
            await setPipeline(config, String(org._id), runId, pipelineName, { warnings: res.warnings ?? [], sources: await namedSources(String(org._id), res.sources ?? []), monthsChanged });
          } catch (e) {
            if (e instanceof ApplicationFailure && e.nonRetryable) return { name: pipelineName, status: 'failed', rowsMoved, error: e.message };
            throw e;
          }
        } else {
          return { name: pipelineName, status: 'failed', rowsMoved, error: `Unknown step type ${step.type}` };
        }
      }
      return { name: pipelineName, status: 'succeeded', rowsMoved };
    },
  };
}
