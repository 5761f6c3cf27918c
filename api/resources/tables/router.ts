// The data explorer (issue 19): the tables of one organization's database with their kind, rows,
// columns, source and last write; one table's rows paged, sorted and filtered on the server; the
// table as a streamed CSV (on SQLite read and encoded on a thread of its own). Users reach their
// own organization's tables only (403), admins any; an unknown table is 404. The reads are in
// service.ts (their SQL in warehouse/catalog/explorer.ts), the download in download.ts (its
// thread: csv-thread.ts).
import { Router, type NextFunction, type Request, type Response } from 'express';
import { logger } from '../../../common/logger';
import type { OrganizationDoc } from '../../../common/models/organization';
import type { OrgDatabase } from '../../../warehouse/connection';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { notFound } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { route } from '../../lib/route';
import { csvLinkSchema, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, rowsPageSchema, tableAnswerSchema, tableListSchema } from '../../../common/contract/tables';
import { DownloadAborted, signCsvLink, verifyCsvLink, writeCsv, writeCsvInThread, type CsvLinkQuery } from './download';
import * as s from './schemas';
import * as svc from './service';
import { NOT_ONBOARDED } from '../../lib/org-database';


export function tablesRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  const any = auth('admin', 'user');
  const tag = 'tables';

  /** A download link's token in ?link= instead of a bearer token (a browser download sends no header). */
  const bearerOrLink = Object.assign(
    (req: Request, res: Response, next: NextFunction) => {
      const link = typeof req.query.link === 'string' ? req.query.link : undefined;
      if (!link) return any(req, res, next);
      verifyCsvLink(cfg, link, String(req.params.orgId), String(req.params.table)).then(({ user, query }) => {
        req.user = user;
        res.locals.csvLink = query;
        next();
      }, next);
    },
    { roles: any.roles },
  );

  const params = (req: Request) => req.params as { orgId: string; table: string };

  /** Runs fn on one table of the organization's database; 404 when the database or the table is not there. */
  async function onTable<T>(req: Request, fn: (o: OrgDatabase, t: svc.TableSchema, org: OrganizationDoc) => Promise<T>): Promise<T> {
    const { orgId, table } = params(req);
    const out = await svc.withExplorerDatabase(cfg, req.user!, orgId, async (o, org) => ({ value: await fn(o, await svc.findTable(o, table), org) }));
    if (!out) throw notFound(svc.tableNotFound(table));
    return out.value;
  }

  route(router, 'get', '/:orgId', { tag, answer: tableListSchema, summary: "Every table of the organization's database (user of the organization or admin; internal staging and sqlite_ tables left out), saved CSVs first: data { databaseReady (false before onboarding made the database: tables is empty), tables [{ name, kind (csv | connector | reporting | consolidation | consolidation_settings | other), rows, columns [{ name, type (as declared), kind (text | number | date | datetime | boolean) }], source { type (upload | pipeline | sync | consolidation | settings), label, at, upload { id, fileName, uploadedBy }, pipelineRun { runId, pipeline, startedBy }, sync { provider, account } } (null when unknown), lastWrittenAt }] }. 403 another organization, 404 'Organization not found'" }, any, validate({ params: s.orgParams }), async (req, res) => {
    const { orgId } = req.params as { orgId: string };
    const tables = await svc.withExplorerDatabase(cfg, req.user!, orgId, async (o, org) => (await svc.describeTables(cfg, o, org, await svc.readCatalog(o))).sort(svc.byKindThenName));
    if (!tables) return ok(res, NOT_ONBOARDED, { databaseReady: false, tables: [] });
    ok(res, `${tables.length} table${tables.length === 1 ? '' : 's'}`, { databaseReady: true, tables });
  });

  route(router, 'get', '/:orgId/:table', { tag, answer: tableAnswerSchema, summary: "One table as the list describes it: data.table. 404 'Table \"<name>\" not found' for a name the database's catalog does not list (internal tables included)" }, any, validate({ params: s.tableParams }), async (req, res) => {
    const [table] = await onTable(req, (o, t, org) => svc.describeTables(cfg, o, org, [t]));
    ok(res, 'Table fetched', { table });
  });

  route(router, 'get', '/:orgId/:table/rows', { tag, answer: rowsPageSchema, summary: `One page of the table's rows, paged, sorted and filtered by the database: ?page (from 1), ?pageSize (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}), ?sort (a column) and ?dir (asc | desc; ties and no sort keep the order the rows were written in), ?filters (a JSON list of { column, op, value }, all of which must match). data { table, columns, rows (each row its values in the columns' order), total (rows matching), page, pageSize, pages, sort, filters }. 400 naming an unknown column or a value that does not fit the column (a number, yes/no, YYYY-MM-DD); column names are only those the catalog lists and values are bound parameters, never SQL` }, any, validate({ params: s.tableParams, query: s.rowsQuery }), async (req, res) => {
    const q = res.locals.query as { page: number; pageSize: number; sort?: string; dir: 'asc' | 'desc'; filters?: svc.RowsQuery['filters'] };
    const page = await onTable(req, (o, t) => svc.rowsPage(o, t, { ...q, filters: q.filters ?? [] }));
    ok(res, 'Rows fetched', page);
  });

  /** A link the browser downloads the CSV from (no header needed), for this user, table and query, for a short while. */
  route(router, 'post', '/:orgId/:table/csv-link', { tag, answer: csvLinkSchema, summary: 'A download link for the browser (a plain download streams to disk and sends no bearer token): data { url, expiresAt }, valid for 2 minutes, for this user, table, order and filters (body { sort, dir, filters }, checked now: 400 as for rows)' }, any, validate({ params: s.tableParams, body: s.csvLinkBody }), async (req, res) => {
    const { orgId, table } = params(req);
    const q = req.body as CsvLinkQuery;
    // Checked now (unknown column, bad value: 400), so the download itself does not fail.
    await onTable(req, async (o, t) => svc.rowsQuery(o, t, q));
    const { token, expiresAt } = signCsvLink(cfg, req.user!, orgId, table, q);
    const url = `/api/v1/tables/${encodeURIComponent(orgId)}/${encodeURIComponent(table)}/csv?link=${encodeURIComponent(token)}`;
    ok(res, 'Download link created', { url, expiresAt });
  });

  /** The table as CSV, every row matching the filters, streamed: never whole in memory. */
  route(router, 'get', '/:orgId/:table/csv', { tag, statuses: { 401: 'No bearer token and no ?link=, or a link that expired or is another user\'s' }, summary: "The table as CSV (UTF-8 with a byte order mark, header row, every row matching ?filters in the ?sort order), streamed from a database cursor with backpressure: any size, never whole in memory. Text cells a spreadsheet would run as a formula (=, +, -, @ first, other than plain numbers) start with '. Bearer token, or ?link= a download link's token (POST .../csv-link) whose order and filters apply; 401 for an expired or foreign link. A failure before the first byte is JSON" }, bearerOrLink, validate({ params: s.tableParams, query: s.csvQuery }), async (req, res) => {
    const { orgId, table } = params(req);
    const asked = res.locals.query as { sort?: string; dir: 'asc' | 'desc'; filters?: CsvLinkQuery['filters'] };
    const q: CsvLinkQuery = (res.locals.csvLink as CsvLinkQuery | undefined) ?? { sort: asked.sort, dir: asked.dir, filters: asked.filters ?? [] };
    await onTable(req, async (o, t) => {
      svc.rowsQuery(o, t, q); // an unknown column or a bad value answers 400 before anything is sent
      const header = t.columns.map((c) => c.name);
      // SQLite: read and encoded on a thread of its own (the select compiled here, as streamRows builds it).
      const job = svc.sqliteRowsJob(o, t, q);
      res.status(200);
      res.type('text/csv; charset=utf-8');
      res.attachment(`${table}.csv`);
      res.setHeader('Cache-Control', 'no-store');
      try {
        if (job) await writeCsvInThread(res, { file: job.file, sql: job.query.sql, parameters: job.query.parameters, header });
        else await writeCsv(res, header, svc.streamRows(o, t, q));
        res.end();
      } catch (e) {
        if (e instanceof DownloadAborted) return;
        if (!res.headersSent) throw e;
        // Half sent: the client sees a cut download, never a file that looks whole.
        logger.error({ err: e, orgId, table }, 'table download failed');
        res.destroy(e as Error);
      }
    });
  });

  return router;
}
