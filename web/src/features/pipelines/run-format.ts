import { formatDuration } from '../../lib/format';
import type { PipelineOfRun, PipelineRun } from './api/pipelines';

/** Run times with their zone; statuses and counts in words: the app's one set of helpers. */
export { formatDateTimeWithZone as formatTimeWithZone, plural, timeZoneName } from '../../lib/format';

/** How long a run or one of its pipelines took; '' while it has not ended. */
export function runDuration(r: Pick<PipelineRun, 'startedAt' | 'endedAt' | 'durationMs'> | PipelineOfRun): string {
  if ('durationMs' in r && r.durationMs !== undefined && r.durationMs !== null) return formatDuration(r.durationMs);
  if (r.startedAt && r.endedAt) return formatDuration(new Date(r.endedAt).getTime() - new Date(r.startedAt).getTime());
  return '';
}

/** Who started a run: their name, else their email ('' for a scheduled run). */
export const startedByName = (r: Pick<PipelineRun, 'startedBy'>) => r.startedBy?.name || r.startedBy?.email || '';

const STATUS_LABELS: Record<string, string> = { no_files: 'no files', up_to_date: 'up to date' };
/** A status or table action in words as the pipelines screens show them, lower case ("no files", "up to date"). */
export const statusLabel = (s: string | null | undefined) => (s ? (STATUS_LABELS[s] ?? s.replace(/_/g, ' ')) : '');
