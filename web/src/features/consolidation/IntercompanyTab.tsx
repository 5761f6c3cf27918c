import { Button, Callout, H4, HTMLTable, NonIdealState, Spinner, Tag } from '@blueprintjs/core';
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useIntercompanyMappings, type MappingRow } from './api/mappings';
import type { Entity, GroupAccount } from './api/overview';
import { useResults } from './api/results';
import { MappingDialog } from './MappingDialog';
import { PeriodSelect, shownPeriod } from './PeriodSelect';
import { CATEGORY_WORDS, formatAmount, inWords } from '../../shared/consolidation/words';

function IntercompanyAccounts({ orgId, entities, accounts }: { orgId: string; entities: Entity[]; accounts: GroupAccount[] }) {
  const { mappings, isLoading, error } = useIntercompanyMappings(orgId);
  const [editing, setEditing] = useState<MappingRow | null>(null);
  const entityName = (key: string | null) => (key ? (entities.find((e) => e.entity === key)?.name ?? key) : '');
  const accountName = (code: string | null) => (code ? `${code} ${accounts.find((a) => a.code === code)?.name ?? ''}`.trim() : '');
  return (
    <section aria-label="Intercompany accounts" className="tab-section">
      <H4>Intercompany accounts</H4>
      {isLoading ? (
        <Spinner size={24} />
      ) : error ? (
        <Callout intent="danger" role="alert">
          {(error as Error).message}
        </Callout>
      ) : mappings.length === 0 ? (
        <NonIdealState icon="link" title="No intercompany account yet" description="On the Mapping tab, edit an account held with another entity of the group and choose its counterparty and category." />
      ) : (
        <div className="table-scroll">
          <HTMLTable striped compact className="full-width consolidation-table" aria-label="Intercompany accounts">
            <thead>
              <tr>
                <th>Entity</th>
                <th>Source account</th>
                <th className="wide-only">Group account</th>
                <th>Counterparty</th>
                <th className="wide-only">Category</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {mappings.map((m) => (
                <tr key={`${m.entity}\u0000${m.sourceAccount}`}>
                  <td>{entityName(m.entity)}</td>
                  <td>
                    {m.sourceAccount} {m.sourceAccountName && <span className="muted">{m.sourceAccountName}</span>}
                  </td>
                  <td className="wide-only">{accountName(m.groupAccount)}</td>
                  <td>{entityName(m.icCounterparty)}</td>
                  <td className="wide-only">{inWords(CATEGORY_WORDS, m.icCategory)}</td>
                  <td className="actions-cell">
                    <Button small icon="edit" text="Edit" aria-label={`Edit mapping of ${entityName(m.entity)} ${m.sourceAccount}`} onClick={() => setEditing(m)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </HTMLTable>
        </div>
      )}
      <MappingDialog orgId={orgId} row={editing} entities={entities} accounts={accounts} onClose={() => setEditing(null)} />
    </section>
  );
}

function Mismatches({ orgId, periods }: { orgId: string; periods: string[] }) {
  const [chosen, setChosen] = useState<string>();
  const [params, setParams] = useSearchParams();
  // "Book an adjustment": the Journals tab opens with the difference pre-filled (JournalsTab reads ?adjust=).
  const onAdjust = (key: string) => {
    const next = new URLSearchParams(params);
    next.set('tab', 'journals');
    next.set('adjust', key);
    setParams(next, { replace: true });
  };
  const period = shownPeriod(periods, chosen);
  const { results, isLoading, error } = useResults(orgId, period);
  const shown = results?.period === period ? results : undefined;
  return (
    <section aria-label="Intercompany mismatches" className="tab-section">
      <div className="card-head">
        <H4>Mismatches</H4>
        {periods.length > 0 && <PeriodSelect id="mismatch-period" periods={periods} value={period} onChange={setChosen} />}
      </div>
      {periods.length === 0 ? (
        <NonIdealState icon="search-template" title="No consolidation yet: run it" description="The mismatch report of a month shows once the month is consolidated (Runs and locks)." />
      ) : isLoading && !shown ? (
        <Spinner size={24} />
      ) : error ? (
        <Callout intent="danger" role="alert">
          {(error as Error).message}
        </Callout>
      ) : !shown ? null : shown.mismatches.length === 0 ? (
        <p className="muted">No intercompany mismatch in {period}: every pair agrees.</p>
      ) : (
        <div className="table-scroll">
          <HTMLTable striped compact className="full-width consolidation-table" aria-label={`Intercompany mismatches of ${period}`}>
            <thead>
              <tr>
                <th>Pair</th>
                <th className="wide-only">Category</th>
                <th className="amount wide-only">Entity's amount</th>
                <th className="amount wide-only">Counterparty's amount</th>
                <th className="amount">Difference</th>
                <th>Tolerance</th>
                <th className="wide-only">Likely cause</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {shown.mismatches.map((m) => (
                <tr key={`${m.entityA}\u0000${m.entityB}\u0000${m.category}`}>
                  <td>
                    {m.entityAName} and {m.entityBName}
                  </td>
                  <td className="wide-only">{inWords(CATEGORY_WORDS, m.category)}</td>
                  <td className="amount wide-only">{formatAmount(m.amountA)}</td>
                  <td className="amount wide-only">{formatAmount(m.amountB)}</td>
                  <td className="amount">{formatAmount(m.difference)}</td>
                  <td>{m.withinTolerance ? <Tag intent="success" minimal>Within tolerance</Tag> : <Tag intent="danger" minimal>Outside tolerance</Tag>}</td>
                  <td className="wide-only">{m.likelyCause}</td>
                  <td className="actions-cell">
                    <Button small icon="manual" text="Book an adjustment" aria-label={`Book an adjustment for ${m.entityAName} and ${m.entityBName}`} onClick={() => onAdjust(`${period}|${m.entityA}|${m.entityB}|${m.category}`)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </HTMLTable>
        </div>
      )}
    </section>
  );
}

/** The accounts marked intercompany and, per consolidated month, the pairs that do not agree. */
export function IntercompanyTab({ orgId, entities, accounts, periods }: { orgId: string; entities: Entity[]; accounts: GroupAccount[]; periods: string[] }) {
  return (
    <>
      <IntercompanyAccounts orgId={orgId} entities={entities} accounts={accounts} />
      <Mismatches orgId={orgId} periods={periods} />
    </>
  );
}
