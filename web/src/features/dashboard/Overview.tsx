// The built-in overview the Dashboard shows when the organization has no embedded dashboard:
// revenue, gross margin, net income and cash by month and the contribution by entity, as charts
// (chart.js, loaded only here through React.lazy) and as tables with the same exact figures.
import { Button, Callout, H3, HTMLSelect, HTMLTable, NonIdealState, Spinner } from '@blueprintjs/core';
import { lazy, Suspense, useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { paths } from '../../app/paths';
import { ApiRequestError } from '../../lib/api-client';
import { formatMoment, useFreshness } from '../../shared/reports/freshness';
import { useDashboardOverview, type OverviewMonthAnswer } from './api/overview';
import { amountText, contributionRows } from './overview-format';

const OverviewCharts = lazy(() => import('./OverviewCharts'));

export const NO_FIGURES = 'No consolidated figures yet';
export const MONTH_CHOICES = [6, 12, 24, 36] as const;

function Loading({ text }: { text: string }) {
  return (
    <div className="overview-loading" role="status">
      <Spinner size={20} />
      <span>{text}</span>
    </div>
  );
}

function Empty({ reason }: { reason: string }) {
  return (
    <NonIdealState
      icon="timeline-bar-chart"
      title={NO_FIGURES}
      description={reason}
      action={
        <Link className="bp5-button bp5-intent-primary" to={paths.consolidation}>
          Open Consolidation
        </Link>
      }
    />
  );
}

/** The months shown: from the first the consolidation produced (earlier ones would be an empty run of gaps). */
function shownMonths(months: OverviewMonthAnswer[]): OverviewMonthAnswer[] {
  const first = months.findIndex((m) => m.status !== 'missing');
  return first < 0 ? [] : months.slice(first);
}

const fig = (v: string | null) => (v === null ? '—' : amountText(v));

export function Overview({ orgId }: { orgId: string }) {
  const [months, setMonths] = useState<number>(12);
  const { overview, error, isLoading, mutate } = useDashboardOverview(orgId, months);
  // The version check: a consolidation that lands refreshes the overview without a reload.
  const { freshness } = useFreshness(orgId);
  const shown = useMemo(() => shownMonths(overview?.months ?? []), [overview]);

  if (isLoading && !overview) return <Loading text="Loading the overview..." />;
  if (error) {
    // 400: the organization has no database yet (not onboarded): nothing to consolidate.
    if (error instanceof ApiRequestError && error.status === 400) return <Empty reason={error.message} />;
    return (
      <Callout intent="danger" role="alert" title="The overview could not be loaded">
        <p>{(error as Error).message}</p>
        <Button text="Retry" onClick={() => void mutate()} />
      </Callout>
    );
  }
  const gaps = shown.filter((m) => m.status === 'missing');
  const blocked = shown.filter((m) => m.status === 'blocked');
  const couldNotRun = blocked.length ? `The consolidation could not run for ${blocked.map((m) => m.label).join(', ')}: ${blocked[0]!.messages[0] ?? 'see its checks'}.` : '';
  if (!overview || !shown.some((m) => m.status === 'ok')) return <Empty reason={couldNotRun || 'Run the consolidation to see revenue, gross margin, net income and cash by month here.'} />;

  const { currency } = overview;
  const parts = contributionRows(overview.contribution);
  const first = shown[0]!;
  const last = shown[shown.length - 1]!;
  const range = first === last ? first.label : `${first.label} to ${last.label}`;

  return (
    <div className="overview" aria-busy={isLoading}>
      <div className="card-head">
        <H3>Overview</H3>
        <label className="overview-months">
          Show{' '}
          <HTMLSelect value={String(months)} onChange={(e) => setMonths(Number(e.target.value))} aria-label="Months shown">
            {MONTH_CHOICES.map((n) => (
              <option key={n} value={n}>
                Last {n} months
              </option>
            ))}
          </HTMLSelect>
        </label>
      </div>
      <p className="overview-range">
        {range}, in {currency}
      </p>
      <p className="muted overview-freshness">Data as of {(freshness?.dataAsOf ?? overview.dataAsOf) ? formatMoment((freshness?.dataAsOf ?? overview.dataAsOf)!) : 'no consolidation yet'}</p>
      {(freshness?.stale ?? overview.stale) && (
        <Callout intent="warning" className="overview-notice">
          The {(freshness?.stale ?? overview.stale)!.what} of {formatMoment((freshness?.stale ?? overview.stale)!.at)} is not consolidated yet: these figures do not include it. <Link to={paths.consolidation}>Open Consolidation</Link> to run it.
        </Callout>
      )}
      {gaps.length > 0 && (
        <Callout intent="primary" className="overview-notice">
          Not consolidated yet: {gaps.map((m) => m.label).join(', ')}. Run the consolidation to see these months.
        </Callout>
      )}
      {blocked.length > 0 && (
        <Callout intent="warning" className="overview-notice">
          {couldNotRun}
        </Callout>
      )}
      <Suspense fallback={<Loading text="Loading the charts..." />}>
        <OverviewCharts months={shown} overview={overview} />
      </Suspense>
      <div className="overview-tables">
        <div className="table-scroll">
          <HTMLTable className="overview-table" compact striped aria-label="Figures by month">
            <caption>Figures by month, in {currency}</caption>
            <thead>
              <tr>
                <th scope="col">Month</th>
                <th scope="col" className="amount">Revenue</th>
                <th scope="col" className="amount">Gross margin</th>
                <th scope="col" className="amount">Net income</th>
                <th scope="col" className="amount">Cash</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((m) => (
                <tr key={m.period}>
                  <th scope="row">
                    {m.label}
                    {m.status !== 'ok' && <span className="overview-missing"> ({m.status === 'blocked' ? 'could not run' : 'not consolidated'})</span>}
                  </th>
                  <td className="amount">{fig(m.revenue)}</td>
                  <td className="amount">{fig(m.grossMargin)}</td>
                  <td className="amount">{fig(m.netIncome)}</td>
                  <td className="amount">{fig(m.cash)}</td>
                </tr>
              ))}
            </tbody>
          </HTMLTable>
        </div>
        <div className="table-scroll">
          <HTMLTable className="overview-table" compact striped aria-label="Contribution by entity">
            <caption>
              Contribution to net income, {range}, in {currency}
            </caption>
            <thead>
              <tr>
                <th scope="col">Entity</th>
                <th scope="col" className="amount">Profit</th>
              </tr>
            </thead>
            <tbody>
              {parts.map((p) => (
                <tr key={p.label}>
                  <th scope="row">{p.label}</th>
                  <td className="amount">{amountText(p.value)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Net income attributable to owners</th>
                <td className="amount">{amountText(overview.contribution.netIncome)}</td>
              </tr>
            </tfoot>
          </HTMLTable>
        </div>
      </div>
    </div>
  );
}
