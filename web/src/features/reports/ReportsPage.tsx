import { Button, ButtonGroup, Callout, Card, Checkbox, FormGroup, H2, HTMLSelect, NonIdealState, Spinner, Tab, Tabs, Tag } from '@blueprintjs/core';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { paths } from '../../app/paths';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { toast } from '../../components/toaster';
import { useSession } from '../../lib/session';
import { useConsolidatedPeriods } from '../../shared/consolidation/periods';
import { formatMoment, startConsolidation, useFreshness, useNegativesInParentheses } from '../../shared/reports/freshness';
import { deleteLayout, exportReport, useLayouts, useReport, type DrillTarget, type FlowDrillTarget, type ReportChoice } from './api/reports';
import { BudgetControls } from './BudgetControls';
import { LayoutEditor } from './LayoutEditor';
import { PacksPanel } from './PacksPanel';
import { ReportDrilldown } from './ReportDrilldown';
import { ReportTable } from './ReportTable';
import { HowItWorks } from '../../components/HowItWorks';

const STATEMENT_WORDS: [string, string][] = [
  ['statement:profit-and-loss', 'Profit and loss'],
  ['statement:balance-sheet', 'Balance sheet'],
  ['statement:trial-balance', 'Trial balance'],
  ['statement:comprehensive-income', 'Comprehensive income'],
  ['statement:changes-in-equity', 'Changes in equity'],
  ['statement:cash-flow', 'Cash flow'],
];
const RANGE_WORDS: [string, string][] = [
  ['month', 'Month'],
  ['quarter', 'Quarter'],
  ['ytd', 'Year to date'],
  ['year', 'Fiscal year'],
];
const COLUMN_WORDS: [string, string][] = [
  ['entities', 'Each entity'],
  ['eliminations', 'Eliminations'],
  ['nci', 'Non-controlling interests'],
  ['adjustments', 'Adjustments'],
  ['consolidated', 'Consolidated'],
];
const COMPARE_WORDS: [string, string][] = [
  ['', 'No comparison'],
  ['prior', 'Prior period'],
  ['lastYear', 'Same period last year'],
];

