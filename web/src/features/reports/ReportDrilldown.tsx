import { Button, Callout, Dialog, DialogBody, H4, HTMLTable, Spinner } from '@blueprintjs/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { CATEGORY_WORDS, ENTRY_KIND_WORDS, inWords, RATE_KIND_WORDS } from '../../shared/consolidation/words';
import { formatFigure } from './ReportTable';
import { useFlowDrilldown, useReportDrilldown, type DrilldownAnswer, type DrillTarget, type FlowDrillTarget, type FlowDrilldownAnswer } from './api/reports';

/** A drill-down's answer once it is there: a spinner while it loads, the api's message when it fails. The focus stays in the dialog as `focusKey` changes (the button clicked goes away). */
function Loaded<T>({ answer, error, isLoading, focusKey, children }: { answer: T | undefined; error: unknown; isLoading: boolean; focusKey?: string; children: (d: T) => ReactNode }) {
  const focus = useRef<HTMLDivElement>(null);
  useEffect(() => focus.current?.focus(), [focusKey]);
  return (
    <div ref={focus} tabIndex={-1} className="run-detail-focus" aria-label="Drill-down">
      {isLoading && !answer ? (
        <Spinner size={24} />
      ) : error || !answer ? (
        <Callout intent="danger" role="alert">
          {(error as Error | undefined)?.message ?? 'Failed to load the drill-down'}
        </Callout>
      ) : (
        children(answer)
      )}
    </div>
  );
}

/** Two levels: the entities (and the group's own entries) behind a figure, then one entity's source accounts. */
function Body({ orgId, target, parens, onEntity }: { orgId: string; target: DrillTarget; parens: boolean; onEntity: (entity: string) => void }) {
  const { drilldown, error, isLoading } = useReportDrilldown(orgId, target);
  return (
    <Loaded answer={drilldown} error={error} isLoading={isLoading} focusKey={target.entity}>
      {(d) => <Level d={d} parens={parens} onEntity={onEntity} />}
    </Loaded>
  );
}

/**
 * One level, in the report's own signs (the answer's), figures right-aligned, and a total row:
 * what the lines add up to, the report's figure.
 */
