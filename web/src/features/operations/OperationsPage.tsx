// Operations (admins): every organization's connections, the workflows failing or retrying now,
// onboardings in progress and blocked consolidations, live (the api pushes the data's version as
// server-sent events, or, while that stream is down, the page asks for it every few seconds; the
// lists are read again only when it moves). Each row links to its organization and, for admins,
// to the Temporal UI.
import { Button, Callout, HTMLSelect, HTMLTable, InputGroup, NonIdealState, Spinner, Tag, type Intent } from '@blueprintjs/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { paths } from '../../app/paths';
import { Pager } from '../../components/Pager';
import { toast } from '../../components/toaster';
import { formatDateTimeWithZone, plural } from '../../lib/format';
import { OPS_STATES, resumeConnection, useOperations, type OpsConnection, type OpsFilter, type OpsState } from './api/operations';

export const STATE_LABELS: Record<OpsState, string> = { active: 'Active', syncing: 'Syncing', failing: 'Failing', reconnect_needed: 'Reconnect needed', paused: 'Paused', inactive: 'Inactive' };
const STATE_INTENTS: Record<OpsState, Intent> = { active: 'success', syncing: 'primary', failing: 'danger', reconnect_needed: 'warning', paused: 'warning', inactive: 'none' };
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const monthName = (p: string) => (/^\d{4}-\d{2}$/.test(p) ? `${MONTHS[Number(p.slice(5, 7)) - 1]} ${p.slice(0, 4)}` : p);
const orgLink = (name: string) => `${paths.organizations}?name=${encodeURIComponent(name)}`;

function stateText(c: OpsConnection): string {
  if (c.state === 'failing' && c.failingSince) return `Failing since ${formatDateTimeWithZone(c.failingSince)} (${plural(c.consecutiveFailures, 'sync')})`;
  if (c.state === 'paused' && c.pausedAt) return `Paused ${formatDateTimeWithZone(c.pausedAt)}`;
  return STATE_LABELS[c.state];
}

function Resume({ c }: { c: OpsConnection }) {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      small
      intent="primary"
      loading={busy}
      text="Resume"
      onClick={() => {
        setBusy(true);
        resumeConnection(c)
          .then((m) => toast(m, 'success'))
          .catch((e: Error) => toast(e.message, 'danger'))
          .finally(() => setBusy(false));
      }}
    />
  );
}

