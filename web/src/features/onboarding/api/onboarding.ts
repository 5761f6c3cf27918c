import useSWR, { mutate } from 'swr';
import { apiRequest, fetchData } from '../../../lib/api-client';

export interface OnboardingStep {
  name: string;
  status: 'pending' | 'running' | 'done' | 'failed' | string;
  result?: Record<string, unknown> | null;
  error?: string | null;
  /** While a step's activity is retrying: its attempt and last failure. */
  attempt?: number;
  lastFailure?: string | null;
}

export interface OnboardingStatus {
  status?: string;
  workflowId?: string;
  runId?: string;
  currentStep?: string;
  steps: OnboardingStep[];
  temporalUrl?: string;
  temporalUiUrl?: string;
}

export interface OnboardingInput {
  containerName: string;
  databaseName: string;
  dataFactoryName: string;
  storageAccountName?: string;
  sqlServerName?: string;
  sqlAdminUsername?: string;
  sqlAdminPassword?: string;
  location?: string;
}

/** Each step's label and the spec's client message when it fails (section 8). */
export const STEPS: { name: string; label: string; failed: string }[] = [
  { name: 'createContainer', label: 'Create storage container', failed: 'Failed to create container' },
  { name: 'createDatabase', label: 'Create database', failed: 'Failed to create Database' },
  { name: 'createDataFactory', label: 'Create data factory', failed: 'Failed to create Data Factory' },
  { name: 'importDataFactory', label: 'Import data factory', failed: 'Failed to import data factory' },
];

export const statusKey = (orgId: string) => [`/onboard/status/${encodeURIComponent(orgId)}`, 'Failed to load the onboarding status'] as const;

const active = (s?: OnboardingStatus) => Boolean(s && (s.status === 'running' || s.steps?.some((x) => x.status === 'running')));

/** The onboarding workflow's progress query, polled every second while it runs. */
export function useOnboardingStatus(orgId: string) {
  return useSWR(orgId ? statusKey(orgId) : null, fetchData<OnboardingStatus | null>, {
    refreshInterval: (d) => (active(d ?? undefined) ? 1000 : 0),
  });
}

/**
 * Starts (or resumes, from the failed step) the onboarding workflow `onboard-<orgId>`:
 * container, database, data factory, import, in order.
 */
export async function startOnboarding(orgId: string, input: OnboardingInput): Promise<string> {
  if (!orgId) throw new Error('Organization ID is missing');
  const body: Record<string, string> = { orgID: orgId };
  for (const [k, v] of Object.entries(input)) if (typeof v === 'string' && v.trim()) body[k] = v.trim();
  const res = await apiRequest('POST', '/onboard/start', body, 'Failed to start onboarding');
  await mutate(statusKey(orgId));
  return res.message ?? 'Onboarding started';
}
