import useSWR from 'swr';
import { fetchData } from '../../lib/api-client';
import type { OverviewAnswer } from '../../../../common/contract/consolidation';

/**
 * The months the organization's consolidation has figures for (status ok), oldest first: what
 * the reports offer. The same answer (and SWR key) as the consolidation screens' overview.
 */
export function useConsolidatedPeriods(orgId: string) {
  const swr = useSWR(orgId ? [`/consolidation/${encodeURIComponent(orgId)}`, 'Failed to load the consolidation'] : null, fetchData<OverviewAnswer>);
  const periods = (swr.data?.checks ?? []).filter((c) => c.status === 'ok').map((c) => c.period).sort();
  return { ...swr, periods: swr.data ? periods : undefined };
}
