// A connection's timeline on Apps (issue 30): its syncs (rows, months, duration, what started
// them), failures in the source's words, rate limits waited out, authorization renewals,
// "reconnect needed", warnings, pauses and resumes, bursts of change notifications and retry
// policy changes; newest first, filtered by kind, paged. Read from the timeline api.
import { Callout, HTMLSelect, HTMLTable, NonIdealState, Spinner, Tag, type Intent } from '@blueprintjs/core';
import { useState } from 'react';
import { Pager } from '../../components/Pager';
import { formatDateTimeWithZone, formatDuration } from '../../lib/format';
import { CONNECTION_EVENT_KINDS, useConnectionTimeline, type ConnectionEventKind, type TimelineEvent } from './api/timeline';

export const EVENT_LABELS: Record<ConnectionEventKind, string> = {
  sync: 'Sync',
  failure: 'Failure',
  'rate-limited': 'Rate limit waited out',
  'token-refresh': 'Authorization renewed',
  'reconnect-needed': 'Reconnect needed',
  warning: 'Warning',
  paused: 'Paused',
  resumed: 'Resumed',
  'webhook-burst': 'Burst of change notifications',
  'retry-policy': 'Retry policy changed',
};
const EVENT_INTENTS: Record<ConnectionEventKind, Intent> = {
  sync: 'success',
  failure: 'danger',
  'rate-limited': 'none',
  'token-refresh': 'none',
  'reconnect-needed': 'warning',
  warning: 'warning',
  paused: 'warning',
  resumed: 'primary',
  'webhook-burst': 'none',
  'retry-policy': 'none',
};
/** What started a sync, as the user knows it. */
export const TRIGGER_LABELS: Record<string, string> = { schedule: 'Scheduled', manual: 'Sync now', webhook: 'Change notification' };

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The entry's facts beside its message: what started it, rows, months, how long it took; a pause's run of failures. */
export function eventFacts(e: Pick<TimelineEvent, 'kind' | 'details'>): string {
  const d = e.details ?? {};
  const facts: string[] = [];
  if (typeof d.trigger === 'string') facts.push(TRIGGER_LABELS[d.trigger] ?? d.trigger);
  const rows = num(d.rows);
  const months = num(d.months);
  const duration = num(d.durationMs);
  // A failure's rows and months are what it had read when it failed: only shown when there were some.
  if (rows !== null && (e.kind !== 'failure' || rows > 0)) facts.push(count(rows, 'row'));
  if (months !== null && (e.kind !== 'failure' || months > 0)) facts.push(count(months, 'month'));
  if (duration !== null) facts.push(`took ${formatDuration(duration) || '0s'}`);
  const notifications = num(d.notifications) ?? num(d.count);
  if (e.kind === 'webhook-burst' && notifications !== null) facts.push(count(notifications, 'notification'));
  const waited = num(d.waitedSeconds) ?? num(d.retryAfterSeconds);
  if (e.kind === 'rate-limited' && waited !== null) facts.push(`waited ${formatDuration(waited * 1000)}`);
  if (e.kind === 'paused') facts.push(d.automatic ? 'automatically' : typeof d.by === 'string' ? `by ${d.by}` : '');
  return facts.filter(Boolean).join(' · ');
}

export function ConnectionTimeline({ provider, accountId }: { provider: string; accountId: string }) {
  const [kind, setKind] = useState<ConnectionEventKind | undefined>();
  const [page, setPage] = useState(1);
  const { data, error, isLoading } = useConnectionTimeline(provider, accountId, kind, page);

  return (
    <div className="connection-timeline">
      <div className="toolbar">
        <HTMLSelect
          aria-label="Show"
          value={kind ?? ''}
          onChange={(e) => {
            setPage(1);
            setKind((e.target.value || undefined) as ConnectionEventKind | undefined);
          }}
        >
          <option value="">Everything</option>
          {CONNECTION_EVENT_KINDS.map((k) => (
            <option key={k} value={k}>
              {EVENT_LABELS[k]}
            </option>
          ))}
        </HTMLSelect>
      </div>
      {error ? (
        <Callout intent="danger">{(error as Error).message}</Callout>
      ) : isLoading && !data ? (
        <Spinner size={20} aria-label="Loading the timeline" />
      ) : !data || data.events.length === 0 ? (
        <NonIdealState icon="timeline-events" title={kind ? `No "${EVENT_LABELS[kind]}" on this connection's timeline` : "Nothing on this connection's timeline yet"} description={kind ? undefined : 'Its syncs, failures, pauses and resumes show here as they happen.'} />
      ) : (
        <>
          <div className="table-scroll">
            <HTMLTable compact striped className="full-width" aria-label="Connection timeline">
              <thead>
                <tr>
                  <th>When</th>
                  <th>What</th>
                  <th>Details</th>
                </tr>
              </thead>
              <tbody>
                {data.events.map((e) => {
                  const facts = eventFacts(e);
                  return (
                    <tr key={e.id}>
                      <td className="nowrap">{formatDateTimeWithZone(e.at)}</td>
                      <td>
                        <Tag minimal intent={EVENT_INTENTS[e.kind] ?? 'none'}>
                          {EVENT_LABELS[e.kind] ?? e.kind}
                        </Tag>
                      </td>
                      <td className="wrap">
                        {e.message}
                        {facts && <div className="muted">{facts}</div>}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </HTMLTable>
          </div>
          <Pager page={data.page} pages={data.pages} summary={count(data.total, 'entry', 'entries')} onPage={setPage} />
        </>
      )}
    </div>
  );
}
