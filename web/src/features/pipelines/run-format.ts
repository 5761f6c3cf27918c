import { formatDateTime, formatDuration } from '../../lib/format';
import type { PipelineOfRun, PipelineRun } from './api/pipelines';

/** The viewer's time zone as a short name ("UTC", "GMT+2", "PST"); '' where Intl cannot say. */
export function timeZoneName(at: Date = new Date()): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? '';
  } catch {
    return '';
  }
}

/** YYYY-MM-DD HH:mm followed by the time zone it is in: run times read without guessing. */
export function formatTimeWithZone(value: string | null | undefined): string {
  const text = formatDateTime(value);
  if (!text || !value) return text;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return text;
  const zone = timeZoneName(d);
  return zone ? `${text} ${zone}` : text;
}

/** How long a run or one of its pipelines took; '' while it has not ended. */
export function runDuration(r: Pick<PipelineRun, 'startedAt' | 'endedAt' | 'durationMs'> | PipelineOfRun): string {
  if ('durationMs' in r && r.durationMs !== undefined && r.durationMs !== null) return formatDuration(r.durationMs);
  if (r.startedAt && r.endedAt) return formatDuration(new Date(r.endedAt).getTime() - new Date(r.startedAt).getTime());
  return '';
}

const STATUS_LABELS: Record<string, string> = { no_files: 'no files', up_to_date: 'up to date' };
/** A status or table action in words ("no files", "up to date"). */
export const statusLabel = (s: string | null | undefined) => (s ? (STATUS_LABELS[s] ?? s.replace(/_/g, ' ')) : '');

/** "1 run", "3 runs". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
