import useSWR, { mutate } from 'swr';
import { apiRequest, fetchData } from '../../../lib/api-client';
import type { AmountBasis, Method, OverviewAnswer } from '../../../../../common/contract/consolidation';

// The consolidation's answers as the api gives them: types inferred from the shared contract's schemas.
export type { ConsolidationSettingsAnswer as Settings, EntityAnswer as Entity, GroupAccountAnswer as GroupAccount, LockAnswer as Lock, PeriodCheckAnswer as PeriodCheck } from '../../../../../common/contract/consolidation';
export type Overview = OverviewAnswer;

/** Every consolidation route of one organization starts here. */
export const consolidationPath = (orgId: string) => `/consolidation/${encodeURIComponent(orgId)}`;

export const overviewKey = (orgId: string) => [consolidationPath(orgId), 'Failed to load the consolidation'] as const;

/** GET /consolidation/{orgId}: settings, entities, the group chart, locks and each period's checks. */
export function useOverview(orgId: string) {
  const swr = useSWR(orgId ? overviewKey(orgId) : null, fetchData<OverviewAnswer>);
  return { ...swr, overview: swr.data };
}

/** Asks every consolidation answer of the organization again (after a change or a run). */
export function revalidateConsolidation(orgId: string) {
  const base = consolidationPath(orgId);
  return mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && (key[0] === base || key[0].startsWith(`${base}/`) || key[0].startsWith(`${base}?`)));
}

export interface SettingsInput {
  presentationCurrency: string;
  method: Method;
  toleranceAmount: string;
  tolerancePct: string;
  fiscalYearStartMonth: number;
}

/** PUT /consolidation/{orgId}/settings */
export async function saveSettings(orgId: string, input: SettingsInput): Promise<string> {
  const res = await apiRequest('PUT', `${consolidationPath(orgId)}/settings`, input, 'Settings not saved');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Consolidation settings saved';
}

export interface EntityInput {
  name: string;
  currency: string | null;
  ownership: string;
  parent: string | null;
  included: boolean;
  basis: AmountBasis;
  /** Remeasured (ASC 830-10) instead of translated. */
  remeasure: boolean;
  /** How `ownership` reads: a percent (75) or a fraction (0.75); absent, a value of at most 1 is refused as ambiguous. */
  ownershipUnit?: 'percent' | 'fraction';
  /** YYYY-MM: the ownership holds from that month on (the months before keep theirs). */
  ownershipFrom?: string;
}

/** PUT /consolidation/{orgId}/entities/{entity} */
export async function saveEntity(orgId: string, entity: string, input: EntityInput): Promise<string> {
  const res = await apiRequest('PUT', `${consolidationPath(orgId)}/entities/${encodeURIComponent(entity)}`, input, 'Entity not saved');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Entity saved';
}
