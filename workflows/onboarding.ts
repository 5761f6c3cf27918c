// Client onboarding. Deterministic: no I/O here, activities only through proxyActivities.
import { defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { shortCall } from './profiles';

const { ensureContainer, recordOnboardingStep } = proxyActivities<Activities>(shortCall);

export type StepStatus = 'pending' | 'running' | 'done' | 'failed';
export interface StepProgress {
  name: string;
  status: StepStatus;
  result?: Record<string, string>;
  error?: string;
}
export interface OnboardingProgress {
  currentStep?: string;
  steps: StepProgress[];
}

export const progressQuery = defineQuery<OnboardingProgress>('progress');

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
