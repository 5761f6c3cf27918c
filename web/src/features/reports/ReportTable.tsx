import { Button, HTMLTable } from '@blueprintjs/core';
import { formatAmount } from '../../shared/consolidation/words';
import type { ReportAnswer, ReportRowAnswer } from './api/reports';

/** A figure for people: amounts with thousands separators, percentages with their sign. */
export function formatFigure(value: string | null, format: 'amount' | 'percent'): string {
  if (value === null) return '—';
  return format === 'percent' ? `${formatAmount(value, 1)} %` : formatAmount(value);
}

const ROW_CLASS: Record<ReportRowAnswer['kind'], string> = { section: 'report-section', group: 'report-group', account: 'report-account', subtotal: 'report-subtotal', total: 'report-total', formula: 'report-formula' };

/**
 * A report's lines and columns. An account's figure in an entity, eliminations, NCI or
 * consolidated column opens its drill-down; a missing figure says why (its notes).
 */
export function ReportTable({ report, onDrill }: { report: ReportAnswer; onDrill?: (account: string, label: string) => void }) {
  const drillable = (i: number) => report.columns[i]!.format === 'amount' && !['variance', 'comparison'].includes(report.columns[i]!.key);
  return (
    <div className="table-scroll report-scroll">
      <HTMLTable compact className="full-width report-table" aria-label={report.title}>
        <thead>
          <tr>
            <th scope="col">Line</th>
            {report.columns.map((c) => (
              <th key={c.key} scope="col" className="amount">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {report.rows.map((r, ri) => (
            <tr key={`${ri}:${r.label}`} className={ROW_CLASS[r.kind]}>
              <th scope="row" style={{ paddingLeft: `${0.5 + r.depth * 1.25}rem` }}>
                {r.label}
                {r.notes?.map((n) => (
                  <div key={n} className="report-note" role="note">
                    {n}
                  </div>
                ))}
              </th>
              {r.values.map((v, i) => {
                const format = r.format ?? report.columns[i]!.format;
                const text = r.kind === 'section' || r.kind === 'group' ? '' : formatFigure(v, format);
                return (
                  <td key={report.columns[i]!.key} className="amount">
                    {r.account && onDrill && drillable(i) && v !== null ? (
                      <Button minimal small className="figure-button" onClick={() => onDrill(r.account!, r.label)} aria-label={`${r.label}, ${report.columns[i]!.label}: ${text}. Open what makes it`}>
                        {text}
                      </Button>
                    ) : (
                      text
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </HTMLTable>
    </div>
  );
}
