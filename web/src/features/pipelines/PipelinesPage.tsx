import { Button, Callout, Card, Dialog, DialogBody, DialogFooter, FormGroup, H2, HTMLSelect, HTMLTable, InputGroup, NonIdealState, Spinner } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { StatusTag } from '../../components/StatusTag';
import { toast } from '../../components/toaster';
import { formatDateTime, formatDuration } from '../../lib/format';
import { useSession } from '../../lib/session';
import { cancelRun, PAGE_SIZE, runAllPipelines, runId, useRunHistory, usePipelines, useRunningRuns, type PipelineRun, type RunFilter } from './api/pipelines';

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

function who(r: PipelineRun): string {
  const s = r.startedBy;
  if (!s) return '';
  return typeof s === 'string' ? s : (s.name || s.fullName || s.email || '');
}

function duration(r: PipelineRun): string {
  if (r.durationMs !== undefined && r.durationMs !== null) return formatDuration(r.durationMs);
  if (r.startedAt && r.endedAt) return formatDuration(new Date(r.endedAt).getTime() - new Date(r.startedAt).getTime());
  return '';
}

function RunsTable({ runs, label, onCancel }: { runs: PipelineRun[]; label: string; onCancel?: (r: PipelineRun) => void }) {
  return (
    <div className="table-scroll">
      <HTMLTable striped compact className="full-width" aria-label={label}>
        <thead>
          <tr>
            <th>Status</th>
            <th>Pipelines</th>
            <th>Started</th>
            <th>Ended</th>
            <th>Duration</th>
            <th>Rows</th>
            <th>By</th>
            <th>Error</th>
            {onCancel && <th><span className="sr-only">Actions</span></th>}
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={runId(r)}>
              <td><StatusTag status={r.status} /></td>
              <td>{r.pipeline ?? (r.pipelines ?? []).map((p) => `${p.name}${p.status ? ` (${p.status})` : ''}`).join(', ')}</td>
              <td>{formatDateTime(r.startedAt)}</td>
              <td>{formatDateTime(r.endedAt ?? undefined)}</td>
              <td>{duration(r)}</td>
              <td>{r.rowsMoved ?? ''}</td>
              <td>{who(r)}</td>
              <td className="error-cell">{r.error ?? ''}</td>
              {onCancel && (
                <td>
                  <Button small intent="danger" variant="minimal" text="Cancel" onClick={() => onCancel(r)} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </HTMLTable>
    </div>
  );
}

export default function PipelinesPage() {
  const { user } = useSession();
  const [picked, setPicked] = useState('');
  const orgId = useWorkingOrganization(user?.role, user?.organization_id, picked);
  const [filter, setFilter] = useState<RunFilter>({});
  const [page, setPage] = useState(1);
  const [filterOpen, setFilterOpen] = useState(false);
  const [draft, setDraft] = useState<RunFilter>({});
  const [draftError, setDraftError] = useState<string>();
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string; details?: string[] }>();
  const pipelines = usePipelines(orgId);
  const live = useRunningRuns(orgId);
  const history = useRunHistory(orgId, filter, page);

  async function runAll() {
    setOutcome(undefined);
    setRunning(true);
    const res = await runAllPipelines(orgId, () => void live.mutate());
    setRunning(false);
    setOutcome(res);
    toast(res.message, res.ok ? 'success' : 'danger');
  }

  async function cancel(r: PipelineRun) {
    try {
      toast(await cancelRun(orgId, r), 'warning');
    } catch (err) {
      toast((err as Error).message, 'danger');
    }
  }

  function applyFilter(e: FormEvent) {
    e.preventDefault();
    for (const d of [draft.from, draft.to]) if (d && !DATE_RE.test(d)) return setDraftError('Dates must be YYYY-MM-DD');
    if (draft.from && draft.to && draft.from > draft.to) return setDraftError('The start date must be before the end date');
    setDraftError(undefined);
    setFilter(draft);
    setPage(1);
    setFilterOpen(false);
  }

  const activeFilters = Object.entries(filter).filter(([, v]) => v);

  return (
    <div className="page">
      <H2>Pipelines</H2>
      {user?.role === 'admin' && <OrganizationPicker value={picked} onChange={setPicked} />}
      {!orgId ? (
        <NonIdealState icon="flows" title={user?.role === 'admin' ? 'Pick an organization' : 'No organization'} description="Pipelines belong to an organization." />
      ) : (
        <>
          <Card className="page-card">
            <div className="card-head">
              <h3>Organization pipelines</h3>
              <Button intent="primary" icon="play" text="Run all pipelines" loading={running} onClick={() => void runAll()} />
            </div>
            {outcome && (
              <Callout intent={outcome.ok ? 'success' : 'danger'} role={outcome.ok ? 'status' : 'alert'} data-testid="run-outcome">
                {outcome.message}
                {outcome.details && outcome.details.length > 0 && (
                  <ul>
                    {outcome.details.map((d) => (
                      <li key={d}>{d}</li>
                    ))}
                  </ul>
                )}
              </Callout>
            )}
            {pipelines.isLoading ? (
              <Spinner size={24} />
            ) : pipelines.error ? (
              <Callout intent="danger">{(pipelines.error as Error).message}</Callout>
            ) : pipelines.pipelines.length === 0 ? (
              <p>No pipelines yet: the organization's data factory is installed by onboarding.</p>
            ) : (
              <ul className="pipeline-list">
                {pipelines.pipelines.map((p) => (
                  <li key={p.name}>
                    <strong>{p.name}</strong> {p.description && <span className="muted">{p.description}</span>}{' '}
                    {(p.lastRun?.status ?? p.lastRunStatus) && (
                      <>
                        <StatusTag status={p.lastRun?.status ?? p.lastRunStatus} /> <span className="muted">{formatDateTime(p.lastRun?.startedAt ?? p.lastRunAt)}</span>
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </Card>

          <Card className="page-card">
            <h3>Running</h3>
            {live.runs.length === 0 ? <p className="muted">No pipeline is running.</p> : <RunsTable runs={live.runs} label="Running pipelines" onCancel={(r) => void cancel(r)} />}
          </Card>

          <Card className="page-card">
            <div className="card-head">
              <h3>History</h3>
              <Button icon="filter" text="Filter Pipelines" onClick={() => { setDraft(filter); setFilterOpen(true); }} />
            </div>
            {activeFilters.length > 0 && (
              <p className="muted">
                Filtered by {activeFilters.map(([k, v]) => `${k}: ${v}`).join(', ')}{' '}
                <Button small variant="minimal" text="Clear" onClick={() => { setFilter({}); setPage(1); }} />
              </p>
            )}
            {history.isLoading ? (
              <Spinner size={24} />
            ) : history.error ? (
              <Callout intent="danger">{(history.error as Error).message}</Callout>
            ) : history.runs.length === 0 ? (
              <p className="muted">No runs yet.</p>
            ) : (
              <>
                <RunsTable runs={history.runs} label="Pipeline history" />
                <div className="pager">
                  <Button small icon="chevron-left" aria-label="Previous page" disabled={page <= 1} onClick={() => setPage((p) => p - 1)} />
                  <span>
                    Page {page} of {history.pages} ({history.total} runs, {PAGE_SIZE} a page)
                  </span>
                  <Button small icon="chevron-right" aria-label="Next page" disabled={page >= history.pages} onClick={() => setPage((p) => p + 1)} />
                </div>
              </>
            )}
          </Card>
        </>
      )}

      <Dialog isOpen={filterOpen} onClose={() => setFilterOpen(false)} title="Filter Pipelines">
        <form onSubmit={applyFilter} noValidate>
          <DialogBody>
            <FormGroup label="Status" labelFor="filter-status">
              <HTMLSelect id="filter-status" value={draft.status ?? ''} onChange={(e) => setDraft((d) => ({ ...d, status: e.target.value }))}>
                <option value="">Any</option>
                <option value="running">Running</option>
                <option value="succeeded">Succeeded</option>
                <option value="failed">Failed</option>
                <option value="cancelled">Cancelled</option>
                <option value="no_files">No files</option>
              </HTMLSelect>
            </FormGroup>
            <FormGroup label="Pipeline" labelFor="filter-pipeline">
              <HTMLSelect id="filter-pipeline" value={draft.pipeline ?? ''} onChange={(e) => setDraft((d) => ({ ...d, pipeline: e.target.value }))}>
                <option value="">Any</option>
                {pipelines.pipelines.map((p) => (
                  <option key={p.name} value={p.name}>
                    {p.name}
                  </option>
                ))}
              </HTMLSelect>
            </FormGroup>
            <FormGroup label="From (YYYY-MM-DD)" labelFor="filter-from">
              <InputGroup id="filter-from" type="date" value={draft.from ?? ''} onChange={(e) => setDraft((d) => ({ ...d, from: e.target.value }))} />
            </FormGroup>
            <FormGroup label="To (YYYY-MM-DD)" labelFor="filter-to" intent={draftError ? 'danger' : 'none'} helperText={draftError}>
              <InputGroup id="filter-to" type="date" value={draft.to ?? ''} onChange={(e) => setDraft((d) => ({ ...d, to: e.target.value }))} />
            </FormGroup>
          </DialogBody>
          <DialogFooter actions={<><Button text="Cancel" onClick={() => setFilterOpen(false)} /><Button type="submit" intent="primary" text="Apply" /></>} />
        </form>
      </Dialog>
    </div>
  );
}
