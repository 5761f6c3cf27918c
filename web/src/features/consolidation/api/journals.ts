import useSWR from 'swr';
import { apiRequest, fetchData } from '../../../lib/api-client';
import type { JournalAnswer, JournalKind, JournalLevel, JournalListAnswer, JournalPrefillAnswer } from '../../../../../common/contract/journals';
import { downloadCsv, postCsv } from './csv';
import { consolidationPath, revalidateConsolidation } from './overview';

export type Journal = JournalAnswer;
export type JournalPrefill = JournalPrefillAnswer;

export interface JournalLineInput {
  account: string;
  counterparty: string | null;
  debit: string;
  credit: string;
  memo: string | null;
}
export interface JournalInput {
  reference: string;
  period: string;
  level: JournalLevel;
  entity: string | null;
  kind: JournalKind;
  recurringTo: string | null;
  memo: string | null;
  origin?: string | null;
  lines: JournalLineInput[];
}

const path = (orgId: string) => `${consolidationPath(orgId)}/journals`;
export const journalsKey = (orgId: string) => [path(orgId), 'Failed to load the journals'] as const;

/** GET /consolidation/{orgId}/journals: every journal with its lines, and whether posting needs another user's approval. */
export function useJournals(orgId: string) {
  const swr = useSWR(orgId ? journalsKey(orgId) : null, fetchData<JournalListAnswer>);
  return { ...swr, journals: swr.data?.journals ?? [], approvalRequired: swr.data?.approvalRequired ?? false };
}

async function act<T>(orgId: string, method: string, sub: string, body: unknown, fallback: string) {
  const res = await apiRequest<T>(method, `${path(orgId)}${sub}`, body, fallback);
  await revalidateConsolidation(orgId);
  return res;
}

/** POST /consolidation/{orgId}/journals: saved as a draft. */
export async function createJournal(orgId: string, input: JournalInput): Promise<Journal> {
  return (await act<Journal>(orgId, 'POST', '', input, 'Journal not saved')).data as Journal;
}
/** POST .../journals/{id}/submit: posted, or waiting for another user's approval. */
export async function submitJournal(orgId: string, id: string): Promise<string> {
  return (await act(orgId, 'POST', `/${encodeURIComponent(id)}/submit`, {}, 'Journal not submitted')).message ?? 'Journal submitted';
}
export async function approveJournal(orgId: string, id: string): Promise<string> {
  return (await act(orgId, 'POST', `/${encodeURIComponent(id)}/approve`, {}, 'Journal not approved')).message ?? 'Journal approved';
}
export async function rejectJournal(orgId: string, id: string): Promise<string> {
  return (await act(orgId, 'POST', `/${encodeURIComponent(id)}/reject`, {}, 'Journal not rejected')).message ?? 'Journal sent back to draft';
}
export async function reverseJournal(orgId: string, id: string): Promise<string> {
  return (await act(orgId, 'POST', `/${encodeURIComponent(id)}/reverse`, {}, 'Journal not reversed')).message ?? 'Journal reversed';
}
export async function deleteJournal(orgId: string, id: string): Promise<string> {
  return (await act(orgId, 'DELETE', `/${encodeURIComponent(id)}`, undefined, 'Journal not deleted')).message ?? 'Journal deleted';
}
/** POST .../journals/import (text/csv, one row per line): saved as drafts, all or none. */
export async function importJournals(orgId: string, csv: string): Promise<string> {
  const res = await postCsv(`${path(orgId)}/import`, csv, 'Journals not imported');
  await revalidateConsolidation(orgId);
  return res.message ?? 'Journals imported';
}
export function exportJournals(orgId: string): Promise<void> {
  return downloadCsv(`${path(orgId)}/export`, 'journals.csv', 'Journals not exported');
}
/** GET .../journals/prefill: the mismatch report's "book an adjustment" draft (not saved). */
export async function fetchPrefill(orgId: string, q: { period: string; entityA: string; entityB: string; category: string }): Promise<JournalPrefill> {
  const qs = new URLSearchParams(q).toString();
  return (await apiRequest<JournalPrefill>('GET', `${path(orgId)}/prefill?${qs}`, undefined, 'The adjustment could not be pre-filled')).data as JournalPrefill;
}
