import useSWR, { mutate } from 'swr';
import { apiDownload, apiRequest, fetchData } from '../../../lib/api-client';
import type { PackAnswer, PackBodyInput, PackOptionsAnswer, PackSendAnswer } from '../../../../../common/contract/packs';
import { reportsPath } from './reports';

export type { PackAnswer, PackBodyInput, PackOptionsAnswer, PackSendAnswer } from '../../../../../common/contract/packs';

const packsPath = (orgId: string) => `${reportsPath(orgId)}/packs`;

/** GET /reports/{orgId}/packs (refreshed while a send is under way, so its outcome shows). */
export function usePacks(orgId: string) {
  const swr = useSWR(orgId ? [packsPath(orgId), 'Failed to load the report packs'] : null, fetchData<{ packs: PackAnswer[] }>, {
    refreshInterval: (data) => (data?.packs.some((p) => p.lastSend && ['sending', 'retrying'].includes(p.lastSend.status)) ? 2000 : 0),
  });
  return { ...swr, packs: swr.data?.packs };
}

/** GET /reports/{orgId}/packs/options: the statements, custom reports and users a pack may name. */
export function usePackOptions(orgId: string) {
  const swr = useSWR(orgId ? [`${packsPath(orgId)}/options`, 'Failed to load what a pack may hold'] : null, fetchData<PackOptionsAnswer>);
  return { ...swr, options: swr.data };
}

/** GET /reports/{orgId}/packs/{id}/history */
export function usePackHistory(orgId: string, id: string | undefined) {
  const swr = useSWR(orgId && id ? [`${packsPath(orgId)}/${encodeURIComponent(id)}/history`, 'Failed to load the history'] : null, fetchData<{ sends: PackSendAnswer[] }>, {
    refreshInterval: (data) => (data?.sends.some((s) => ['sending', 'retrying'].includes(s.status)) ? 2000 : 0),
  });
  return { ...swr, sends: swr.data?.sends };
}

async function revalidatePacks(orgId: string) {
  const base = packsPath(orgId);
  await mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && key[0].startsWith(base));
}

/** POST (new) or PUT (existing) a pack; answers its id. */
export async function savePack(orgId: string, body: PackBodyInput, id?: string): Promise<string> {
  const res = id ? await apiRequest<{ id: string }>('PUT', `${packsPath(orgId)}/${encodeURIComponent(id)}`, body, 'Pack not saved') : await apiRequest<{ id: string }>('POST', packsPath(orgId), body, 'Pack not saved');
  await revalidatePacks(orgId);
  return res.data?.id ?? id ?? '';
}

export async function deletePack(orgId: string, id: string): Promise<void> {
  await apiRequest('DELETE', `${packsPath(orgId)}/${encodeURIComponent(id)}`, undefined, 'Pack not deleted');
  await revalidatePacks(orgId);
}

export async function sendPack(orgId: string, id: string): Promise<void> {
  await apiRequest('POST', `${packsPath(orgId)}/${encodeURIComponent(id)}/send`, {}, 'Pack not sent');
  await revalidatePacks(orgId);
}

export function downloadPack(orgId: string, pack: PackAnswer, format: 'pdf' | 'xlsx', period: string): Promise<void> {
  const name = `${pack.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'pack'}-${period}.${format}`;
  return apiDownload(`${packsPath(orgId)}/${encodeURIComponent(pack.id)}/${format}`, name, 'Download failed');
}