/** "31 March 2026" of "2026-03-31". */
const longDate = (d: string) => new Date(`${d}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
/** The last day of a month "YYYY-MM", "YYYY-MM-DD". */
const monthEndOf = (m: string) => new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0)).toISOString().slice(0, 10);

/**
 * Reports (issue 19): the built-in statements and the organization's custom reports over its
 * consolidated figures, for a month, quarter, year to date or fiscal year, by entity or compared
 * with an earlier period; any account figure drills down to entities and source accounts;
 * XLSX, CSV and print. Every choice is in the address, so a link or a reload shows the same report.
 */
export default function ReportsPage() {
  const { user } = useSession();
  const [picked, setPicked] = useState('');
  const orgId = useWorkingOrganization(user?.role, user?.organization_id, picked);
  const { periods: consolidated, error: overviewError, isLoading } = useConsolidatedPeriods(orgId);
  const { layouts } = useLayouts(orgId);
  const { freshness } = useFreshness(orgId);
  const [parens, setParens] = useNegativesInParentheses(user?.id);
  const [running, setRunning] = useState(false);
  const [params, setParams] = useSearchParams();
  const periods = consolidated ?? [];
  const choice: ReportChoice = {
    report: params.get('report') ?? 'statement:profit-and-loss',
    period: params.get('period') && periods.includes(params.get('period')!) ? params.get('period')! : (periods.at(-1) ?? ''),
    range: params.get('range') ?? 'month',
    columns: params.get('columns') ?? 'entities,eliminations,nci,adjustments,consolidated',
    compare: params.get('compare') ?? '',
    budget: params.get('budget') ?? '',
  };
  // A budget is beside the profit and loss and custom reports only.
  const budgetable = choice.report === 'statement:profit-and-loss' || choice.report.startsWith('custom:');
  const withBudget = budgetable && !!choice.budget;
  const { report, error, isLoading: loadingReport } = useReport(orgId, choice.period ? choice : undefined);
  const [drill, setDrill] = useState<{ target: DrillTarget | FlowDrillTarget; title: string }>();
  const [editing, setEditing] = useState<{ id?: string } | null>(null);
  const [exporting, setExporting] = useState('');
  const customId = choice.report.startsWith('custom:') ? choice.report.slice(7) : undefined;
  const custom = layouts?.find((l) => l.id === customId);

  function update(patch: Partial<ReportChoice> & { tab?: string }) {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    setParams(next, { replace: true });
  }
  const columns = new Set(choice.columns.split(',').filter(Boolean));
  function toggleColumn(c: string) {
    const next = new Set(columns);
    if (next.has(c)) next.delete(c);
    else next.add(c);
    if (next.size) update({ columns: COLUMN_WORDS.map(([k]) => k).filter((k) => next.has(k)).join(',') });
  }
  async function download(format: 'xlsx' | 'csv') {
    if (!report) return;
    setExporting(format);
    try {
      const name = `${report.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${report.range.from === report.range.to ? report.range.from : `${report.range.from}-to-${report.range.to}`}.${format}`;
      await exportReport(orgId, choice, format, name);
    } catch (e) {
      toast((e as Error).message, 'danger');
    } finally {
      setExporting('');
    }
  }
  async function remove() {
    if (!customId || !window.confirm(`Delete the report "${custom?.name ?? ''}"?`)) return;
    try {
      await deleteLayout(orgId, customId);
      update({ report: 'statement:profit-and-loss' });
      toast('Report deleted', 'success');
    } catch (e) {
      toast((e as Error).message, 'danger');
    }
  }

  async function run() {
    setRunning(true);
    try {
      await startConsolidation(orgId);
      toast('The consolidation is running: the figures refresh when it is done', 'primary');
    } catch (e) {
      toast((e as Error).message, 'danger');
    } finally {
      setRunning(false);
    }
  }

  const tabId = params.get('tab') === 'packs' ? 'packs' : 'reports';
  const allLocked = report && report.months.length > 0 && report.months.every((m) => m.locked);
  return (
    <div className="page reports-page">
      <H2>Reports</H2>
      <HowItWorks screen="reports" />
      {user?.role === 'admin' && <OrganizationPicker value={picked} onChange={setPicked} />}
      <Tabs id="reports-tabs" className="no-print" selectedTabId={tabId} onChange={(t) => update({ tab: t === 'packs' ? 'packs' : '' })}>
        <Tab id="reports" title="Statements and reports" />
        <Tab id="packs" title="Packs" />
      </Tabs>
      {/* The selected tab's panel (Blueprint's tabs name it by aria-controls; the panel's content is rendered here). */}
      <div role="tabpanel" id={`bp5-tab-panel_reports-tabs_${tabId}`} aria-labelledby={`bp5-tab-title_reports-tabs_${tabId}`}>
        {orgId && params.get('tab') === 'packs' ? (
          <PacksPanel orgId={orgId} periods={periods} />
        ) : !orgId ? (
          <NonIdealState icon="th" title={user?.role === 'admin' ? 'Pick an organization' : 'No organization'} description="Reports show one organization's figures." />
        ) : isLoading && !consolidated ? (
          <Spinner size={32} />
        ) : overviewError || !consolidated ? (
          <Callout intent="danger" role="alert">
            {(overviewError as Error | undefined)?.message ?? 'Failed to load the consolidation'}
          </Callout>
        ) : periods.length === 0 ? (
          <NonIdealState
            icon="th"
            title="No consolidated figures yet"
            description={
              <>
                Reports show the consolidated figures. Set the group up and run the consolidation on the <Link to={paths.consolidation}>Consolidation</Link> page first.
              </>
            }
          />
        ) : (
          <Card className="page-card">
            <div className="report-controls no-print">
              <FormGroup label="Report" labelFor="report-choice" inline>
                <HTMLSelect id="report-choice" value={choice.report} onChange={(e) => update({ report: e.target.value })}>
                  <optgroup label="Statements">
                    {STATEMENT_WORDS.map(([k, w]) => (
                      <option key={k} value={k}>
                        {w}
                      </option>
                    ))}
                  </optgroup>
                  {layouts && layouts.length > 0 && (
                    <optgroup label="Custom reports">
                      {layouts.map((l) => (
                        <option key={l.id} value={`custom:${l.id}`}>
                          {l.name}
                        </option>
                      ))}
                    </optgroup>
                  )}
                </HTMLSelect>
              </FormGroup>
              <FormGroup label="Month" labelFor="report-period" inline>
                <HTMLSelect id="report-period" value={choice.period} onChange={(e) => update({ period: e.target.value })}>
                  {periods.map((p) => (
                    <option key={p} value={p}>
                      {p}
                    </option>
                  ))}
                </HTMLSelect>
              </FormGroup>
              <FormGroup label="Range" labelFor="report-range" inline>
                <HTMLSelect id="report-range" value={choice.range} onChange={(e) => update({ range: e.target.value })}>
                  {RANGE_WORDS.map(([k, w]) => (
                    <option key={k} value={k}>
                      {w}
                    </option>
                  ))}
                </HTMLSelect>
              </FormGroup>
              <FormGroup label="Compare with" labelFor="report-compare" inline>
                <HTMLSelect id="report-compare" value={withBudget ? '' : choice.compare} onChange={(e) => update({ compare: e.target.value, budget: '' })}>
                  {COMPARE_WORDS.map(([k, w]) => (
                    <option key={k} value={k}>
                      {w}
                    </option>
                  ))}
                </HTMLSelect>
              </FormGroup>
              {budgetable && <BudgetControls orgId={orgId} value={choice.budget ?? ''} onChange={(budget) => update({ budget, compare: '' })} />}
              {!choice.compare && !withBudget && (
                <fieldset className="report-columns">
                  <legend>Columns</legend>
                  {COLUMN_WORDS.map(([k, w]) => (
                    <Checkbox key={k} inline label={w} checked={columns.has(k)} disabled={columns.has(k) && columns.size === 1} onChange={() => toggleColumn(k)} />
                  ))}
                </fieldset>
              )}
              <Checkbox inline label="Negatives in parentheses" checked={parens} onChange={(e) => setParens(e.currentTarget.checked)} />
              <ButtonGroup className="report-actions">
                <Button icon="download" disabled={!report || !!exporting} onClick={() => void download('xlsx')}>
                  {exporting === 'xlsx' ? 'Exporting...' : 'Export XLSX'}
                </Button>
                <Button icon="download" disabled={!report || !!exporting} onClick={() => void download('csv')}>
                  {exporting === 'csv' ? 'Exporting...' : 'Export CSV'}
                </Button>
                <Button icon="print" onClick={() => window.print()} disabled={!report}>
                  Print
                </Button>
              </ButtonGroup>
              <ButtonGroup className="report-actions">
                <Button icon="add" onClick={() => setEditing({})}>
                  New custom report
                </Button>
                {custom && (
                  <>
                    <Button icon="edit" onClick={() => setEditing({ id: custom.id })}>
                      Edit
                    </Button>
                    <Button icon="trash" intent="danger" minimal onClick={() => void remove()}>
                      Delete
                    </Button>
                  </>
                )}
              </ButtonGroup>
            </div>
            {error && !report ? (
              <Callout intent="danger" role="alert">
                {(error as Error).message}
              </Callout>
            ) : !report ? (
              <Spinner size={32} />
            ) : (
              <section className={loadingReport ? 'report loading' : 'report'} aria-busy={loadingReport}>
                <header className="report-header">
                  <h3>
                    {report.title} {allLocked ? <Tag intent="success" icon="lock">Locked</Tag> : <Tag minimal>Figures may change</Tag>}
                  </h3>
                  <p className="muted">
                    {report.asAt ? `As at ${longDate(report.asAt)}${report.compareRange ? '' : ` (profit for ${report.range.label})`}` : report.range.label}
                    {report.compareRange ? ` compared with ${report.asAt ? longDate(monthEndOf(report.compareRange.to)) : report.compareRange.label}` : ''}
                    {report.budget ? ` against the budget "${report.budget.name}" (version ${report.budget.version})` : ''}, in {report.currency}
                  </p>
                  <p className="muted report-freshness">
                    <span>Data as of {(freshness?.dataAsOf ?? report.dataAsOf) ? formatMoment((freshness?.dataAsOf ?? report.dataAsOf)!) : 'no consolidation yet'}</span>
                  </p>
                </header>
                {(freshness?.stale ?? report.stale) && (
                  <Callout intent="warning" className="report-notice" title="Newer data than these figures">
                    The {(freshness?.stale ?? report.stale)!.what} of {formatMoment((freshness?.stale ?? report.stale)!.at)} is not consolidated yet.{' '}
                    <Button small intent="primary" loading={running} onClick={() => void run()}>
                      Run the consolidation
                    </Button>
                  </Callout>
                )}
                {error && (
                  <Callout intent="danger" role="alert">
                    {(error as Error).message}
                  </Callout>
                )}
                {report.notices.filter((n) => !n.startsWith('Not consolidated since the ')).map((n) => (
                  <Callout key={n} intent="warning" className="report-notice">
                    {n}
                  </Callout>
                ))}
                {report.balanced && report.balanced.some((b) => !b) && (
                  <Callout intent="danger" role="alert">
                    {report.title} does not balance in: {report.columns.filter((_, i) => report.balanced![i] === false).map((c) => c.label).join(', ')}
                  </Callout>
                )}
                <ReportTable report={report} reportKey={`${choice.report}|${choice.period}|${choice.range}|${choice.compare}|${choice.budget}`} parens={parens}
                  onDrill={(account, label) => setDrill({ target: { period: report.range.to, range: report.range.kind, groupAccount: account, signs: choice.report === 'statement:trial-balance' ? 'net' : 'display' }, title: label })}
                  onDrillLine={(line, column, label) => setDrill({ target: { statement: choice.report.slice('statement:'.length), period: choice.period, range: choice.range, ...(choice.compare ? { compare: choice.compare } : { columns: choice.columns }), line, column }, title: label })}
                />
              </section>
            )}
          </Card>
        )}
      </div>
      <ReportDrilldown orgId={orgId} parens={parens} target={drill?.target} title={drill?.title ?? ''} onClose={() => setDrill(undefined)} />
      {editing && (
        <LayoutEditor
          orgId={orgId}
          id={editing.id}
          initial={editing.id ? custom?.layout : undefined}
          onClose={() => setEditing(null)}
          onSaved={(id) => {
            setEditing(null);
            toast('Report saved', 'success');
            update({ report: `custom:${id}` });
          }}
        />
      )}
    </div>
  );
}
