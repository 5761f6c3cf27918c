import type { Dashboard } from './session';

/** Dates as YYYY-MM-DD (spec section 9); empty for a missing or invalid value. */
export function formatDate(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return typeof value === 'string' ? value : '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** YYYY-MM-DD HH:mm, for run start/end times where the hour matters. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  const day = formatDate(value);
  if (!day || value === null || value === undefined || value === '') return day;
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return day;
  return `${day} ${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export const DASHBOARDS_FAILED = 'Failed to load dashboards. Please try again.';

/**
 * Dashboards arrive as a list of { name, url } or as an escaped JSON string of one
 * (spec section 3). Throws DASHBOARDS_FAILED on invalid JSON or a malformed item.
 */
export function parseDashboards(raw: unknown): Dashboard[] {
  let value: unknown = raw;
  for (let i = 0; i < 3 && typeof value === 'string'; i++) {
    if (value.trim() === '') return [];
    try {
      value = JSON.parse(value);
    } catch {
      throw new Error(DASHBOARDS_FAILED);
    }
  }
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(DASHBOARDS_FAILED);
  return value.map((item) => {
    const d = item as Record<string, unknown>;
    const name = d?.name ?? d?.dashboardName;
    const url = d?.url ?? d?.dashboardUrl;
    if (typeof name !== 'string' || typeof url !== 'string') throw new Error(DASHBOARDS_FAILED);
    return { name, url };
  });
}

/** Title from the path, words capitalised (spec section 2); the home page gets its own. */
export const PRODUCT_NAME = 'LedgerFlow';
const NAMED: Record<string, string> = { 'about-us': 'About', faq: 'FAQ', 'org-onboarding': 'Org - Onboarding' };
export function titleForPath(pathname: string): string {
  const first = pathname.split('/').filter(Boolean)[0];
  if (!first) return `${PRODUCT_NAME} Homepage`;
  return NAMED[first] ?? first.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}