export default function OperationsPage() {
  const [filter, setFilter] = useState<OpsFilter>({});
  const [text, setText] = useState('');
  const [page, setPage] = useState(1);
  const { data, live, error, isLoading } = useOperations(filter, page);
  const counts = data?.connections.counts;

  return (
    <div className="page operations-page">
      <h2>Operations</h2>
      <p className="muted">
        Every organization at once. This page updates by itself when something changes.{' '}
        <Tag minimal round intent={live ? 'success' : 'none'} data-testid="ops-live">
          {live ? 'Live' : 'Checking every few seconds'}
        </Tag>
      </p>
      {error && <Callout intent="danger">{(error as Error).message}</Callout>}
      {isLoading && !data && <Spinner aria-label="Loading operations" />}
      {data && (
        <>
          <section aria-labelledby="ops-connections">
            <h3 id="ops-connections">Connections</h3>
            <div className="toolbar">
              <HTMLSelect
                aria-label="State"
                value={filter.state ?? ''}
                onChange={(e) => {
                  setPage(1);
                  setFilter((f) => ({ ...f, state: (e.target.value || undefined) as OpsState | undefined }));
                }}
              >
                <option value="">All states</option>
                {OPS_STATES.map((s) => (
                  <option key={s} value={s}>
                    {STATE_LABELS[s]} ({counts?.[s] ?? 0})
                  </option>
                ))}
              </HTMLSelect>
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  setPage(1);
                  setFilter((f) => ({ ...f, q: text.trim() || undefined }));
                }}
              >
                <InputGroup aria-label="Organization or connection" placeholder="Organization or connection" value={text} onChange={(e) => setText(e.target.value)} />
              </form>
            </div>
            {data.connections.rows.length === 0 ? (
              <NonIdealState icon="link" title={filter.state || filter.q ? 'No connection matches these filters' : 'No organization has a connection yet'} />
            ) : (
              <HTMLTable striped className="full-width" aria-label="Connections">
                <thead>
                  <tr>
                    <th>Organization</th>
                    <th>Connection</th>
                    <th>State</th>
                    <th>Up to date as of</th>
                    <th>Last error</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {data.connections.rows.map((c) => (
                    <tr key={`${c.provider}:${c.accountId}`}>
                      <td>
                        <Link to={orgLink(c.organizationName)}>{c.organizationName}</Link>
                      </td>
                      <td>{c.name}</td>
                      <td>
                        <Tag minimal intent={STATE_INTENTS[c.state]}>
                          {stateText(c)}
                        </Tag>
                      </td>
                      <td>{c.changeAt ? formatDateTimeWithZone(c.changeAt) : 'Not synced yet'}</td>
                      <td className="wrap">{c.state === 'paused' ? c.pauseReason : c.lastError ?? ''}</td>
                      <td>{(c.state === 'paused' || c.state === 'inactive') && <Resume c={c} />}</td>
                    </tr>
                  ))}
                </tbody>
              </HTMLTable>
            )}
            <Pager page={data.connections.page} pages={data.connections.pages} summary={plural(data.connections.total, 'connection')} onPage={setPage} />
          </section>

          <section aria-labelledby="ops-workflows">
            <h3 id="ops-workflows">Work failing or retrying</h3>
            {data.workflows.length === 0 ? (
              <NonIdealState icon="tick" title="Nothing is failing or retrying" />
            ) : (
              <HTMLTable striped className="full-width" aria-label="Work failing or retrying">
                <thead>
                  <tr>
                    <th>Organization</th>
                    <th>What</th>
                    <th>Status</th>
                    <th>Last failure</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {data.workflows.map((w) => (
                    <tr key={`${w.workflowId}:${w.runId}`}>
                      <td>
                        <Link to={orgLink(w.organizationName)}>{w.organizationName}</Link>
                      </td>
                      <td>{w.what}</td>
                      <td>
                        <Tag minimal intent={w.status === 'failed' ? 'danger' : 'warning'}>
                          {w.status === 'retrying' ? `Retrying (attempt ${w.attempt})` : `Failed ${formatDateTimeWithZone(w.closedAt)}`}
                        </Tag>
                      </td>
                      <td className="wrap">{w.lastFailure ?? ''}</td>
                      <td>
                        <a href={w.temporalUrl} target="_blank" rel="noreferrer">
                          Open in Temporal UI
                        </a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </HTMLTable>
            )}
          </section>

          <section aria-labelledby="ops-other">
            <h3 id="ops-other">Other work</h3>
            {data.onboardings.length === 0 && data.blocked.length === 0 ? (
              <NonIdealState icon="tick" title="No onboarding in progress and no consolidation blocked" />
            ) : (
              <HTMLTable striped className="full-width" aria-label="Other work">
                <tbody>
                  {data.onboardings.map((w) => (
                    <tr key={w.workflowId}>
                      <td>
                        <Link to={orgLink(w.organizationName)}>{w.organizationName}</Link>
                      </td>
                      <td>Onboarding in progress since {formatDateTimeWithZone(w.startedAt)}</td>
                      <td>
                        <a href={w.temporalUrl} target="_blank" rel="noreferrer">
                          Open in Temporal UI
                        </a>
                      </td>
                    </tr>
                  ))}
                  {data.blocked.map((b) => (
                    <tr key={`blocked-${b.organizationId}`}>
                      <td>
                        <Link to={orgLink(b.organizationName)}>{b.organizationName}</Link>
                      </td>
                      <td className="wrap">
                        Consolidation blocked: {b.months.map((m) => `${monthName(m.period)} (${m.reason})`).join('; ')}
                      </td>
                      <td>
                        <Link to={paths.consolidation}>Open Consolidation</Link>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </HTMLTable>
            )}
          </section>
        </>
      )}
    </div>
  );
}
