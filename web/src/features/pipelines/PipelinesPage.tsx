import { Alert, Button, Callout, Card, Dialog, DialogBody, DialogFooter, FormGroup, H2, HTMLSelect, HTMLTable, InputGroup, NonIdealState, Spinner } from '@blueprintjs/core';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { toast } from '../../components/toaster';
import { formatDateTime } from '../../lib/format';
import { useSession } from '../../lib/session';
import { cancelRun, isRunning, PAGE_SIZE, revalidateRuns, runId, runOutcome, startRun, useRun, useRunHistory, usePipelines, useRunningRuns, type PipelineRun, type RunFilter, type RunOutcome } from './api/pipelines';
import { RunDetail } from './RunDetail';
import { monthsChangedText, pipelinePurpose, pipelineTitle, plural, rowsText, runDuration, startedByName, statusLabel } from './run-format';
import { RunStatusTag } from './RunStatusTag';
import { HowItWorks } from '../../components/HowItWorks';

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const FILTER_LABELS: Record<keyof RunFilter, string> = { status: 'Status', pipeline: 'Pipeline', from: 'From', to: 'To' };

function RunsTable({ runs, label, onOpen, onCancel, cancelling }: { runs: PipelineRun[]; label: string; onOpen: (r: PipelineRun) => void; onCancel?: (r: PipelineRun) => void; cancelling?: boolean }) {
  return (
    <div className="table-scroll">
      <HTMLTable striped compact className="full-width runs-table" aria-label={label}>
        <thead>
          <tr>
            <th>Status</th>
            <th>Started</th>
            <th className="wide-only">Pipelines</th>
            <th className="wide-only">Ended</th>
            <th className="wide-only">Took</th>
            <th className="wide-only">Wrote</th>
            <th className="wide-only">What changed</th>
            <th className="wide-only">By</th>
            <th>Error</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={runId(r)}>
              <td>
                <RunStatusTag status={r.status} />
              </td>
              <td className="nowrap">{formatDateTime(r.startedAt)}</td>
              <td className="wide-only">{(r.pipelines ?? []).map((p) => `${pipelineTitle(p.name)}${p.status ? ` (${statusLabel(p.status)})` : ''}`).join(', ')}</td>
              <td className="wide-only nowrap">{formatDateTime(r.endedAt ?? undefined)}</td>
              <td className="wide-only">{runDuration(r)}</td>
              <td className="wide-only">{r.rowsMoved === undefined ? '' : rowsText(r.rowsMoved)}</td>
              <td className="wide-only">{monthsChangedText(r.pipelines)}</td>
              <td className="wide-only">{startedByName(r)}</td>
              <td className="error-cell">{r.status === 'cancelled' ? '' : (r.error ?? '')}</td>
              <td className="nowrap">
                <Button small variant="minimal" text="Details" aria-label="Run details" onClick={() => onOpen(r)} />
                {onCancel && <Button small variant="minimal" text="Cancel" aria-label="Cancel run" loading={cancelling} onClick={() => onCancel(r)} />}
              </td>
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
  const [starting, setStarting] = useState(false);
  // The run followed live: started here (startedHere) or found running; kept until it ends.
  const [followId, setFollowId] = useState<string>();
  const [startedHere, setStartedHere] = useState(false);
  const [outcome, setOutcome] = useState<RunOutcome>();
  const [detailId, setDetailId] = useState<string>();
  const [confirmCancel, setConfirmCancel] = useState<PipelineRun>();
  const [cancelling, setCancelling] = useState(false);
  const [startedRun, setStartedRun] = useState<PipelineRun>();
  const pipelines = usePipelines(orgId);
  const history = useRunHistory(orgId, filter, page);
  const reloadHistory = history.mutate;

  // One live state: the running run (started here, or found running when the page opened) is
  // followed by one polled request; the pipeline list, the Running panel and History show it.
  const running = useRunningRuns(orgId);
  const foundRunning = running.runs[0] ? runId(running.runs[0]) : undefined;
  const liveId = followId ?? foundRunning;
  const live = useRun(orgId, liveId, { justStarted: startedHere });
  // Until its record is read, a run started here shows as the start answered it (running).
  const liveRun = live.run ? (isRunning(live.run) ? live.run : undefined) : startedHere ? startedRun : undefined;
  const busy = starting || (startedHere && (!live.run || isRunning(live.run))) || Boolean(liveRun);

  useEffect(() => {
    if (!followId && foundRunning) setFollowId(foundRunning);
  }, [followId, foundRunning]);

  // When the followed run ends: its outcome once, and every list asked again.
  const watched = useRef<string>();
  useEffect(() => {
    if (liveRun && watched.current !== runId(liveRun)) void reloadHistory(); // History lists the run from its start
    if (liveRun) watched.current = runId(liveRun);
    const run = live.run;
    if (!run || isRunning(run) || watched.current !== runId(run)) return;
    watched.current = undefined;
    setOutcome(runOutcome(run));
    setFollowId(undefined);
    setStartedHere(false);
    setCancelling(false);
    void revalidateRuns(orgId);
  }, [live.run, liveRun, orgId, reloadHistory]);

  useEffect(() => {
    setFollowId(undefined);
    setStartedHere(false);
    setOutcome(undefined);
  }, [orgId]);

  async function runAll() {
    setOutcome(undefined);
    setStarting(true);
    const res = await startRun(orgId);
    setStarting(false);
    if ('run' in res) {
      // Until its record is read, the run shows as started now with the organization's pipelines waiting.
      setStartedRun({
        ...res.run,
        startedAt: res.run.startedAt ?? new Date().toISOString(),
        pipelines: res.run.pipelines?.length ? res.run.pipelines : pipelines.pipelines.map((p) => ({ name: p.name, status: 'pending', startedAt: null, endedAt: null, rowsMoved: 0, error: null, files: [], tables: [], warnings: [] })),
      });
      watched.current = runId(res.run);
      setFollowId(runId(res.run));
      setStartedHere(true);
    } else {
      setOutcome({ intent: 'danger', message: res.message, details: res.details });
    }
  }

  async function cancel(r: PipelineRun) {
    setConfirmCancel(undefined);
    setCancelling(true);
    try {
      // The run's end says "cancelled" once, in the outcome: no toast for the request itself.
      await cancelRun(orgId, r);
      void live.mutate();
    } catch (err) {
      setCancelling(false);
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

  function clearFilter() {
    setFilter({});
    setPage(1);
  }

  const activeFilters = (Object.entries(filter) as [keyof RunFilter, string | undefined][]).filter(([, v]) => v);
  const liveOf = (r: PipelineRun) => (liveRun && runId(r) === runId(liveRun) ? liveRun : r);
  const historyRuns = history.runs.map(liveOf);

  return (
    <div className="page">
      <H2>Pipelines</H2>
      <HowItWorks screen="pipelines" />
      {user?.role === 'admin' && <OrganizationPicker value={picked} onChange={setPicked} />}
      {!orgId ? (
        <NonIdealState icon="flows" title={user?.role === 'admin' ? 'Pick an organization' : 'No organization'} description="Pipelines belong to an organization." />
      ) : (
        <>
          <Card className="page-card">
            <div className="card-head">
              <h3>Organization pipelines</h3>
              <Button intent="primary" icon="play" text={busy ? 'Running...' : 'Run all pipelines'} disabled={busy} onClick={() => void runAll()} />
            </div>
            {outcome && (
              <Callout intent={outcome.intent} role={outcome.intent === 'danger' ? 'alert' : 'status'} data-testid="run-outcome">
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
              <ul className="pipeline-list" aria-label="Organization pipelines">
                {pipelines.pipelines.map((p) => {
                  const now = liveRun?.pipelines?.find((x) => x.name === p.name);
                  const status = now?.status ?? p.lastRun?.status ?? p.lastRunStatus;
                  const at = now ? (now.startedAt ?? liveRun?.startedAt) : (p.lastRun?.startedAt ?? p.lastRunAt);
                  return (
                    <li key={p.name}>
                      <strong>{pipelineTitle(p.name)}</strong> {pipelinePurpose(p.name, p.description) && <span className="muted">{pipelinePurpose(p.name, p.description)}</span>}{' '}
                      {status && (
                        <>
                          <RunStatusTag status={status} /> <span className="muted">{formatDateTime(at ?? undefined)}</span>
                        </>
                      )}
                    </li>
                  );
                })}
              </ul>
            )}
          </Card>

          <Card className="page-card">
            <h3>Running</h3>
            {liveRun ? (
              <RunsTable runs={[liveRun]} label="Running pipelines" onOpen={(r) => setDetailId(runId(r))} onCancel={(r) => setConfirmCancel(r)} cancelling={cancelling} />
            ) : busy ? (
              <p className="muted">Starting the run...</p>
            ) : (
              <p className="muted">No pipeline is running.</p>
            )}
          </Card>

          <Card className="page-card">
            <div className="card-head">
              <h3>History</h3>
              <Button
                icon="filter"
                text="Filter Pipelines"
                onClick={() => {
                  setDraft(filter);
                  setDraftError(undefined);
                  setFilterOpen(true);
                }}
              />
            </div>
            {/* What the list is filtered by, always; its Clear sits here when runs show, else in the empty state. */}
            {activeFilters.length > 0 && (
              <p className="muted">
                Filtered by {activeFilters.map(([k, v]) => `${FILTER_LABELS[k]}: ${k === 'status' ? statusLabel(v) : k === 'pipeline' && v ? pipelineTitle(v) : v}`).join(', ')} {historyRuns.length > 0 && <Button small variant="minimal" text="Clear" onClick={clearFilter} />}
              </p>
            )}
            {history.isLoading ? (
              <Spinner size={24} />
            ) : history.error ? (
              <Callout intent="danger">{(history.error as Error).message}</Callout>
            ) : historyRuns.length === 0 ? (
              activeFilters.length > 0 ? (
                <NonIdealState icon="filter-remove" title="No runs match these filters" action={<Button text="Clear" icon="cross" onClick={clearFilter} />} />
              ) : (
                <p className="muted">No runs yet.</p>
              )
            ) : (
              <>
                <RunsTable runs={historyRuns} label="Pipeline history" onOpen={(r) => setDetailId(runId(r))} />
                <div className="pager">
                  <Button small icon="chevron-left" aria-label="Previous page" disabled={page <= 1} onClick={() => setPage((p) => p - 1)} />
                  <span>
                    Page {page} of {history.pages} ({plural(history.total, 'run')}, {PAGE_SIZE} per page)
                  </span>
                  <Button small icon="chevron-right" aria-label="Next page" disabled={page >= history.pages} onClick={() => setPage((p) => p + 1)} />
                </div>
              </>
            )}
          </Card>
        </>
      )}

      <RunDetail orgId={orgId} id={detailId} onClose={() => setDetailId(undefined)} />

      <Alert
        isOpen={Boolean(confirmCancel)}
        icon="stop"
        cancelButtonText="Keep running"
        confirmButtonText="Cancel run"
        onCancel={() => setConfirmCancel(undefined)}
        onConfirm={() => confirmCancel && void cancel(confirmCancel)}
        canEscapeKeyCancel
      >
        <p>Cancel this pipeline run? Pipelines that have not finished stop; tables already loaded stay as they are.</p>
      </Alert>

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
                    {pipelineTitle(p.name)}
                  </option>
                ))}
              </HTMLSelect>
            </FormGroup>
            {/* A text field, not type="date": the browser would show its own locale's format beside a YYYY-MM-DD label. */}
            <FormGroup label="From (YYYY-MM-DD)" labelFor="filter-from">
              <InputGroup id="filter-from" placeholder="YYYY-MM-DD" inputMode="numeric" maxLength={10} value={draft.from ?? ''} onChange={(e) => setDraft((d) => ({ ...d, from: e.target.value.trim() }))} />
            </FormGroup>
            <FormGroup label="To (YYYY-MM-DD)" labelFor="filter-to" intent={draftError ? 'danger' : 'none'} helperText={draftError}>
              <InputGroup id="filter-to" placeholder="YYYY-MM-DD" inputMode="numeric" maxLength={10} intent={draftError ? 'danger' : 'none'} value={draft.to ?? ''} onChange={(e) => setDraft((d) => ({ ...d, to: e.target.value.trim() }))} />
            </FormGroup>
          </DialogBody>
          <DialogFooter
            actions={
              <>
                <Button text="Cancel" onClick={() => setFilterOpen(false)} />
                <Button type="submit" intent="primary" text="Apply" />
              </>
            }
          />
        </form>
      </Dialog>
    </div>
  );
}