function Level({ d, parens, onEntity }: { d: DrilldownAnswer; parens: boolean; onEntity: (entity: string) => void }) {
  const money = (v: string) => formatFigure(v, 'amount', parens);
  const total = (label: string, cols: number) => (
    <tfoot>
      <tr>
        <th scope="row" colSpan={cols}>
          {label}
        </th>
        <td className="amount">{money(d.total)}</td>
      </tr>
    </tfoot>
  );
  return (
    <>
      <p className="muted">
        {d.groupAccount} {d.groupAccountName}, {d.months.length === 1 ? d.months[0] : `${d.months[0]} to ${d.months.at(-1)}`}, in {d.currency}
        {d.note ? `. ${d.note}` : ''}
      </p>
      {d.level === 'entities' ? (
        <>
          <H4>Entities</H4>
          {d.entities.length === 0 ? (
            <p className="muted">No entity has a figure here.</p>
          ) : (
            <HTMLTable compact striped className="full-width drilldown-table" aria-label="Entities">
              <thead>
                <tr>
                  <th>Entity</th>
                  <th className="amount">Amount</th>
                </tr>
              </thead>
              <tbody>
                {d.entities.map((e) => (
                  <tr key={e.entity}>
                    <td>
                      <Button minimal small onClick={() => onEntity(e.entity)} aria-label={`${e.entityName}: its source accounts`}>
                        {e.entityName}
                      </Button>
                    </td>
                    <td className="amount">{money(e.amount)}</td>
                  </tr>
                ))}
              </tbody>
              {d.entries.length === 0 && total(`Total, as the report shows it`, 1)}
            </HTMLTable>
          )}
          <H4>Group entries</H4>
          {d.entries.length === 0 ? (
            <p className="muted">No elimination, intercompany difference or NCI entry on this account.</p>
          ) : (
            <HTMLTable compact striped className="full-width drilldown-table" aria-label="Group entries">
              <thead>
                <tr>
                  <th>Kind</th>
                  <th>Entity</th>
                  <th>Counterparty</th>
                  <th className="amount">Amount</th>
                </tr>
              </thead>
              <tbody>
                {d.entries.map((x, i) => (
                  <tr key={i}>
                    <td>
                      {inWords(ENTRY_KIND_WORDS, x.kind)}
                      {x.category && <span className="muted"> {inWords(CATEGORY_WORDS, x.category)}</span>}
                    </td>
                    <td>{x.entityName ?? ''}</td>
                    <td>{x.counterpartyName ?? ''}</td>
                    <td className="amount">{money(x.amount)}</td>
                  </tr>
                ))}
              </tbody>
              {total('Total of the entities and the group entries, as the report shows it', 3)}
            </HTMLTable>
          )}
        </>
      ) : (
        <>
          <H4>{d.entityName}: source accounts</H4>
          {d.sources.length === 0 ? (
            <p className="muted">No source account of this entity is mapped here.</p>
          ) : (
            <HTMLTable compact striped className="full-width drilldown-table" aria-label="Source accounts">
              <thead>
                <tr>
                  <th>Source account</th>
                  <th className="amount">Local amount</th>
                  <th>Rate</th>
                  <th className="amount">In {d.currency}</th>
                </tr>
              </thead>
              <tbody>
                {d.sources.map((s) => (
                  <tr key={`${s.sourceAccount}:${s.currency}`}>
                    <td>
                      {s.label}
                    </td>
                    <td className="amount">
                      {formatFigure(s.localAmount, 'amount', parens)} {s.currency}
                    </td>
                    <td>
                      {inWords(RATE_KIND_WORDS, s.rateKind)}
                      {s.rate !== null && s.rateKind !== 'same' ? <span className="muted"> {s.rate}</span> : s.rate === null ? <span className="muted"> (each month's)</span> : null}
                    </td>
                    <td className="amount">{money(s.amount)}</td>
                  </tr>
                ))}
                {d.entries.map((x) => (
                  <tr key={x.kind}>
                    <td colSpan={3}>{inWords(ENTRY_KIND_WORDS, x.kind)}</td>
                    <td className="amount">{money(x.amount)}</td>
                  </tr>
                ))}
                {d.earlierProfit && (
                  <tr>
                    <td colSpan={3}>Profit of the range's earlier months (in profit for the period)</td>
                    <td className="amount">{money(d.earlierProfit)}</td>
                  </tr>
                )}
              </tbody>
              {total(`Total for ${d.entityName}, as the report shows it`, 3)}
            </HTMLTable>
          )}
        </>
      )}
    </>
  );
}

/**
 * A line of comprehensive income, changes in equity or the cash flow: its parts by entity (or the
 * eliminations, NCI, adjustments) and group account, in the line's signs, the rounding the
 * translated flows leave, and the total: the figure clicked.
 */
function FlowBody({ orgId, target, parens }: { orgId: string; target: FlowDrillTarget; parens: boolean }) {
  const { drilldown, error, isLoading } = useFlowDrilldown(orgId, target);
  return (
    <Loaded answer={drilldown} error={error} isLoading={isLoading}>
      {(d) => <FlowLevel d={d} parens={parens} />}
    </Loaded>
  );
}

function FlowLevel({ d, parens }: { d: FlowDrilldownAnswer; parens: boolean }) {
  const money = (v: string) => formatFigure(v, 'amount', parens);
  return (
    <>
      <p className="muted">
        {d.title}: {d.label}, {d.columnLabel}, {d.range.label}, in {d.currency}
        {d.note ? `. ${d.note}` : ''}
      </p>
      {d.parts.length === 0 && !d.rounding ? (
        <p className="muted">Nothing makes this figure: no entity or entry moved these accounts.</p>
      ) : (
        <HTMLTable compact striped className="full-width drilldown-table" aria-label="Entities and accounts">
          <thead>
            <tr>
              <th>Entity or entries</th>
              <th>Account</th>
              <th className="amount">Amount</th>
            </tr>
          </thead>
          <tbody>
            {d.parts.map((p) => (
              <tr key={`${p.column}:${p.account}`}>
                <td>{p.columnLabel}</td>
                <td>
                  {p.account} {p.accountName}
                </td>
                <td className="amount">{money(p.amount)}</td>
              </tr>
            ))}
            {d.rounding && (
              <tr>
                <td colSpan={2}>Rounding of the translated flows (each line rounded once per column)</td>
                <td className="amount">{money(d.rounding)}</td>
              </tr>
            )}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                Total, as the report shows it
              </th>
              <td className="amount">{money(d.total)}</td>
            </tr>
          </tfoot>
        </HTMLTable>
      )}
    </>
  );
}

const isFlow = (t: DrillTarget | FlowDrillTarget): t is FlowDrillTarget => 'line' in t;

export function ReportDrilldown({ orgId, target, title, parens = false, onClose }: { orgId: string; target: DrillTarget | FlowDrillTarget | undefined; title: string; parens?: boolean; onClose: () => void }) {
  const [entity, setEntity] = useState<string>();
  useEffect(() => setEntity(undefined), [target]);
  return (
    <Dialog isOpen={!!target} onClose={onClose} title={`What makes ${title}`} className="drilldown-dialog" {...KEYBOARD_DIALOG}>
      <DialogBody>
        {target && isFlow(target) && <FlowBody orgId={orgId} target={target} parens={parens} />}
        {target && !isFlow(target) && (
          <>
            {entity && (
              <Button icon="arrow-left" minimal onClick={() => setEntity(undefined)}>
                All entities
              </Button>
            )}
            <Body orgId={orgId} target={{ ...target, entity }} parens={parens} onEntity={setEntity} />
          </>
        )}
      </DialogBody>
    </Dialog>
  );
}
