import { Callout, Dialog, DialogBody, H4, HTMLTable, Spinner } from '@blueprintjs/core';
import { useEffect, useRef } from 'react';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { useDrilldown, type DrilldownTarget } from './api/results';
import { CATEGORY_WORDS, ENTRY_KIND_WORDS, formatAmount, inWords, RATE_KIND_WORDS } from '../../shared/consolidation/words';

function DrilldownBody({ orgId, target, currency }: { orgId: string; target: DrilldownTarget; currency: string }) {
  const { drilldown, error, isLoading } = useDrilldown(orgId, target);
  const focusTarget = useRef<HTMLDivElement>(null);
  useEffect(() => focusTarget.current?.focus(), []);
  return (
    <DialogBody className="drilldown">
      <div ref={focusTarget} tabIndex={-1} className="run-detail-focus" aria-label="Drill-down">
        {isLoading && !drilldown ? (
          <Spinner size={24} />
        ) : error || !drilldown ? (
          <Callout intent="danger" role="alert">
            {(error as Error | undefined)?.message ?? 'Failed to load the drill-down'}
          </Callout>
        ) : (
          <>
            <H4>Lines</H4>
            {drilldown.lines.length === 0 ? (
              <p className="muted">No entity line: the figure comes from the consolidation's own entries.</p>
            ) : (
              <div className="table-scroll">
                <HTMLTable striped compact className="full-width consolidation-table" aria-label="Translated lines">
                  <thead>
                    <tr>
                      <th>Entity</th>
                      <th>Source account</th>
                      <th className="amount">Local amount</th>
                      <th>Rate</th>
                      <th className="amount">In {currency}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {drilldown.lines.map((l) => (
                      <tr key={`${l.entity}\u0000${l.sourceAccount}`}>
                        <td>{l.entityName}</td>
                        <td>
                          {l.sourceAccount} {l.sourceAccountName && <span className="muted">{l.sourceAccountName}</span>}
                        </td>
                        <td className="amount">
                          {formatAmount(l.localAmount)} {l.currency}
                        </td>
                        <td>
                          {inWords(RATE_KIND_WORDS, l.rateKind)}
                          {l.rate !== null && l.rateKind !== 'same' && <span className="muted"> {l.rate}</span>}
                        </td>
                        <td className="amount">{formatAmount(l.presentationAmount)}</td>
                      </tr>
                    ))}
                  </tbody>
                </HTMLTable>
              </div>
            )}
            <H4>Entries</H4>
            {drilldown.entries.length === 0 ? (
              <p className="muted">No consolidation entry on this account.</p>
            ) : (
              <div className="table-scroll">
                <HTMLTable striped compact className="full-width consolidation-table" aria-label="Consolidation entries">
                  <thead>
                    <tr>
                      <th>Kind</th>
                      <th>Entity</th>
                      <th>Memo</th>
                      <th className="amount">Amount</th>
                    </tr>
                  </thead>
                  <tbody>
                    {drilldown.entries.map((x, i) => (
                      <tr key={`${x.entryId}-${i}`}>
                        <td>{inWords(ENTRY_KIND_WORDS, x.kind)}</td>
                        <td>
                          {x.entityName ?? ''}
                          {x.category && <div className="muted">{inWords(CATEGORY_WORDS, x.category)}</div>}
                        </td>
                        <td>
                          {x.memo}
                          {x.journal && (
                            <div className="muted" data-journal={x.journal.reference}>
                              Journal {x.journal.reference}
                              {x.journal.memo && x.journal.memo !== x.memo ? `: ${x.journal.memo}` : ''}; booked by {x.journal.author ?? 'unknown'}
                              {x.journal.approver ? `, approved by ${x.journal.approver}` : ''}
                            </div>
                          )}
                        </td>
                        <td className="amount">{formatAmount(x.amount)}</td>
                      </tr>
                    ))}
                  </tbody>
                </HTMLTable>
              </div>
            )}
          </>
        )}
      </div>
    </DialogBody>
  );
}

/** What makes one consolidated figure: each entity's translated lines (source account, rate) and the entries on it. */
export function DrilldownDialog({ orgId, target, title, currency, onClose }: { orgId: string; target: DrilldownTarget | undefined; title: string; currency: string; onClose: () => void }) {
  return (
    <Dialog {...KEYBOARD_DIALOG} isOpen={Boolean(target)} onClose={onClose} title={title} className="drilldown-dialog">
      {target && <DrilldownBody orgId={orgId} target={target} currency={currency} />}
    </Dialog>
  );
}
