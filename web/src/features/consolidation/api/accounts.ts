import { consolidationPath, revalidateConsolidation } from './overview';
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
