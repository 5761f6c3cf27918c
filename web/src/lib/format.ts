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

/** The viewer's time zone as a short name ("UTC", "GMT+2", "PST"); '' where Intl cannot say. */
export function timeZoneName(at: Date = new Date()): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? '';
  } catch {
    return '';
  }
}

/** YYYY-MM-DD HH:mm and the time zone it is in ("2026-11-23 18:22 UTC"): a time read without guessing. */
export function formatDateTimeWithZone(value: string | number | Date | null | undefined): string {
  const text = formatDateTime(value);
  if (!text || value === null || value === undefined || value === '') return text;
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return text;
  const zone = timeZoneName(d);
  return zone ? `${text} ${zone}` : text;
}

/** A phone number for reading: 10 digits as (555) 123-4567, 11 starting with 1 as +1 (555) 123-4567; anything else as typed. */
export function formatPhone(value: string | null | undefined): string {
  if (!value) return '';
  const digits = value.replace(/\D/g, '');
  const ten = digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
  if (ten.length !== 10) return value.trim();
  const text = `(${ten.slice(0, 3)}) ${ten.slice(3, 6)}-${ten.slice(6)}`;
  return ten === digits ? text : `+1 ${text}`;
}

/** A role as a reader says it: "Admin", "User". */
export function formatRole(role: string | null | undefined): string {
  if (!role) return '';
  return role.charAt(0).toUpperCase() + role.slice(1).toLowerCase();
}

/** "1 run", "3 runs", "0 users". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A page size control's label: "10 per page". */
export const perPage = (n: number) => `${n} per page`;

/** A system status in words, first letter capitalised: not_started -> "Not started", up_to_date -> "Up to date". */
export function statusLabel(status: string | null | undefined): string {
  if (!status) return '';
  const words = status
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A camelCase or snake_case key as a label: factoryImportedAt -> "Factory imported at". */
export const keyLabel = statusLabel;

/** What onboarding records about an organization, in the order and words a reader expects. */
export const ONBOARDING_LABELS: Record<string, string> = {
  containerName: 'Container',
  databaseName: 'Database',
  dataFactoryName: 'Data factory',
  factoryName: 'Data factory',
  dataFactoryCreatedAt: 'Data factory created',
  factoryImportedAt: 'Template imported',
  factoryTemplateVersion: 'Template version',
  pipelines: 'Pipelines',
  storageAccountName: 'Storage account',
  sqlServerName: 'SQL server',
  sqlAdminUsername: 'SQL admin username',
  location: 'Location',
};

const ISO_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A stored value for reading: ISO times as date, time and zone; lists joined; the rest as text. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(formatValue).join(', ');
  if (value instanceof Date || (typeof value === 'string' && ISO_TIME_RE.test(value))) return formatDateTimeWithZone(value as string | Date);
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

/**
 * A record's known keys as label and value, in the labels' order; keys without a label (ids,
 * encrypted secrets, internals) and empty values stay off screen.
 */
export function labelledDetails(record: Record<string, unknown> | null | undefined, labels: Record<string, string>): { key: string; label: string; value: string }[] {
  if (!record) return [];
  return Object.entries(labels)
    .filter(([key]) => record[key] !== undefined && record[key] !== null && record[key] !== '')
    .map(([key, label]) => ({ key, label, value: formatValue(record[key]) }));
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
