import useSWR from 'swr';
import { fetchData, query } from '../../../lib/api-client';
import type { CtbRowAnswer, DrilldownAnswer, MismatchAnswer, ResultsAnswer } from '../../../../../common/contract/consolidation';
import { consolidationPath } from './overview';

export type Results = ResultsAnswer;
export type CtbRow = CtbRowAnswer;
export type Mismatch = MismatchAnswer;
export type Drilldown = DrilldownAnswer;

export const resultsKey = (orgId: string, period: string) => [`${consolidationPath(orgId)}/results${query({ period })}`, 'Failed to load the consolidated trial balance'] as const;

/** GET /consolidation/{orgId}/results?period=: one period's consolidated trial balance, checks and mismatches. */
export function useResults(orgId: string, period: string | undefined) {
  const swr = useSWR(orgId && period ? resultsKey(orgId, period) : null, fetchData<ResultsAnswer>, { keepPreviousData: true });
  return { ...swr, results: swr.data };
}

export interface DrilldownTarget {
  period: string;
  groupAccount: string;
  entity?: string;
}

export const drilldownKey = (orgId: string, t: DrilldownTarget) =>
  [`${consolidationPath(orgId)}/drilldown${query({ period: t.period, groupAccount: t.groupAccount, entity: t.entity })}`, 'Failed to load the drill-down'] as const;

/** GET /consolidation/{orgId}/drilldown: the translated lines and entries behind one figure. */
export function useDrilldown(orgId: string, target: DrilldownTarget | undefined) {
  const swr = useSWR(orgId && target ? drilldownKey(orgId, target) : null, fetchData<DrilldownAnswer>);
  return { ...swr, drilldown: swr.data };
}
