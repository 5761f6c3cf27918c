import { Callout, Card, Classes, FormGroup, H2, HTMLSelect, HTMLTable, InputGroup, NonIdealState, Spinner, Tag } from '@blueprintjs/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { TableKind } from '../../../../common/contract/tables';
import { dataTablePath, paths } from '../../app/paths';
import { OrganizationPicker } from '../../components/OrganizationPicker';
import { formatDateTimeWithZone, plural } from '../../lib/format';
import { useTables, type TableInfo } from './api/tables';
import { COLUMN_KIND_LABELS, formatNumber, KIND_LABELS } from './cell-format';
import { useExplorerOrganization } from './useExplorerOrganization';
import { HowItWorks } from '../../components/HowItWorks';

function ColumnsCell({ t }: { t: TableInfo }) {
  return (
    <details className="explorer-columns">
      <summary>{plural(t.columns.length, 'column')}</summary>
      <ul>
        {t.columns.map((c) => (
          <li key={c.name}>
            <code>{c.name}</code> <span className="muted">{COLUMN_KIND_LABELS[c.kind]}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The kinds of the tables onboarding creates in every organization's database (the consolidation's settings and outputs). */
const PRODUCT_KINDS = new Set<TableKind>(['consolidation', 'consolidation_settings']);

/** The data explorer's first screen: every table of the organization's database. */
export default function DataPage() {
  const { orgId, isAdmin, picked, pick } = useExplorerOrganization();
  const { tables, databaseReady, error, isLoading } = useTables(orgId);
  const [search, setSearch] = useState('');
  const [kind, setKind] = useState<TableKind | ''>('');
  const shown = tables.filter((t) => (!kind || t.kind === kind) && (!search.trim() || t.name.toLowerCase().includes(search.trim().toLowerCase())));
  const kinds = [...new Set(tables.map((t) => t.kind))];
  // Onboarding creates the consolidation's own tables: until something else is there, the organization has no data of its own yet.
  const noDataYet = tables.every((t) => PRODUCT_KINDS.has(t.kind));
  const howToAddData = (
    <>
      Save a CSV as a table on <Link to={paths.fileUpload}>Upload File</Link>, connect an accounting system in <Link to={paths.apps}>Apps</Link>, or run the <Link to={paths.pipelines}>Pipelines</Link>.
    </>
  );

  return (
    <div className="page page-wide explorer-page">
      <H2>Data</H2>
      <HowItWorks screen="data" />
      <p className={Classes.TEXT_MUTED}>Every table in the organization&apos;s database: saved CSVs, connector tables, the trial balance and the consolidation. Open one to page, sort, filter and download it.</p>
      {isAdmin && <OrganizationPicker value={picked} onChange={pick} />}
      <Card className="page-card">
        {!orgId ? (
          <NonIdealState icon="database" title={isAdmin ? 'Pick an organization' : 'No organization'} description={isAdmin ? 'Its tables show here.' : 'Your account has no organization yet.'} />
        ) : isLoading ? (
          <Spinner size={32} />
        ) : error ? (
          <Callout intent="danger" role="alert">
            {(error as Error).message}
          </Callout>
        ) : !databaseReady ? (
          <NonIdealState icon="database" title="No database yet" description="An admin must onboard this organization before its data can be explored." />
        ) : tables.length === 0 ? (
          <NonIdealState icon="th" title="No tables yet" description={howToAddData} />
        ) : (
          <>
            {noDataYet && (
              <Callout intent="primary" icon="info-sign" title="No data yet" className="explorer-no-data">
                Only the consolidation&apos;s own tables are here so far. {howToAddData}
              </Callout>
            )}
            <div className="filter-row">
              <FormGroup label="Find a table" labelFor="explorer-search" inline>
                <InputGroup id="explorer-search" type="search" leftIcon="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Table name" />
              </FormGroup>
              <FormGroup label="Kind" labelFor="explorer-kind" inline>
                <HTMLSelect id="explorer-kind" value={kind} onChange={(e) => setKind(e.target.value as TableKind | '')}>
                  <option value="">All kinds</option>
                  {kinds.map((k) => (
                    <option key={k} value={k}>
                      {KIND_LABELS[k]}
                    </option>
                  ))}
                </HTMLSelect>
              </FormGroup>
              <span className="muted">{plural(shown.length, 'table')}</span>
            </div>
            {shown.length === 0 ? (
              <NonIdealState icon="search" title="No tables match" description="Try another name or kind." />
            ) : (
              <div className="table-scroll">
                <HTMLTable striped compact className="full-width" aria-label="Tables">
                  <thead>
                    <tr>
                      <th>Table</th>
                      <th>Kind</th>
                      <th className="num">Rows</th>
                      <th className="wide-only">Columns</th>
                      <th className="wide-only">Source</th>
                      <th>Last written</th>
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((t) => (
                      <tr key={t.name} data-table={t.name}>
                        <td>
                          <Link to={dataTablePath(t.name, isAdmin ? orgId : undefined)}>{t.name}</Link>
                        </td>
                        <td>
                          <Tag minimal>{KIND_LABELS[t.kind]}</Tag>
                        </td>
                        <td className="num">{formatNumber(t.rows)}</td>
                        <td className="wide-only">
                          <ColumnsCell t={t} />
                        </td>
                        <td className="wide-only">{t.source?.label ?? <span className="muted">Not known</span>}</td>
                        <td className="nowrap">{t.lastWrittenAt ? formatDateTimeWithZone(t.lastWrittenAt) : <span className="muted">Not known</span>}</td>
                      </tr>
                    ))}
                  </tbody>
                </HTMLTable>
              </div>
            )}
          </>
        )}
      </Card>
    </div>
  );
}
