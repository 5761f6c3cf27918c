// The data factory seam's contract: the local pipeline engine or Azure Data Factory, chosen
// once in createDataFactory (./index.ts): exist, take the template, run one installed pipeline.
// A transform step (the trial_balance rebuild) is defined once in warehouse/transforms: the
// local engine runs it on the warehouse, Azure Data Factory runs its compiled T-SQL.
import type { FactoryTemplate } from './template';
import type { OnboardedOrg, RunPipelineOutput } from './run-context';
import type { OrganizationDoc } from '../../common/models/organization';
import type { Config } from '../../common/config';

export interface EnsureFactoryInput {
  orgId: string;
  factoryName: string;
  /** The organization's record as it stands (its location, the factory it already has). */
  org: OrganizationDoc;
}

export interface ImportInput {
  orgId: string;
  factoryName: string;
  containerName: string;
  databaseName: string;
  org: OrganizationDoc;
}

export interface RunPipelineInput {
  org: OnboardedOrg;
  runId: string;
  pipelineName: string;
  startedAt: Date;
}

export interface DataFactory {
  readonly provider: Config['PROVIDER'];
  ensureFactory(input: EnsureFactoryInput): Promise<{ created: boolean }>;
  /** Installs the template's resources (a repeated import converges); refuses a database that is not there. */
  importTemplate(template: FactoryTemplate, input: ImportInput): Promise<void>;
  /** Runs one installed pipeline to its end; a business failure is an outcome, not a throw. */
  runPipeline(input: RunPipelineInput): Promise<RunPipelineOutput>;
}
