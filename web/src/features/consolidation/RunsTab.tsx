import { Alert, Button, Callout, H4, HTMLTable, NonIdealState, Spinner, Tag, type Intent } from '@blueprintjs/core';
import { useState } from 'react';
import { toast } from '../../components/toaster';
import { formatDateTime } from '../../lib/format';
import type { Overview } from './api/overview';
import { useResults, type DrilldownTarget, type Results } from './api/results';
import { lockPeriod, runConsolidation, unlockPeriod, type RunOutcome } from './api/runs';
import { DrilldownDialog } from './DrilldownDialog';
import { PeriodSelect, shownPeriod } from './PeriodSelect';
import { formatAmount, PERIOD_STATUS_WORDS, sumAmounts } from '../../shared/consolidation/words';

const STATUS_INTENTS: Record<string, Intent> = { ok: 'success', blocked: 'danger', locked: 'primary' };

function PeriodStatus({ status }: { status: 'ok' | 'blocked' | 'locked' }) {
  return (
    <Tag intent={STATUS_INTENTS[status]} minimal round data-status={status}>
      {PERIOD_STATUS_WORDS[status]}
    </Tag>
  );
}

function Messages({ messages }: { messages: string[] }) {
  if (messages.length === 0) return null;
  if (messages.length === 1) return <span>{messages[0]}</span>;
  return (
    <ul className="plain-list">
      {messages.map((m) => (
        <li key={m}>{m}</li>
      ))}
    </ul>
  );
}

