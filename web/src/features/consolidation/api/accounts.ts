import { apiRequest } from '../../../lib/api-client';
import { consolidationPath, revalidateConsolidation, type GroupAccount } from './overview';
import { downloadCsv, postCsv } from './csv';

// The group chart itself arrives with the overview (useOverview: data.accounts).

/** GET /consolidation/{orgId}/accounts/export: the chart as group-chart.csv. */
export function exportAccounts(orgId: string): Promise<void> {
  return downloadCsv(`${consolidationPath(orgId)}/accounts/export`, 'group-chart.csv', 'Failed to export the group chart');
}

/** POST /consolidation/{orgId}/accounts/import (text/csv: code, name, type, line, role): replaces the chart. */
export async function importAccounts(orgId: string, csv: string): Promise<string> {
  const res = await postCsv<{ accounts: number }>(`${consolidationPath(orgId)}/accounts/import`, csv, 'Group chart not imported');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Group chart imported';
}

/** PUT /consolidation/{orgId}/accounts: the whole chart (the api refuses a chart that loses a role or an account a mapping uses). */
export async function saveChart(orgId: string, accounts: GroupAccount[]): Promise<string> {
  const res = await apiRequest('PUT', `${consolidationPath(orgId)}/accounts`, { accounts }, 'Group chart not saved');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Group chart saved';
}
