import { Button, HTMLTable } from '@blueprintjs/core';
import { useEffect, useRef, useState } from 'react';
import { formatAmount } from '../../shared/consolidation/words';
import type { ReportAnswer, ReportRowAnswer } from './api/reports';

/**
 * A figure for people: amounts with thousands separators, percentages with their sign, "n/m"
 * for a variance % on a base near zero; negatives in parentheses when `parens` (the user's choice).
 */
export function formatFigure(value: string | null, format: 'amount' | 'percent', parens = false): string {
  if (value === null) return '—';
  if (value === 'n/m') return 'n/m';
  const text = format === 'percent' ? `${formatAmount(value, 1)} %` : formatAmount(value);
  return parens && text.startsWith('-') ? `(${text.slice(1)})` : text;
}

const ROW_CLASS: Record<ReportRowAnswer['kind'], string> = { section: 'report-section', group: 'report-group', account: 'report-account', subtotal: 'report-subtotal', total: 'report-total', formula: 'report-formula' };

/** Columns a phone leaves out when the consolidated figure is there: each entity's, eliminations and NCI. */
const byEntity = (key: string) => key.startsWith('entity:') || key === 'eliminations' || key === 'nci';

/**
 * A report's lines and columns. The row labels and the header stay in view (sticky) while the
 * table scrolls sideways inside its own box, and the Consolidated column is pinned on the right,
 * so it is always in view with any number of entity columns. On a phone only the line and the
 * consolidated figure show; a tap on the line opens its entities. A new report (`reportKey`)
 * starts at its left edge. An account's figure opens its drill-down; a missing figure says why.
 */
export function ReportTable({ report, reportKey, parens = false, onDrill, onDrillLine }: { report: ReportAnswer; reportKey?: string; parens?: boolean; onDrill?: (account: string, label: string) => void; onDrillLine?: (line: string, column: string, label: string) => void }) {
  const drillable = (i: number) => report.columns[i]!.format === 'amount' && !['variance', 'comparison', 'budget'].includes(report.columns[i]!.key);
  // A line of comprehensive income, changes in equity or the cash flow opens in any column but the variance.
  const lineDrillable = (i: number) => report.columns[i]!.format === 'amount' && report.columns[i]!.key !== 'variance';
  const hasConsolidated = report.columns.some((c) => c.key === 'consolidated');
  const colClass = (key: string) => `amount${key === 'consolidated' ? ' pinned-right' : ''}${hasConsolidated && byEntity(key) ? ' wide-only' : ''}`;
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (scroller.current) scroller.current.scrollLeft = 0;
  }, [reportKey]);
  const [open, setOpen] = useState<number | null>(null);
  return (
    <div className="table-scroll report-scroll" ref={scroller}>
      <HTMLTable compact className="full-width report-table" aria-label={report.title}>
        <thead>
          <tr>
            <th scope="col" className="row-label">
              Line
            </th>
            {report.columns.map((c) => (
              <th key={c.key} scope="col" className={colClass(c.key)}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {report.rows.map((r, ri) => {
            const cells = r.values.map((v, i) => {
              const format = r.format ?? report.columns[i]!.format;
              return r.kind === 'section' || r.kind === 'group' ? '' : formatFigure(v, format, parens);
            });
            const tappable = hasConsolidated && r.kind !== 'section' && r.kind !== 'group';
            return (
              <tr key={`${ri}:${r.label}`} className={ROW_CLASS[r.kind]}>
                <th scope="row" className="row-label" style={{ paddingLeft: `${0.5 + r.depth * 1.25}rem` }}>
                  <span className={tappable ? 'wide-label' : undefined}>{r.label}</span>
                  {tappable && (
                    <button type="button" className="phone-only row-tap" aria-expanded={open === ri} onClick={() => setOpen(open === ri ? null : ri)}>
                      {r.label}
                    </button>
                  )}
                  {open === ri && (
                    <dl className="phone-only row-entities">
                      {report.columns.map((c, i) =>
                        byEntity(c.key) ? (
                          <div key={c.key}>
                            <dt>{c.label}</dt>
                            <dd>{cells[i]}</dd>
                          </div>
                        ) : null,
                      )}
                    </dl>
                  )}
                  {r.notes?.map((n) => (
                    <div key={n} className="report-note" role="note">
                      {n}
                    </div>
                  ))}
                </th>
                {r.values.map((v, i) => {
                  const text = cells[i]!;
                  const c = report.columns[i]!;
                  return (
                    <td key={c.key} className={colClass(c.key)}>
                      {r.account && onDrill && drillable(i) && v !== null ? (
                        <Button minimal small className="figure-button" onClick={() => onDrill(r.account!, r.label)} aria-label={`${r.label}, ${c.label}: ${text}. Open what makes it`}>
                          {text}
                        </Button>
                      ) : r.drill && onDrillLine && lineDrillable(i) && v !== null ? (
                        <Button minimal small className="figure-button" onClick={() => onDrillLine(r.drill!, c.key, `${r.label}, ${c.label}`)} aria-label={`${r.label}, ${c.label}: ${text}. Open what makes it`}>
                          {text}
                        </Button>
                      ) : (
                        text
                      )}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </HTMLTable>
    </div>
  );
}
