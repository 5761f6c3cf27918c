// Client onboarding. Deterministic: no I/O here, activities only through proxyActivities.
import { defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import { PROGRESS_QUERY } from '../common/temporal';
import type { Activities } from '../activities';
import { shortCall } from './profiles';
import { failureMessage } from '../common/failures';

const { ensureContainer, recordOnboardingStep, ensureDatabase, ensureDataFactory, importDataFactory } = proxyActivities<Activities>(shortCall);

export type StepStatus = 'pending' | 'running' | 'done' | 'failed';
export interface StepProgress {
  name: string;
  status: StepStatus;
  result?: Record<string, string>;
  error?: string;
  /** true when the step found its resource already there (a repeated or resumed onboarding). */
  existed?: boolean;
}
export interface OnboardingProgress {
  currentStep?: string;
  steps: StepProgress[];
}

export const progressQuery = defineQuery<OnboardingProgress>(PROGRESS_QUERY);

export interface CreateContainerInput {
  orgId: string;
  containerName: string;
}
export interface CreateContainerOutput {
  orgID: string;
  containerName: string;
  created: boolean;
}

/** Onboarding step 1: the organization's storage container (found, not failed, when it exists). */
export async function createContainerWorkflow(input: CreateContainerInput): Promise<CreateContainerOutput> {
  const progress: OnboardingProgress = { steps: [{ name: 'createContainer', status: 'pending' }] };
  setHandler(progressQuery, () => progress);
  const step = progress.steps[0]!;
  progress.currentStep = step.name;
  step.status = 'running';
  try {
    const res = await ensureContainer({ containerName: input.containerName });
    await recordOnboardingStep({ orgId: input.orgId, fields: { containerName: res.containerName } });
    step.status = 'done';
    step.result = { containerName: res.containerName };
    return { orgID: input.orgId, containerName: res.containerName, created: res.created };
  } catch (e) {
    step.status = 'failed';
    step.error = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    throw e;
  }
}

/** Runs one step, keeping its progress entry (running -> done / failed) current for the query. */
async function runStep<T>(progress: OnboardingProgress, step: StepProgress, fn: () => Promise<{ result: Record<string, string>; existed?: boolean; out: T }>): Promise<T> {
  progress.currentStep = step.name;
  step.status = 'running';
  step.error = undefined;
  try {
    const { result, existed, out } = await fn();
    step.status = 'done';
    step.result = result;
    step.existed = existed;
    return out;
  } catch (e) {
    step.status = 'failed';
    step.error = failureMessage(e);
    throw e;
  }
}

export const ONBOARDING_STEPS = ['createContainer', 'createDatabase', 'createDataFactory', 'importDataFactory'] as const;

export interface CreateDatabaseInput {
  orgId: string;
  databaseName: string;
}
export interface CreateDatabaseOutput {
  orgID: string;
  databaseName: string;
  created: boolean;
}
export interface CreateDataFactoryInput {
  orgId: string;
  dataFactoryName: string;
}
export interface CreateDataFactoryOutput {
  orgID: string;
  dataFactoryName: string;
  created: boolean;
}
export interface ImportDataFactoryWorkflowInput {
  orgId: string;
  factoryName: string;
  databaseName: string;
  containerName: string;
}
export interface ImportDataFactoryWorkflowOutput {
  orgID: string;
  factoryName: string;
  databaseName: string;
  containerName: string;
  pipelines: string[];
}

async function databaseStep(progress: OnboardingProgress, step: StepProgress, input: CreateDatabaseInput): Promise<CreateDatabaseOutput> {
  return runStep(progress, step, async () => {
    const res = await ensureDatabase({ orgId: input.orgId, databaseName: input.databaseName });
    await recordOnboardingStep({ orgId: input.orgId, fields: { databaseName: res.databaseName } });
    return { result: { databaseName: res.databaseName }, existed: !res.created, out: { orgID: input.orgId, databaseName: res.databaseName, created: res.created } };
  });
}

async function dataFactoryStep(progress: OnboardingProgress, step: StepProgress, input: CreateDataFactoryInput): Promise<CreateDataFactoryOutput> {
  return runStep(progress, step, async () => {
    const res = await ensureDataFactory({ orgId: input.orgId, dataFactoryName: input.dataFactoryName });
    await recordOnboardingStep({ orgId: input.orgId, fields: { dataFactoryName: res.dataFactoryName } });
    return { result: { dataFactoryName: res.dataFactoryName }, existed: !res.created, out: { orgID: input.orgId, dataFactoryName: res.dataFactoryName, created: res.created } };
  });
}

async function importStep(progress: OnboardingProgress, step: StepProgress, input: ImportDataFactoryWorkflowInput): Promise<ImportDataFactoryWorkflowOutput> {
  return runStep(progress, step, async () => {
    const res = await importDataFactory({ orgId: input.orgId, factoryName: input.factoryName, databaseName: input.databaseName, containerName: input.containerName });
    return {
      result: { factoryName: res.factoryName, pipelines: res.pipelines.join(', ') },
      out: { orgID: input.orgId, factoryName: res.factoryName, databaseName: input.databaseName, containerName: input.containerName, pipelines: res.pipelines },
    };
  });
}

function singleStep(name: string): { progress: OnboardingProgress; step: StepProgress } {
  const progress: OnboardingProgress = { steps: [{ name, status: 'pending' }] };
  setHandler(progressQuery, () => progress);
  return { progress, step: progress.steps[0]! };
}

/** Onboarding step 2: the organization's SQL database. */
export async function createDatabaseWorkflow(input: CreateDatabaseInput): Promise<CreateDatabaseOutput> {
  const { progress, step } = singleStep('createDatabase');
  return databaseStep(progress, step, input);
}

/** Onboarding step 3: the organization's data factory. */
export async function createDataFactoryWorkflow(input: CreateDataFactoryInput): Promise<CreateDataFactoryOutput> {
  const { progress, step } = singleStep('createDataFactory');
  return dataFactoryStep(progress, step, input);
}

/** Onboarding step 4: the factory template's linked services, datasets and pipelines. */
export async function importDataFactoryWorkflow(input: ImportDataFactoryWorkflowInput): Promise<ImportDataFactoryWorkflowOutput> {
  const { progress, step } = singleStep('importDataFactory');
  return importStep(progress, step, input);
}

export interface OnboardOrganizationInput {
  orgId: string;
  containerName: string;
  databaseName: string;
  dataFactoryName: string;
}
export interface OnboardOrganizationOutput {
  orgID: string;
  containerName: string;
  databaseName: string;
  dataFactoryName: string;
  pipelines: string[];
}

/**
 * The whole onboarding (workflow id onboard-<orgId>): the four steps in order. Each step finds
 * what an earlier (failed or repeated) run already created, so a re-run continues where the
 * last one stopped.
 */
export async function onboardOrganizationWorkflow(input: OnboardOrganizationInput): Promise<OnboardOrganizationOutput> {
  const progress: OnboardingProgress = { steps: ONBOARDING_STEPS.map((name) => ({ name, status: 'pending' as const })) };
  setHandler(progressQuery, () => progress);
  const [container, database, factory, imported] = progress.steps as [StepProgress, StepProgress, StepProgress, StepProgress];
  const { orgId } = input;
  await runStep(progress, container, async () => {
    const res = await ensureContainer({ containerName: input.containerName });
    await recordOnboardingStep({ orgId, fields: { containerName: res.containerName } });
    return { result: { orgID: orgId, containerName: res.containerName }, existed: !res.created, out: res };
  });
  await databaseStep(progress, database, { orgId, databaseName: input.databaseName });
  await dataFactoryStep(progress, factory, { orgId, dataFactoryName: input.dataFactoryName });
  const res = await importStep(progress, imported, { orgId, factoryName: input.dataFactoryName, databaseName: input.databaseName, containerName: input.containerName });
  progress.currentStep = undefined;
  return { orgID: orgId, containerName: input.containerName, databaseName: input.databaseName, dataFactoryName: input.dataFactoryName, pipelines: res.pipelines };
}
