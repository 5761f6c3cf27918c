import { Button, Callout, Card, Classes, FormGroup, H2, HTMLSelect, HTMLTable, NonIdealState, Spinner, Tag } from '@blueprintjs/core';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { DEFAULT_PAGE_SIZE, FILTER_OPS, MAX_PAGE_SIZE, PAGE_SIZES, type TableFilter } from '../../../../common/contract/tables';
import { paths } from '../../app/paths';
import { OrganizationPicker } from '../../components/OrganizationPicker';
import { toast } from '../../components/toaster';
import { ApiRequestError } from '../../lib/api-client';
import { formatDateTimeWithZone, perPage, plural } from '../../lib/format';
import { downloadCsv, useRows, type RowsView } from './api/rows';
import { useTable } from './api/tables';
import { describeFilter, formatCell, formatNumber, hasFractions, KIND_LABELS } from './cell-format';
import { useExplorerOrganization } from './useExplorerOrganization';
import { FilterPopover } from './FilterPopover';
import { HowItWorks } from '../../components/HowItWorks';

/** The filters of the address (?f=[...]); anything malformed is dropped, not shown as an error. */
function parseFilters(raw: string | null): TableFilter[] {
  if (!raw) return [];
  try {
    const list = JSON.parse(raw) as unknown;
    if (!Array.isArray(list)) return [];
    return list.filter((f): f is TableFilter => typeof f?.column === 'string' && (FILTER_OPS as readonly string[]).includes(f?.op)).slice(0, 20);
  } catch {
    return [];
  }
}

/** The view (page, size, order, filters) lives in the address: a link or a reload shows the same rows. */
function useView(): [RowsView, (change: Partial<RowsView>) => void] {
  const [params, setParams] = useSearchParams();
  const size = Number(params.get('size'));
  const view: RowsView = {
    page: Math.max(1, Number(params.get('page')) || 1),
    pageSize: Number.isInteger(size) && size >= 1 && size <= MAX_PAGE_SIZE ? size : DEFAULT_PAGE_SIZE,
    sort: params.get('sort') || undefined,
    dir: params.get('dir') === 'desc' ? 'desc' : 'asc',
    filters: parseFilters(params.get('f')),
  };
  const set = (change: Partial<RowsView>) => {
    const v = { ...view, ...change };
    const next = new URLSearchParams(params);
    const put = (k: string, value: string | undefined) => (value ? next.set(k, value) : next.delete(k));
    put('page', v.page > 1 ? String(v.page) : undefined);
    put('size', v.pageSize !== DEFAULT_PAGE_SIZE ? String(v.pageSize) : undefined);
    put('sort', v.sort);
    put('dir', v.sort && v.dir === 'desc' ? 'desc' : undefined);
    put('f', v.filters.length ? JSON.stringify(v.filters) : undefined);
    setParams(next);
  };
  return [view, set];
}

