import useSWR, { mutate } from 'swr';
import { apiDownload, apiRequest, fetchData, query } from '../../../lib/api-client';
import type { DrilldownAnswer, FlowDrilldownAnswer, Layout, ReportAnswer, StoredLayoutAnswer } from '../../../../../common/contract/reports';

export type { DrilldownAnswer, FlowDrilldownAnswer, Layout, LayoutLine, ReportAnswer, ReportRowAnswer, StoredLayoutAnswer } from '../../../../../common/contract/reports';

export const reportsPath = (orgId: string) => `/reports/${encodeURIComponent(orgId)}`;

/** What a report shows: a built-in statement or a custom layout, and the query every report takes. */
export interface ReportChoice {
  /** "statement:profit-and-loss" or "custom:<id>". */
  report: string;
  period: string;
  range: string;
  /** Comma list among entities, eliminations, nci, consolidated (ignored with `compare`). */
  columns: string;
  compare: string;
  /** A budget's id: actual, budget, variance and variance % (the profit and loss and custom reports only). */
  budget?: string;
}

function reportUrl(orgId: string, c: ReportChoice, suffix = '', extra: Record<string, string> = {}): string {
  const [kind, name] = c.report.split(':');
  const base = kind === 'custom' ? `${reportsPath(orgId)}/custom/${encodeURIComponent(name!)}${suffix || '/figures'}` : `${reportsPath(orgId)}/statements/${encodeURIComponent(name!)}${suffix}`;
  const budget = c.budget && (kind === 'custom' || name === 'profit-and-loss') ? c.budget : '';
  return `${base}${query({ period: c.period, range: c.range, ...(budget ? { budget } : c.compare ? { compare: c.compare } : { columns: c.columns }), ...extra })}`;
}

/** GET /reports/{orgId}/statements/{statement} or /custom/{id}/figures */
export function useReport(orgId: string, c: ReportChoice | undefined) {
  const swr = useSWR(orgId && c?.period ? [reportUrl(orgId, c), 'Failed to load the report'] : null, fetchData<ReportAnswer>, { keepPreviousData: true });
  return { ...swr, report: swr.data };
}

/** Downloads the report as XLSX or CSV. */
export function exportReport(orgId: string, c: ReportChoice, format: 'xlsx' | 'csv', filename: string): Promise<void> {
  return apiDownload(reportUrl(orgId, c, '/export', { format }), filename, 'Export failed');
}

export interface DrillTarget {
  period: string;
  range: string;
  groupAccount: string;
  entity?: string;
  /** net for the trial balance (debit positive), else the statements' display signs. */
  signs?: 'display' | 'net';
}

/** GET /reports/{orgId}/drilldown */
export function useReportDrilldown(orgId: string, t: DrillTarget | undefined) {
  const swr = useSWR(orgId && t ? [`${reportsPath(orgId)}/drilldown${query({ period: t.period, range: t.range, groupAccount: t.groupAccount, entity: t.entity, signs: t.signs })}`, 'Failed to load the drill-down'] : null, fetchData<DrilldownAnswer>);
  return { ...swr, drilldown: swr.data };
}

/** A figure of comprehensive income, changes in equity or the cash flow: its statement's query, the row's drill key and the value column. */
export interface FlowDrillTarget {
  statement: string;
  period: string;
  range: string;
  /** As the report was asked: a comparison, or its columns. */
  compare?: string;
  columns?: string;
  line: string;
  column: string;
}

/** GET /reports/{orgId}/drilldown/{statement} */
export function useFlowDrilldown(orgId: string, t: FlowDrillTarget | undefined) {
  const url = t && `${reportsPath(orgId)}/drilldown/${encodeURIComponent(t.statement)}${query({ period: t.period, range: t.range, ...(t.compare ? { compare: t.compare } : { columns: t.columns }), line: t.line, column: t.column })}`;
  const swr = useSWR(orgId && url ? [url, 'Failed to load the drill-down'] : null, fetchData<FlowDrilldownAnswer>);
  return { ...swr, drilldown: swr.data };
}

const layoutsKey = (orgId: string) => [`${reportsPath(orgId)}/custom`, 'Failed to load the custom reports'] as const;

/** GET /reports/{orgId}/custom */
export function useLayouts(orgId: string) {
  const swr = useSWR(orgId ? layoutsKey(orgId) : null, fetchData<{ reports: StoredLayoutAnswer[] }>);
  return { ...swr, layouts: swr.data?.reports };
}

async function revalidateReports(orgId: string) {
  const base = reportsPath(orgId);
  await mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && key[0].startsWith(base));
}

/** POST (new) or PUT (existing) a layout; answers its id. */
export async function saveLayout(orgId: string, layout: Layout, id?: string): Promise<string> {
  const res = id
    ? await apiRequest<{ id: string }>('PUT', `${reportsPath(orgId)}/custom/${encodeURIComponent(id)}`, layout, 'Report not saved')
    : await apiRequest<{ id: string }>('POST', `${reportsPath(orgId)}/custom`, layout, 'Report not saved');
  await revalidateReports(orgId);
  return res.data?.id ?? id ?? '';
}

export async function deleteLayout(orgId: string, id: string): Promise<void> {
  await apiRequest('DELETE', `${reportsPath(orgId)}/custom/${encodeURIComponent(id)}`, undefined, 'Report not deleted');
  await revalidateReports(orgId);
}
