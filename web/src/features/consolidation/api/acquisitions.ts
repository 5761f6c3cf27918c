import useSWR from 'swr';
import { apiRequest, fetchData } from '../../../lib/api-client';
import type { AcquisitionsAnswer, NciMeasurement } from '../../../../../common/contract/consolidation';
import { consolidationPath, revalidateConsolidation } from './overview';

export type { AcquisitionAnswer as Acquisition } from '../../../../../common/contract/consolidation';

export const acquisitionsKey = (orgId: string) => [`${consolidationPath(orgId)}/acquisitions`, 'Failed to load the acquisitions'] as const;

/** GET /consolidation/{orgId}/acquisitions: each acquired entity's set-up and the effective-dated ownership changes. */
export function useAcquisitions(orgId: string) {
  const swr = useSWR(orgId ? acquisitionsKey(orgId) : null, fetchData<AcquisitionsAnswer>);
  return { ...swr, acquisitions: swr.data };
}

export interface AdjustmentInput {
  groupAccount: string;
  amount: string;
  usefulLifeMonths: number | null;
  amortizationAccount: string | null;
}
export interface AcquisitionInput {
  date: string;
  consideration: string;
  considerationCurrency: string;
  nciMeasurement: NciMeasurement;
  nciFairValue: string | null;
  adjustments: AdjustmentInput[];
}

/** PUT /consolidation/{orgId}/acquisitions/{entity} */
export async function saveAcquisition(orgId: string, entity: string, input: AcquisitionInput): Promise<string> {
  const res = await apiRequest('PUT', `${consolidationPath(orgId)}/acquisitions/${encodeURIComponent(entity)}`, input, 'Acquisition not saved');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Acquisition saved';
}

/** DELETE /consolidation/{orgId}/acquisitions/{entity} */
export async function deleteAcquisition(orgId: string, entity: string): Promise<string> {
  const res = await apiRequest('DELETE', `${consolidationPath(orgId)}/acquisitions/${encodeURIComponent(entity)}`, undefined, 'Acquisition not removed');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Acquisition removed';
}
