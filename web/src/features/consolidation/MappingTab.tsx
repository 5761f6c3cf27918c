import { Button, Callout, FormGroup, HTMLSelect, HTMLTable, NonIdealState, Spinner, Switch } from '@blueprintjs/core';
import { useEffect, useState } from 'react';
import { toast } from '../../components/toaster';
import { perPage, plural } from '../../lib/format';
import { acceptSuggestions, exportMappings, importMappings, saveMappings, useMappings, type MappingFilter, type MappingRow } from './api/mappings';
import type { Entity, GroupAccount } from './api/overview';
import { CsvExport, CsvImport } from './CsvImport';
import { AccountOptions, MappingDialog } from './MappingDialog';
import { CATEGORY_WORDS, inWords } from '../../shared/consolidation/words';

/** Source accounts of trial_balance and the group account each is mapped to, a page at a time. */
export function MappingTab({ orgId, entities, accounts }: { orgId: string; entities: Entity[]; accounts: GroupAccount[] }) {
  const [filter, setFilter] = useState<MappingFilter>({});
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<MappingRow | null>(null);
  const [busy, setBusy] = useState<string>();
  const list = useMappings(orgId, filter, page);
  const entityName = (key: string | null) => (key ? (entities.find((e) => e.entity === key)?.name ?? key) : '');
  const rowKey = (m: MappingRow) => `${m.entity}\u0000${m.sourceAccount}`;

  useEffect(() => {
    if (list.data && page > list.pages) setPage(list.pages);
  }, [list.data, list.pages, page]);

  function changeFilter(next: MappingFilter) {
    setFilter(next);
    setPage(1);
  }

  async function act(key: string, fn: () => Promise<string | { message: string; left: number }>) {
    setBusy(key);
    try {
      const done = await fn();
      // Accepting in bulk leaves the unconfident suggestions: said as a warning, not a success.
      if (typeof done === 'string') toast(done, 'success');
      else toast(done.message, done.left ? 'warning' : 'success');
    } catch (err) {
      toast((err as Error).message, 'danger');
    } finally {
      setBusy(undefined);
    }
  }

  const map = (m: MappingRow, groupAccount: string) => act(rowKey(m), () => saveMappings(orgId, [{ entity: m.entity, sourceAccount: m.sourceAccount, groupAccount, icCounterparty: m.icCounterparty, icCategory: m.icCategory }]));

  return (
    <>
      <div className="filter-row">
        <FormGroup label="Entity" labelFor="mapping-entity" inline>
          <HTMLSelect id="mapping-entity" value={filter.entity ?? ''} onChange={(e) => changeFilter({ ...filter, entity: e.target.value || undefined })}>
            <option value="">All entities</option>
            {entities.map((e) => (
              <option key={e.entity} value={e.entity}>
                {e.name}
              </option>
            ))}
          </HTMLSelect>
        </FormGroup>
        <Switch label="Unmapped only" checked={Boolean(filter.unmapped)} onChange={(e) => changeFilter({ ...filter, unmapped: (e.target as HTMLInputElement).checked })} />
      </div>
      <div className="tab-tools">
        <Button intent="primary" icon="tick" text="Accept all suggestions" disabled={list.unmapped === 0} loading={busy === 'all'} onClick={() => void act('all', () => acceptSuggestions(orgId, filter.entity))} />
        <CsvExport text="Export CSV" onExport={() => exportMappings(orgId)} />
        <CsvImport id="mappings-import" label="Mappings CSV file" buttonText="Import mappings" help="A CSV with the columns entity, source_account, group_account, ic_counterparty, ic_category." onImport={(csv) => importMappings(orgId, csv)} />
      </div>
      {list.isLoading ? (
        <Spinner size={24} />
      ) : list.error ? (
        <Callout intent="danger" role="alert">
          {(list.error as Error).message}
        </Callout>
      ) : list.total === 0 ? (
        filter.unmapped ? (
          <NonIdealState icon="tick-circle" title="Every account is mapped" description={filter.entity ? `Every account of ${entityName(filter.entity)} has its group account.` : 'Every source account has its group account.'} />
        ) : (
          <NonIdealState icon="th-disconnect" title="No source accounts yet" description="Accounts come from trial_balance: upload books or connect an accounting system, then run the pipelines." />
        )
      ) : (
        <>
          <p className="muted" data-testid="mapping-counts">
            {plural(list.total, 'account')}, {list.unmapped} unmapped
          </p>
          <div className="table-scroll">
            <HTMLTable striped compact className="full-width consolidation-table" aria-label="Mappings">
              <thead>
                <tr>
                  <th className="wide-only">Entity</th>
                  <th>Source account</th>
                  <th>Group account</th>
                  <th className="wide-only">Intercompany</th>
                  <th>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.mappings.map((m) => {
                  const label = `${entityName(m.entity)} ${m.sourceAccount}`;
                  return (
                    <tr key={rowKey(m)} data-mapped={m.groupAccount ? 'true' : 'false'}>
                      <td className="wide-only">{entityName(m.entity)}</td>
                      <td>
                        {m.sourceAccount} {m.sourceAccountName && <span className="muted">{m.sourceAccountName}</span>}
                      </td>
                      <td>
                        <HTMLSelect aria-label={`Group account of ${label}`} value={m.groupAccount ?? ''} disabled={busy === rowKey(m)} onChange={(e) => e.target.value && void map(m, e.target.value)}>
                          {!m.groupAccount && <option value="">Not mapped</option>}
                          <AccountOptions accounts={accounts} />
                        </HTMLSelect>
                        {m.groupAccount && m.reason && <div className="muted">{m.reason}</div>}
                        {!m.groupAccount && m.suggestion && (
                          <div className="suggestion">
                            Suggested: {m.suggestion.groupAccount} {m.suggestion.groupAccountName} <span className="muted">({m.suggestion.reason}; {m.suggestion.confidence} confidence)</span>{' '}
                            <Button small intent="primary" variant="outlined" text="Accept" aria-label={`Accept ${m.suggestion.groupAccount} for ${label}`} loading={busy === rowKey(m)} onClick={() => void map(m, m.suggestion!.groupAccount)} />
                          </div>
                        )}
                      </td>
                      <td className="wide-only">{m.icCounterparty ? `${entityName(m.icCounterparty)}, ${inWords(CATEGORY_WORDS, m.icCategory)}` : ''}</td>
                      <td className="actions-cell">
                        <Button small icon="edit" text="Edit" aria-label={`Edit mapping of ${label}`} onClick={() => setEditing(m)} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </HTMLTable>
          </div>
          <div className="pager">
            <Button small icon="chevron-left" aria-label="Previous page" disabled={page <= 1} onClick={() => setPage((p) => p - 1)} />
            <span>
              Page {page} of {list.pages} ({perPage(list.pageSize)})
            </span>
            <Button small icon="chevron-right" aria-label="Next page" disabled={page >= list.pages} onClick={() => setPage((p) => p + 1)} />
          </div>
        </>
      )}
      <MappingDialog orgId={orgId} row={editing} entities={entities} accounts={accounts} onClose={() => setEditing(null)} />
    </>
  );
}
