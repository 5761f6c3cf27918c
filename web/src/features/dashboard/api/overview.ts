import useSWR from 'swr';
import { fetchData, query } from '../../../lib/api-client';
import type { OverviewAnswer } from '../../../../../common/contract/reports';

export type { OverviewAnswer, OverviewMonthAnswer } from '../../../../../common/contract/reports';

export const overviewPath = (orgId: string) => `/reports/${encodeURIComponent(orgId)}/overview`;

/** GET /reports/{orgId}/overview: revenue, gross margin, net income and cash by month; contribution by entity (the last answer stays on screen while another range loads). */
export function useDashboardOverview(orgId: string, months = 12) {
  const swr = useSWR(orgId ? [`${overviewPath(orgId)}${query({ months: String(months) })}`, 'Failed to load the overview'] : null, fetchData<OverviewAnswer>, { keepPreviousData: true });
  return { ...swr, overview: swr.data };
}