function RunSection({ orgId, lastRun, onRun }: { orgId: string; lastRun: RunOutcome | undefined; onRun: (r: RunOutcome | undefined) => void }) {
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string>();

  async function run() {
    setRunning(true);
    setError(undefined);
    onRun(undefined);
    try {
      onRun(await runConsolidation(orgId));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setRunning(false);
    }
  }

  return (
    <section aria-label="Run" className="tab-section">
      <div className="card-head">
        <H4>Run</H4>
        <Button intent="primary" icon="play" text={running ? 'Running...' : 'Run consolidation'} disabled={running} onClick={() => void run()} />
      </div>
      <p className="muted">Consolidates every month of trial_balance with the settings, mappings and rates above; locked months keep their figures.</p>
      {error && (
        <Callout intent="danger" role="alert" data-testid="consolidation-outcome">
          {error}
        </Callout>
      )}
      {lastRun && (
        <>
          <Callout intent={!lastRun.finished ? 'primary' : lastRun.blocked ? 'warning' : 'success'} role="status" data-testid="consolidation-outcome">
            {lastRun.message}
            {lastRun.temporalUrl && (
              <>
                {' '}
                <a href={lastRun.temporalUrl} target="_blank" rel="noreferrer">
                  Open in Temporal UI
                </a>
              </>
            )}
          </Callout>
          {lastRun.summary.length > 0 && (
            <div className="table-scroll">
              <HTMLTable striped compact className="full-width consolidation-table" aria-label="Last run">
                <thead>
                  <tr>
                    <th>Period</th>
                    <th>Outcome</th>
                    <th>Messages</th>
                  </tr>
                </thead>
                <tbody>
                  {lastRun.summary.map((s) => (
                    <tr key={s.period}>
                      <td>{s.period}</td>
                      <td>
                        <PeriodStatus status={s.status} />
                      </td>
                      <td>
                        <Messages messages={s.messages} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </HTMLTable>
            </div>
          )}
        </>
      )}
    </section>
  );
}

function PeriodsSection({ orgId, overview, onShow }: { orgId: string; overview: Overview; onShow: (period: string) => void }) {
  const [confirmLock, setConfirmLock] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const locks = new Map(overview.locks.map((l) => [l.period, l]));

  async function act(period: string, fn: (orgId: string, period: string) => Promise<string>) {
    setBusy(period);
    try {
      toast(await fn(orgId, period), 'success');
    } catch (err) {
      toast((err as Error).message, 'danger');
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <section aria-label="Periods" className="tab-section">
      <H4>Periods</H4>
      {overview.checks.length === 0 ? (
        <NonIdealState icon="calendar" title="No consolidation yet: run it" description="Each consolidated month shows here with its checks, and can then be locked." />
      ) : (
        <div className="table-scroll">
          <HTMLTable striped compact className="full-width consolidation-table" aria-label="Periods">
            <thead>
              <tr>
                <th>Period</th>
                <th>Status</th>
                <th className="wide-only">Checks</th>
                <th className="wide-only">Locked</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {overview.checks.map((c) => {
                const lock = locks.get(c.period);
                return (
                  <tr key={c.period} data-period={c.period}>
                    <td className="nowrap">{c.period}</td>
                    <td>
                      <PeriodStatus status={lock ? 'locked' : c.status} />
                    </td>
                    <td className="wide-only">{c.messages.length ? <Messages messages={c.messages} /> : <span className="muted">{c.status === 'ok' ? 'Balanced' : ''}</span>}</td>
                    <td className="wide-only">{lock ? `${lock.locked_by}, ${formatDateTime(lock.locked_at)}` : ''}</td>
                    <td className="actions-cell">
                      <Button small variant="minimal" className="wide-only" text="Show" aria-label={`Show the trial balance of ${c.period}`} onClick={() => onShow(c.period)} />
                      {lock ? (
                        <Button small icon="unlock" text="Unlock" aria-label={`Unlock ${c.period}`} loading={busy === c.period} onClick={() => void act(c.period, unlockPeriod)} />
                      ) : (
                        <Button small icon="lock" text="Lock" aria-label={`Lock ${c.period}`} disabled={c.status !== 'ok'} title={c.status !== 'ok' ? 'A blocked period cannot be locked' : undefined} loading={busy === c.period} onClick={() => setConfirmLock(c.period)} />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </HTMLTable>
        </div>
      )}
      <Alert
        isOpen={Boolean(confirmLock)}
        icon="lock"
        intent="primary"
        cancelButtonText="Cancel"
        confirmButtonText="Lock period"
        onCancel={() => setConfirmLock(undefined)}
        onConfirm={() => {
          const period = confirmLock;
          setConfirmLock(undefined);
          if (period) void act(period, lockPeriod);
        }}
        canEscapeKeyCancel
      >
        <p>Lock {confirmLock}? Its figures stay as they are: later runs keep them, and later months roll forward from them, until it is unlocked.</p>
      </Alert>
    </section>
  );
}

function TrialBalanceTable({ results, onDrill }: { results: Results; onDrill: (row: Results['rows'][number]) => void }) {
  const total = (pick: (r: Results['rows'][number]) => string) => sumAmounts(results.rows.map(pick));
  return (
    <div className="table-scroll">
      <HTMLTable striped compact className="full-width consolidation-table ctb-table" aria-label={`Consolidated trial balance ${results.period}`}>
        <thead>
          <tr>
            <th>Account</th>
            {results.columns.map((c) => (
              <th key={c.entity} className="amount wide-only">
                {c.name}
              </th>
            ))}
            <th className="amount wide-only">Eliminations</th>
            <th className="amount wide-only">NCI</th>
            <th className="amount wide-only">Adjustments</th>
            <th className="amount">Consolidated</th>
          </tr>
        </thead>
        <tbody>
          {results.rows.map((r) => (
            <tr key={r.groupAccount} data-account={r.groupAccount}>
              <td>
                {r.groupAccount} {r.name}
              </td>
              {results.columns.map((c) => (
                <td key={c.entity} className="amount wide-only" data-column={`entity:${c.entity}`}>
                  {formatAmount(r.entities[c.entity] ?? '0.00')}
                </td>
              ))}
              <td className="amount wide-only" data-column="eliminations">
                {formatAmount(r.eliminations)}
              </td>
              <td className="amount wide-only" data-column="nci">
                {formatAmount(r.nci)}
              </td>
              <td className="amount wide-only" data-column="adjustments">
                {formatAmount(r.adjustments ?? '0.00')}
              </td>
              <td className="amount" data-column="consolidated">
                <Button variant="minimal" small className="link-button amount-button" text={formatAmount(r.consolidated)} aria-label={`Drill down into ${r.groupAccount} ${r.name}: ${formatAmount(r.consolidated)}`} onClick={() => onDrill(r)} />
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            {results.columns.map((c) => (
              <td key={c.entity} className="amount wide-only">
                {formatAmount(total((r) => r.entities[c.entity] ?? '0.00'))}
              </td>
            ))}
            <td className="amount wide-only">{formatAmount(total((r) => r.eliminations))}</td>
            <td className="amount wide-only">{formatAmount(total((r) => r.nci))}</td>
            <td className="amount wide-only">{formatAmount(total((r) => r.adjustments ?? '0.00'))}</td>
            <td className="amount" data-column="consolidated-total">
              {formatAmount(total((r) => r.consolidated))}
            </td>
          </tr>
        </tfoot>
      </HTMLTable>
    </div>
  );
}

function TrialBalanceSection({ orgId, periods, period, onPeriod, currency }: { orgId: string; periods: string[]; period: string; onPeriod: (p: string) => void; currency: string }) {
  const { results, isLoading, error } = useResults(orgId, period);
  const [drill, setDrill] = useState<{ target: DrilldownTarget; title: string }>();
  const shown = results?.period === period ? results : undefined;
  return (
    <section aria-label="Consolidated trial balance" className="tab-section">
      <div className="card-head">
        <H4>Consolidated trial balance</H4>
        {periods.length > 0 && <PeriodSelect id="ctb-period" periods={periods} value={period} onChange={onPeriod} />}
      </div>
      {periods.length === 0 ? (
        <NonIdealState icon="th" title="No consolidation yet: run it" />
      ) : isLoading && !shown ? (
        <Spinner size={24} />
      ) : error ? (
        <Callout intent="danger" role="alert">
          {(error as Error).message}
        </Callout>
      ) : !shown ? null : (
        <>
          <div className="ctb-summary">
            <PeriodStatus status={shown.locked ? 'locked' : shown.check.status} />{' '}
            {shown.locked && (
              <span className="muted">
                by {shown.locked.lockedBy}, {formatDateTime(shown.locked.lockedAt)}
              </span>
            )}
            <span className="muted">
              {' '}
              Amounts in {currency}, credits negative. Assets {formatAmount(shown.check.assets)}, liabilities and equity {formatAmount(shown.check.liabilitiesAndEquity)}.
            </span>
          </div>
          {shown.check.messages.length > 0 && (
            <Callout intent={shown.check.status === 'blocked' ? 'danger' : 'warning'} className="consolidation-note">
              <Messages messages={shown.check.messages} />
            </Callout>
          )}
          {shown.rows.length === 0 ? (
            <p className="muted">No figures for {period}: the period is blocked until its messages are fixed and the consolidation is run again.</p>
          ) : (
            <TrialBalanceTable results={shown} onDrill={(r) => setDrill({ target: { period, groupAccount: r.groupAccount }, title: `${r.groupAccount} ${r.name}, ${period}` })} />
          )}
        </>
      )}
      <DrilldownDialog orgId={orgId} target={drill?.target} title={drill?.title ?? 'Drill-down'} currency={currency} onClose={() => setDrill(undefined)} />
    </section>
  );
}

/** Run the consolidation, see each month's checks and lock it, and read a month's consolidated trial balance. */
export function RunsTab({ orgId, overview, lastRun, onRun }: { orgId: string; overview: Overview; lastRun: RunOutcome | undefined; onRun: (r: RunOutcome | undefined) => void }) {
  const periods = overview.checks.map((c) => c.period);
  const [chosen, setChosen] = useState<string>();
  const period = shownPeriod(periods, chosen);
  return (
    <>
      <RunSection orgId={orgId} lastRun={lastRun} onRun={onRun} />
      <PeriodsSection orgId={orgId} overview={overview} onShow={setChosen} />
      <TrialBalanceSection orgId={orgId} periods={periods} period={period} onPeriod={setChosen} currency={overview.settings.presentationCurrency} />
    </>
  );
}
