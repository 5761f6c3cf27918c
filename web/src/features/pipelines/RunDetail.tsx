import { Callout, Dialog, DialogBody, HTMLTable, NonIdealState, Spinner } from '@blueprintjs/core';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router-dom';
import { PIPELINE_TABLES } from '../../../../common/contract/tables';
import { dataTablePath } from '../../app/paths';
import { useSession } from '../../lib/session';
import { useRun, type PipelineOfRun } from './api/pipelines';
import { formatTimeWithZone, monthsChangedText, pipelinePurpose, pipelineTitle, rowsText, runDuration, startedByName, whatItRead } from './run-format';
import { RunStatusTag } from './RunStatusTag';

/** Opens a table the run wrote in the data explorer (an admin's link names the organization). */
function TableLink({ orgId, table }: { orgId: string; table: string }) {
  const { user } = useSession();
  return (
    <Link to={dataTablePath(table, user?.role === 'admin' ? orgId : undefined)} title={`Open table ${table} in Data`}>
      {table}
    </Link>
  );
}

function PipelineSection({ p, orgId }: { p: PipelineOfRun; orgId: string }) {
  const tables = p.tables ?? [];
  const wrote = p.status === 'succeeded' ? (PIPELINE_TABLES[p.name] ?? []) : [];
  const title = pipelineTitle(p.name);
  const read = whatItRead(p);
  const changed = monthsChangedText([p]);
  return (
    <section className="run-detail-pipeline" aria-label={`Pipeline ${title}`}>
      <h4>
        {title} <RunStatusTag status={p.status} />
      </h4>
      {pipelinePurpose(p.name) && <p className="muted">{pipelinePurpose(p.name)}</p>}
      <dl className="run-detail-times">
        <dt>Started</dt>
        <dd>{formatTimeWithZone(p.startedAt) || 'Not started'}</dd>
        <dt>Ended</dt>
        <dd>{formatTimeWithZone(p.endedAt) || (p.status === 'running' ? 'Still running' : '-')}</dd>
        <dt>Took</dt>
        <dd>{runDuration(p) || '-'}</dd>
      </dl>
      {read && <p className="run-detail-read">{read}</p>}
      {changed && <p className="run-detail-changed">{changed}</p>}
      {wrote.length > 0 && (
        <p className="run-detail-wrote">
          Wrote{' '}
          {wrote.map((t, i) => (
            <span key={t}>
              {i > 0 && ', '}
              <TableLink orgId={orgId} table={t} />
            </span>
          ))}
        </p>
      )}
      {p.error && (
        <Callout intent="danger" title="Error">
          {p.error}
        </Callout>
      )}
      {(p.warnings ?? []).length > 0 && (
        <Callout intent="warning" title="Warnings">
          <ul>
            {(p.warnings ?? []).map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Callout>
      )}
      {tables.length > 0 && (
        <HTMLTable compact striped className="full-width" aria-label={`Tables of ${title}`}>
          <thead>
            <tr>
              <th>Table</th>
              <th>Outcome</th>
              <th>Rows</th>
              <th>From file</th>
            </tr>
          </thead>
          <tbody>
            {tables.map((t) => (
              <tr key={`${t.tableName}-${t.blobName ?? ''}`}>
                <td>{t.action === 'loaded' || t.action === 'up_to_date' ? <TableLink orgId={orgId} table={t.tableName} /> : t.tableName}</td>
                <td>
                  <RunStatusTag status={t.action} />
                  {t.reason && <div className="muted">{t.reason}</div>}
                </td>
                <td>{(t.rows ?? 0).toLocaleString('en-US')}</td>
                <td>{t.blobName ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </HTMLTable>
      )}
    </section>
  );
}

/** The dialog's content: takes the focus when it opens, so Escape and Tab work from the first key. */
function RunDetailBody({ orgId, id }: { orgId: string; id: string }) {
  // The Temporal UI reads and controls every client's workflows: its link is for admins only.
  const isAdmin = useSession().user?.role === 'admin';
  const { run, error, isLoading } = useRun(orgId, id);
  const focusTarget = useRef<HTMLDivElement>(null);
  useEffect(() => focusTarget.current?.focus(), []);
  return (
    <DialogBody className="run-detail">
      <div ref={focusTarget} tabIndex={-1} className="run-detail-focus" aria-label="Run detail">
        {isLoading && !run ? (
          <Spinner size={24} />
        ) : !run ? (
          <NonIdealState icon="error" title={(error as Error | undefined)?.message ?? 'Pipeline run not found'} />
        ) : (
          <>
            <dl className="run-detail-times">
              <dt>Status</dt>
              <dd>
                <RunStatusTag status={run.status} />
              </dd>
              <dt>Started</dt>
              <dd>{formatTimeWithZone(run.startedAt)}</dd>
              <dt>Ended</dt>
              <dd>{formatTimeWithZone(run.endedAt) || 'Still running'}</dd>
              <dt>Took</dt>
              <dd>{runDuration(run) || '-'}</dd>
              <dt>Wrote</dt>
              <dd>{rowsText(run.rowsMoved)}</dd>
              {monthsChangedText(run.pipelines) && (
                <>
                  <dt>What changed</dt>
                  <dd>{monthsChangedText(run.pipelines)}</dd>
                </>
              )}
              {startedByName(run) && (
                <>
                  <dt>Started by</dt>
                  <dd>{startedByName(run)}</dd>
                </>
              )}
            </dl>
            {run.error && run.status !== 'cancelled' && (
              <Callout intent="danger" title="Error">
                {run.error}
              </Callout>
            )}
            {(run.pipelines ?? []).map((p) => (
              <PipelineSection key={p.name} p={p} orgId={orgId} />
            ))}
            {run.temporalUrl && isAdmin && (
              <p>
                <a href={run.temporalUrl} target="_blank" rel="noreferrer">
                  Open in Temporal UI
                </a>
              </p>
            )}
          </>
        )}
      </div>
    </DialogBody>
  );
}

/** A run's detail in a dialog: each pipeline in words (what it read and from where), its times with their zone, rows per table, warnings, errors; the Temporal UI link for admins only. */
export function RunDetail({ orgId, id, onClose }: { orgId: string; id: string | undefined; onClose: () => void }) {
  return (
    <Dialog isOpen={Boolean(id)} onClose={onClose} title="Pipeline run" className="run-detail-dialog">
      {id && <RunDetailBody orgId={orgId} id={id} />}
    </Dialog>
  );
}
