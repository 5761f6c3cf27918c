import { formatDuration } from '../../lib/format';
import { monthsText } from '../../../../common/contract/months';
import type { PipelineOfRun, PipelineRun } from './api/run-types';

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

/** Each installed pipeline as a finance user knows it: what it is called and what it does. */
const PIPELINE_WORDS: Record<string, { title: string; purpose: string }> = {
  'load-uploaded-csvs': { title: 'Load uploaded files', purpose: 'Reads each new or changed uploaded file into its table' },
  'rebuild-reporting-tables': { title: 'Rebuild the trial balance', purpose: 'Builds the trial balance from your connected ledgers and saved tables' },
  consolidate: { title: 'Consolidate', purpose: "Consolidates the group's months" },
};

/** A pipeline's name in words ("Load uploaded files"); one not known here, its name as a sentence. */
export function pipelineTitle(name: string): string {
  const known = PIPELINE_WORDS[name]?.title;
  if (known) return known;
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What a pipeline does, in words (the installed description when it is not one of ours). */
export const pipelinePurpose = (name: string, description?: string) => PIPELINE_WORDS[name]?.purpose ?? description ?? '';

/** A count of rows as finance writes it: "3,583 rows". */
export const rowsText = (n: number | null | undefined) => `${(n ?? 0).toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}`;

/** "a", "a and b", "a, b and c". */
const listText = (items: string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

/**
 * What one pipeline of a run read and from where, in a sentence: the files it loaded (by name),
 * or the connections (by name) and saved tables the trial balance was rebuilt from. '' when
 * there is nothing to say yet.
 */
export function whatItRead(p: Pick<PipelineOfRun, 'name' | 'status' | 'rowsMoved' | 'tables'> & { sources?: PipelineOfRun['sources'] }): string {
  const tables = p.tables ?? [];
  const loaded = tables.filter((t) => t.action === 'loaded');
  if (loaded.length) {
    const rows = loaded.reduce((n, t) => n + (t.rows ?? 0), 0);
    const files = loaded.map((t) => t.blobName ?? t.tableName);
    return `Read ${rowsText(rows)} from ${files.length <= 3 ? listText(files) : `${files.length} uploaded files`}`;
  }
  if (p.name === 'load-uploaded-csvs' && p.status === 'succeeded') return tables.some((t) => t.action === 'up_to_date') ? 'Nothing new to read: every uploaded file is already loaded' : 'No uploaded file to read';
  const sources = p.sources ?? [];
  if (sources.length) {
    const connections = sources.filter((s) => s.kind === 'connection').map((s) => s.name);
    const saved = sources.filter((s) => s.kind === 'table').map((s) => s.name);
    const from = [...connections, ...(saved.length ? [`the saved ${saved.length === 1 ? 'table' : 'tables'} ${listText(saved)}`] : [])];
    return `Built the trial balance (${rowsText(p.rowsMoved)}) from ${listText(from)}`;
  }
  if (p.name === 'rebuild-reporting-tables' && p.status === 'succeeded') return `Built the trial balance (${rowsText(p.rowsMoved)}) from every source`;
  return '';
}

/**
 * What a run (or one of its pipelines) changed, where it knows: "Changed Sep-Oct 2026", "No
 * month's figures changed"; '' when no step says (a run on Azure, one recorded before, one not
 * finished).
 */
export function monthsChangedText(pipelines: Pick<PipelineOfRun, 'monthsChanged'>[] | undefined): string {
  const known = (pipelines ?? []).filter((p) => Array.isArray(p.monthsChanged));
  if (!known.length) return '';
  const months = monthsText(known.flatMap((p) => p.monthsChanged ?? []));
  return months ? `Changed ${months}` : "No month's figures changed";
}
