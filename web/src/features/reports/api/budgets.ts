import useSWR, { mutate } from 'swr';
import { apiRequest, apiText, fetchData, query } from '../../../lib/api-client';
import { reportsPath } from './reports';

/** A budget as the list gives it. */
export interface BudgetAnswer {
  id: string;
  name: string;
  version: number;
  lineCount: number;
  updatedBy: string | null;
  updatedAt: string | null;
}

const budgetsKey = (orgId: string) => [`${reportsPath(orgId)}/budgets`, 'Failed to load the budgets'] as const;

/** GET /reports/{orgId}/budgets */
export function useBudgets(orgId: string) {
  const swr = useSWR(orgId ? budgetsKey(orgId) : null, fetchData<{ budgets: BudgetAnswer[] }>);
  return { ...swr, budgets: swr.data?.budgets };
}

/** Every answer of the organization's reports and overview read again (a budget changed what they show). */
async function revalidate(orgId: string) {
  const base = reportsPath(orgId);
  await mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && key[0].startsWith(base));
}

/** POST /reports/{orgId}/budgets/import?name=: a CSV saved as the budget of that name (a new version when it exists). */
export async function uploadBudget(orgId: string, name: string, csv: string): Promise<{ id: string; version: number; lines: number }> {
  const res = await apiText<{ id: string; version: number; lines: number }>('POST', `${reportsPath(orgId)}/budgets/import${query({ name })}`, csv, 'text/csv', 'Budget not saved');
  await revalidate(orgId);
  return res.data!;
}

/** DELETE /reports/{orgId}/budgets/{id} */
export async function deleteBudget(orgId: string, id: string): Promise<void> {
  await apiRequest('DELETE', `${reportsPath(orgId)}/budgets/${encodeURIComponent(id)}`, undefined, 'Budget not deleted');
  await revalidate(orgId);
}
