import useSWR from 'swr';
import { apiRequest, fetchData } from '../../../lib/api-client';
import type { RateAnswer } from '../../../../../common/contract/consolidation';
import { postCsv } from './csv';
import { consolidationPath, revalidateConsolidation } from './overview';

export type Rate = RateAnswer;

export interface RateInput {
  currency: string;
  period: string;
  closing: string;
  average: string;
  /** direct: presentation currency per unit ("USD per EUR"); indirect: units per presentation currency. Absent: not said. */
  quote?: 'direct' | 'indirect';
}

export interface HistoricalRateInput {
  entity: string;
  groupAccount: string;
  rate: string;
}

export const ratesKey = (orgId: string) => [`${consolidationPath(orgId)}/rates`, 'Failed to load the exchange rates'] as const;

/** GET /consolidation/{orgId}/rates: closing and average rates to the presentation currency per currency and month. */
export function useRates(orgId: string) {
  const swr = useSWR(orgId ? ratesKey(orgId) : null, fetchData<{ rates: Rate[] }>);
  return { ...swr, rates: swr.data?.rates ?? [] };
}

/** PUT /consolidation/{orgId}/rates */
export async function saveRates(orgId: string, rates: RateInput[]): Promise<string> {
  const res = await apiRequest<{ saved: number }>('PUT', `${consolidationPath(orgId)}/rates`, { rates }, 'Rates not saved');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Rates saved';
}

/** POST /consolidation/{orgId}/rates/import (text/csv: currency, period, closing, average). */
export async function importRates(orgId: string, csv: string): Promise<string> {
  const res = await postCsv<{ saved: number }>(`${consolidationPath(orgId)}/rates/import`, csv, 'Rates not imported');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Rates imported';
}

export interface HistoricalRate {
  entity: string;
  group_account: string;
  rate: string;
  updated_by: string | null;
  updated_at: string | null;
}
export const historicalRatesKey = (orgId: string) => [`${consolidationPath(orgId)}/historical-rates`, 'Failed to load the historical rates'] as const;

/** GET /consolidation/{orgId}/historical-rates */
export function useHistoricalRates(orgId: string) {
  const swr = useSWR(orgId ? historicalRatesKey(orgId) : null, fetchData<{ rates: HistoricalRate[] }>);
  return { ...swr, rates: swr.data?.rates ?? [] };
}

/** PUT /consolidation/{orgId}/historical-rates (equity accounts, per entity). */
export async function saveHistoricalRates(orgId: string, rates: HistoricalRateInput[]): Promise<string> {
  const res = await apiRequest('PUT', `${consolidationPath(orgId)}/historical-rates`, { rates }, 'Historical rates not saved');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Historical rates saved';
}
