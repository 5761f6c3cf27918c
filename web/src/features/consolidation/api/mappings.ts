import useSWR from 'swr';
import { apiRequest, fetchData, query } from '../../../lib/api-client';
import { PAGE_SIZE } from '../../../../../common/constants';
import type { IcCategory, MappingRowAnswer, MappingsPageAnswer } from '../../../../../common/contract/consolidation';
import { downloadCsv, postCsv } from './csv';
import { consolidationPath, revalidateConsolidation } from './overview';

export { PAGE_SIZE };
export type MappingRow = MappingRowAnswer;

export interface MappingFilter {
  entity?: string;
  unmapped?: boolean;
}

export interface MappingInput {
  entity: string;
  sourceAccount: string;
  groupAccount: string;
  icCounterparty: string | null;
  icCategory: IcCategory | null;
}

export const mappingsKey = (orgId: string, f: MappingFilter, page: number, pageSize = PAGE_SIZE) =>
  [`${consolidationPath(orgId)}/mappings${query({ entity: f.entity, unmapped: f.unmapped ? 'true' : undefined, page, pageSize })}`, 'Failed to load the mappings'] as const;

/** GET /consolidation/{orgId}/mappings: one page of source accounts with their mapping (and a suggestion when unmapped). */
export function useMappings(orgId: string, filter: MappingFilter, page: number) {
  const swr = useSWR(orgId ? mappingsKey(orgId, filter, page) : null, fetchData<MappingsPageAnswer>, { keepPreviousData: true });
  return { ...swr, mappings: swr.data?.mappings ?? [], total: swr.data?.total ?? 0, unmapped: swr.data?.unmapped ?? 0, pages: swr.data?.pages ?? 1, pageSize: swr.data?.pageSize ?? PAGE_SIZE };
}

const ALL_PAGE_SIZE = 500;
export const intercompanyMappingsKey = (orgId: string) => [`${consolidationPath(orgId)}/mappings${query({ intercompany: 'true', pageSize: ALL_PAGE_SIZE })}`, 'Failed to load the mappings'] as const;

/** Every page of GET /consolidation/{orgId}/mappings?intercompany=true (500 a page, the api's most). */
async function fetchAllPages([path, fallback]: readonly [string, string]): Promise<MappingRow[]> {
  const rows: MappingRow[] = [];
  for (let page = 1; ; page++) {
    const data = await fetchData<MappingsPageAnswer>([`${path}&page=${page}`, fallback]);
    rows.push(...data.mappings);
    if (page >= data.pages) return rows;
  }
}

/** The accounts marked intercompany (a counterparty and a category): the api filters them. */
export function useIntercompanyMappings(orgId: string) {
  const swr = useSWR(orgId ? intercompanyMappingsKey(orgId) : null, fetchAllPages);
  return { ...swr, mappings: swr.data ?? [] };
}

/** PUT /consolidation/{orgId}/mappings */
export async function saveMappings(orgId: string, mappings: MappingInput[]): Promise<string> {
  const res = await apiRequest<{ saved: number }>('PUT', `${consolidationPath(orgId)}/mappings`, { mappings }, 'Mappings not saved');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Mappings saved';
}

/**
 * POST /consolidation/{orgId}/mappings/accept-suggestions (of one entity, or all): only the
 * confident suggestions are taken; the answer says how many unmapped accounts are left to review.
 */
export async function acceptSuggestions(orgId: string, entity?: string): Promise<{ message: string; left: number }> {
  const res = await apiRequest<{ saved: number; left: number; suggested: number }>('POST', `${consolidationPath(orgId)}/mappings/accept-suggestions`, entity ? { entity } : {}, 'Suggestions not accepted');
  await revalidateConsolidation(orgId);
  return { message: res.message ?? 'Suggestions accepted', left: res.data?.left ?? 0 };
}

/** GET /consolidation/{orgId}/mappings/export: mappings.csv. */
export function exportMappings(orgId: string): Promise<void> {
  return downloadCsv(`${consolidationPath(orgId)}/mappings/export`, 'mappings.csv', 'Failed to export the mappings');
}

/** POST /consolidation/{orgId}/mappings/import (text/csv, the export's columns). */
export async function importMappings(orgId: string, csv: string): Promise<string> {
  const res = await postCsv<{ saved: number }>(`${consolidationPath(orgId)}/mappings/import`, csv, 'Mappings not imported');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Mappings imported';
}