/** One table of the organization's database: its rows a page at a time, sorted and filtered by the api. */
export default function TablePage() {
  const { table = '' } = useParams();
  const { orgId, isAdmin, picked, pick } = useExplorerOrganization();
  const [view, setView] = useView();
  const info = useTable(orgId, table);
  const rows = useRows(orgId, table, view);
  const [downloading, setDownloading] = useState(false);
  const page = rows.page;
  const columns = page?.columns ?? info.table?.columns ?? [];
  const notFound = (info.error as ApiRequestError | undefined)?.status === 404 || (rows.error as ApiRequestError | undefined)?.status === 404;
  const back = `${paths.data}${isAdmin && orgId ? `?org=${encodeURIComponent(orgId)}` : ''}`;

  function toggleSort(column: string) {
    if (view.sort !== column) setView({ sort: column, dir: 'asc', page: 1 });
    else if (view.dir === 'asc') setView({ dir: 'desc', page: 1 });
    else setView({ sort: undefined, dir: 'asc', page: 1 });
  }
  const addFilter = (f: TableFilter) => setView({ filters: [...view.filters, f], page: 1 });
  const removeFilter = (i: number) => setView({ filters: view.filters.filter((_, j) => j !== i), page: 1 });
  const clearFilters = () => setView({ filters: [], page: 1 });

  async function download() {
    setDownloading(true);
    try {
      await downloadCsv(orgId, table, view);
    } catch (err) {
      toast((err as Error).message, 'danger');
    } finally {
      setDownloading(false);
    }
  }

  // A number column with decimals on this page shows every value with them (160.00 under 161.25).
  const fractional = columns.map((c, j) => c.kind === 'number' && hasFractions(page?.rows.map((r) => r[j]) ?? []));
  const first = page && page.total ? (page.page - 1) * page.pageSize + 1 : 0;
  const last = page ? Math.min(page.total, first + page.rows.length - 1) : 0;

  return (
    <div className="page page-wide explorer-page">
      <p>
        <Link to={back}>← All tables</Link>
      </p>
      <H2 className="explorer-title">{table}</H2>
      <HowItWorks screen="data" />
      {isAdmin && <OrganizationPicker value={picked} onChange={pick} />}
      {!orgId ? (
        <NonIdealState icon="database" title={isAdmin ? 'Pick an organization' : 'No organization'} description={isAdmin ? 'Pick the organization whose table this is.' : 'Your account has no organization yet.'} />
      ) : notFound ? (
        <NonIdealState
          icon="search"
          title="Table not found"
          description={
            <>
              This organization&apos;s database has no table {table}. <Link to={back}>See its tables</Link>.
            </>
          }
        />
      ) : (
        <>
          {info.table && (
            <div className="explorer-meta" aria-label="About this table">
              <Tag minimal>{KIND_LABELS[info.table.kind]}</Tag>
              <span>{plural(info.table.rows, 'row')}</span>
              <span>{plural(info.table.columns.length, 'column')}</span>
              {info.table.source && <span>Source: {info.table.source.label}</span>}
              {info.table.lastWrittenAt && <span>Last written {formatDateTimeWithZone(info.table.lastWrittenAt)}</span>}
            </div>
          )}
          <Card className="page-card">
            <div className="explorer-toolbar">
              <div className="explorer-filters" aria-label="Filters">
                {view.filters.length === 0 ? (
                  <span className={Classes.TEXT_MUTED}>No filters: use a column&apos;s filter button to add one.</span>
                ) : (
                  <>
                    {view.filters.map((f, i) => (
                      <Tag key={`${f.column}-${i}`} intent="primary" minimal onRemove={() => removeFilter(i)} aria-label={`Filter: ${describeFilter(f)}`}>
                        {describeFilter(f)}
                      </Tag>
                    ))}
                    <Button variant="minimal" size="small" text="Clear filters" onClick={clearFilters} />
                  </>
                )}
              </div>
              <div className="explorer-actions">
                <FormGroup label="Rows per page" labelFor="explorer-page-size" inline className="explorer-size">
                  <HTMLSelect id="explorer-page-size" value={view.pageSize} onChange={(e) => setView({ pageSize: Number(e.target.value), page: 1 })}>
                    {[...new Set([...PAGE_SIZES, view.pageSize])].sort((a, b) => a - b).map((n) => (
                      <option key={n} value={n}>
                        {perPage(n)}
                      </option>
                    ))}
                  </HTMLSelect>
                </FormGroup>
                <Button icon="download" text="Download CSV" loading={downloading} disabled={!page || page.total === 0} onClick={() => void download()} title={page ? `All ${plural(page.total, 'row')}${view.filters.length ? ' matching the filters' : ''}, in this order` : undefined} />
              </div>
            </div>
            {rows.error && !notFound ? (
              <Callout intent="danger" role="alert" title="The rows could not be shown">
                {(rows.error as Error).message}
                {view.filters.length > 0 && (
                  <div>
                    <Button variant="minimal" text="Clear filters" onClick={clearFilters} />
                  </div>
                )}
              </Callout>
            ) : !page ? (
              <Spinner size={32} />
            ) : page.total === 0 ? (
              view.filters.length ? (
                <NonIdealState icon="filter-remove" title="No rows match these filters" action={<Button text="Clear filters" onClick={clearFilters} />} />
              ) : (
                <NonIdealState icon="th" title="This table has no rows" />
              )
            ) : page.rows.length === 0 ? (
              <NonIdealState icon="th" title={`Page ${page.page} is past the last one`} description={`The table has ${plural(page.pages, 'page')} of ${perPage(page.pageSize)}.`} action={<Button text="Go to page 1" onClick={() => setView({ page: 1 })} />} />
            ) : (
              <>
                <div className="table-scroll">
                  <HTMLTable striped compact bordered className="full-width explorer-table" aria-label={`Rows of ${table}`} aria-busy={rows.isValidating}>
                    <thead>
                      <tr className="explorer-head">
                        {columns.map((c) => (
                          <th key={c.name} className={c.kind === 'number' ? 'num' : undefined} aria-sort={view.sort === c.name ? (view.dir === 'asc' ? 'ascending' : 'descending') : undefined} title={`${c.name}: ${c.type}`}>
                            <Button
                              variant="minimal"
                              size="small"
                              className="explorer-sort"
                              text={c.name}
                              endIcon={view.sort === c.name ? (view.dir === 'asc' ? 'caret-up' : 'caret-down') : undefined}
                              aria-label={`Sort by ${c.name}`}
                              onClick={() => toggleSort(c.name)}
                            />
                            <FilterPopover column={c} active={view.filters.some((f) => f.column === c.name)} onAdd={addFilter} />
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {page.rows.map((r, i) => (
                        <tr key={first + i}>
                          {columns.map((c, j) => (
                            <td key={c.name} className={c.kind === 'number' ? 'num' : undefined}>
                              {formatCell(r[j], c.kind, c.name, fractional[j])}
                            </td>
                          ))}
                        </tr>
                      ))}
                    </tbody>
                  </HTMLTable>
                </div>
                <div className="pager">
                  <span className="muted" aria-live="polite">
                    Rows {formatNumber(first)}–{formatNumber(last)} of {formatNumber(page.total)}
                  </span>
                  <Button small icon="chevron-left" aria-label="Previous page" disabled={page.page <= 1} onClick={() => setView({ page: page.page - 1 })} />
                  <span>
                    Page {page.page} of {page.pages}
                  </span>
                  <Button small icon="chevron-right" aria-label="Next page" disabled={page.page >= page.pages} onClick={() => setView({ page: page.page + 1 })} />
                </div>
              </>
            )}
          </Card>
        </>
      )}
    </div>
  );
}
