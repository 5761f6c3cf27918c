// A report pack's files (issue 34): its reports computed as the api answers them
// (warehouse/reports/answers.ts), as one PDF (pdfkit: cover, contents, the reports with their
// notices, page numbers "Page n of N") and one XLSX (the statements' export: one sheet per report).
// Memory holds one report at a time, never the pack: the PDF is laid out first (planPack: each
// report computed, its pages planned with fixed row heights, labels cut to their column, notices
// measured, and let go), so the contents and "of N" are known up front; then each report is
// computed again and drawn, its pages written to the output stream as they are drawn (no
// bufferPages; the drawing waits while the output is full). A consolidation that lands between
// the two passes fails the pack (its figures would not be one set) rather than mixing them. The
// XLSX goes through exceljs' streaming writer, a report at a time. Used by the api (downloads)
// and the worker (the send's activity, activities/packs: both files streamed into the mail).
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Kysely } from 'kysely';
import type PDFDocumentType from 'pdfkit';

/** PDFKit, loaded when a pack is first laid out (on the pack's thread): the worker and the api do not hold it until then. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load (a CommonJS dynamic import is not typed as the default import)
const pdfkit = (): typeof PDFDocumentType => require('pdfkit') as typeof PDFDocumentType;
import { monthLabel } from '../../common/reports/periods';
import { NOT_MEANINGFUL, STATEMENT_TITLES, STATEMENTS, type StatementKind } from '../../common/reports/statements';
import type { RangeKind } from '../../common/reports/periods';
import type { OrgDialect } from '../connection';
import { customReport, statement, xlsxStream, type ReportAnswer, type ReportQuery } from './answers';
import { readLayout } from './store';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

export interface PackItem {
  kind: 'statement' | 'custom';
  ref: string;
}

/** An error about the pack itself (a custom report deleted since, nothing consolidated): retrying does not help. */
export class PackError extends Error {}

export const isStatement = (ref: string): ref is StatementKind => (STATEMENTS as readonly string[]).includes(ref);

/** The latest month consolidated without a block (YYYY-MM), or null. */
export async function latestConsolidatedMonth(db: Db): Promise<string | null> {
  const r = (await db.selectFrom('consolidation_checks').select((eb) => eb.fn.max('period').as('p')).where('status', '=', 'ok').executeTakeFirst()) as { p: string | null } | undefined;
  return r?.p ?? null;
}

/** The pack's reports, one at a time, in its order, for the range ending at `period` (every column, as the Reports page shows them). */
export interface PackSource {
  count: number;
  report(i: number): Promise<ReportAnswer>;
}

/** The pack's source; its items checked first (a statement that does not exist, a custom report deleted since: a PackError). */
export async function packSource(db: Db, dialect: OrgDialect, items: PackItem[], range: RangeKind, period: string): Promise<PackSource> {
  const q: ReportQuery = { period, range, columns: [] };
  const layouts = new Map<string, Awaited<ReturnType<typeof readLayout>>>();
  for (const item of items) {
    if (item.kind === 'statement') {
      if (!isStatement(item.ref)) throw new PackError(`The pack names a statement that does not exist: ${item.ref}`);
    } else {
      const found = await readLayout(db, item.ref);
      if (!found) throw new PackError(`A custom report of the pack was deleted (id ${item.ref}): edit the pack`);
      layouts.set(item.ref, found);
    }
  }
  return {
    count: items.length,
    async report(i) {
      const item = items[i]!;
      if (item.kind === 'statement') return statement(db, dialect, item.ref as StatementKind, q);
      return customReport(db, dialect, layouts.get(item.ref)!.layout, q);
    },
  };
}

/** Every report of the pack computed at once (tests, small packs): what the source answers, in order. */
export async function packReports(db: Db, dialect: OrgDialect, items: PackItem[], range: RangeKind, period: string): Promise<ReportAnswer[]> {
  const source = await packSource(db, dialect, items, range, period);
  const out: ReportAnswer[] = [];
  for (let i = 0; i < source.count; i++) out.push(await source.report(i));
  return out;
}

/** What an item is called, for the pack's editor and history. */
export const itemTitle = (item: PackItem, customNames: Map<string, string>): string => (item.kind === 'statement' ? (isStatement(item.ref) ? STATEMENT_TITLES[item.ref] : item.ref) : (customNames.get(item.ref) ?? `Deleted report ${item.ref}`));

// --- figures --------------------------------------------------------------------------------

/**
 * A figure as the Reports page shows it: thousands separators, at least 2 decimals for amounts
 * (1 and " %" for percentages), "n/m" kept, negatives in parentheses when `parens`, nothing for
 * an empty figure. Pure text work on the api's exact decimal text (no floating point).
 */
export function figureText(value: string | null, format: 'amount' | 'percent', parens: boolean): string {
  if (value === null) return '';
  if (value === NOT_MEANINGFUL) return value;
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!m) return value;
  const [, sign, int, frac = ''] = m;
  const decimals = format === 'percent' ? 1 : 2;
  const digits = frac.replace(/0+$/, '').padEnd(decimals, '0');
  const zero = /^0*$/.test(int!) && /^0*$/.test(frac);
  const body = `${int!.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${digits}${format === 'percent' ? ' %' : ''}`;
  if (!sign || zero) return body;
  return parens ? `(${body})` : `-${body}`;
}

// --- the PDF --------------------------------------------------------------------------------

export interface PackMeta {
  organization: string;
  name: string;
  /** The range the pack covers, for people ("March 2026", "Jan-Mar 2026, year to date"). */
  periodLabel: string;
  /** When it was made. */
  date: Date;
  parentheses: boolean;
}

const PAGE = { width: 841.89, height: 595.28 }; // A4 landscape
const MARGIN = 36;
const LABEL_WIDTH = 210;
const FIGURE_WIDTH = 66;
const ROW_HEIGHT = 11;
const HEADER_HEIGHT = 20;
const FOOTER_Y = PAGE.height - MARGIN + 10;
const BOTTOM = PAGE.height - MARGIN - 6;
const COLUMNS_PER_PAGE = Math.floor((PAGE.width - 2 * MARGIN - LABEL_WIDTH) / FIGURE_WIDTH);
const CONTENTS_LINES = 30;

/** One page of a report: its column slice and rows. */
interface ReportPage {
  report: number;
  columns: number[];
  rows: number[];
  /** The report's first page (its title is not "continued"). */
  first: boolean;
  /** The notices on this page (indices into the report's notices, in order): a long list runs over several pages, before the rows. */
  notices: number[];
  /** Which part of the report's columns, when they span several page widths ("columns 1-8 of 12"). */
  part: string | null;
}

export const dayLabel = (d: Date) => `${d.getUTCDate()} ${monthLabel(`${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`)}`;

function subtitle(r: ReportAnswer): string {
  const when = r.asAt ? `As at ${Number(r.asAt.slice(8))} ${monthLabel(r.asAt.slice(0, 7))}` : r.range.label;
  return `${when}${r.compareRange ? `, compared with ${r.compareRange.label}` : ''}; ${r.currency}`;
}

/** A label cut to `width` points in the current font ("..." where cut). */
function fit(doc: PDFKit.PDFDocument, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (doc.widthOfString(`${text.slice(0, mid)}...`) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}...`;
}

/** What the plan keeps of a report (its figures let go): what the contents, the mail and the second pass need. */
export interface PlannedReport {
  title: string;
  subtitle: string;
  rangeLabel: string;
  hasNotices: boolean;
  pages: ReportPage[];
  /** Its shape and the figures' time: the drawing pass checks the report it computes again is the same. */
  shape: string;
  dataAsOf: string | null;
}

/** The pack laid out: its reports' pages, and so its page count, before anything is drawn. */
export interface PackPlan {
  reports: PlannedReport[];
  contentsPages: number;
  pages: number;
}

const shapeOf = (r: ReportAnswer) => `${r.rows.length}x${r.columns.length}:${r.notices.length}`;

/** A notice's height as drawn (8 pt, the page's width, 2 pt after it). */
const noticeHeight = (doc: PDFKit.PDFDocument, n: string, width: number) => doc.heightOfString(`- ${n}`, { width }) + 2;
/** Where a page's body starts: below the title and subtitle. */
const BODY_TOP = MARGIN + 40;
const NOTICES_TITLE = 12;

/**
 * One report's pages, laid out before drawing: its notices first (measured in the font they are
 * drawn in; a list longer than a page runs over as many pages as it needs, "Notices (continued)"),
 * then its rows, below the last notices on the same page when they fit, in slices of columns.
 */
function planReport(doc: PDFKit.PDFDocument, r: ReportAnswer, ri: number): ReportPage[] {
  const pages: ReportPage[] = [];
  const contentWidth = PAGE.width - 2 * MARGIN;
  const all = r.columns.map((_, i) => i);
  const slices: number[][] = [];
  for (let i = 0; i < all.length; i += COLUMNS_PER_PAGE) slices.push(all.slice(i, i + COLUMNS_PER_PAGE));
  if (!slices.length) slices.push([]);
  doc.font('Helvetica').fontSize(8);
  // The notices' pages: each notice whole on one page (one taller than a page has a page to itself).
  const noticePages: number[][] = [];
  let lastNoticesHeight = 0;
  if (r.notices.length) {
    let page: number[] = [];
    let y = BODY_TOP + NOTICES_TITLE;
    r.notices.forEach((n, i) => {
      const h = noticeHeight(doc, n, contentWidth);
      if (page.length && y + h > BOTTOM) {
        noticePages.push(page);
        page = [];
        y = BODY_TOP + NOTICES_TITLE;
      }
      page.push(i);
      y += h;
    });
    noticePages.push(page);
    lastNoticesHeight = y - BODY_TOP;
  }
  // Notices alone on their pages, but the last: the rows start below it when a header and a row fit.
  const first = (): boolean => pages.length === 0;
  for (const notices of noticePages.slice(0, -1)) pages.push({ report: ri, columns: slices[0]!, rows: [], first: first(), notices, part: null });
  let carried = noticePages.at(-1) ?? [];
  if (carried.length && BODY_TOP + lastNoticesHeight + HEADER_HEIGHT + ROW_HEIGHT > BOTTOM) {
    pages.push({ report: ri, columns: slices[0]!, rows: [], first: first(), notices: carried, part: null });
    carried = [];
    lastNoticesHeight = 0;
  }
  slices.forEach((cols, si) => {
    const part = slices.length > 1 ? `columns ${cols[0]! + 1}-${cols.at(-1)! + 1} of ${all.length}` : null;
    let notices = si === 0 ? carried : [];
    let rows: number[] = [];
    const top = () => BODY_TOP + (notices.length ? lastNoticesHeight : 0) + HEADER_HEIGHT;
    let y = top();
    r.rows.forEach((_, i) => {
      if (y + ROW_HEIGHT > BOTTOM && rows.length) {
        pages.push({ report: ri, columns: cols, rows, first: first(), notices, part });
        notices = [];
        rows = [];
        y = top();
      }
      rows.push(i);
      y += ROW_HEIGHT;
    });
    pages.push({ report: ri, columns: cols, rows, first: first(), notices, part });
  });
  return pages;
}

/** The first pass: each report computed, planned and let go (memory: one report at a time). */
export async function planPack(source: PackSource): Promise<PackPlan> {
  const PDFDocument = pdfkit();
  const measure = new PDFDocument({ size: 'A4', layout: 'landscape', margin: MARGIN, autoFirstPage: false });
  const reports: PlannedReport[] = [];
  for (let i = 0; i < source.count; i++) {
    const r = await source.report(i);
    reports.push({ title: r.title, subtitle: subtitle(r), rangeLabel: r.range.label, hasNotices: r.notices.length > 0, pages: planReport(measure, r, i), shape: shapeOf(r), dataAsOf: r.dataAsOf });
  }
  const contentsPages = Math.max(1, Math.ceil(reports.length / CONTENTS_LINES));
  return { reports, contentsPages, pages: 1 + contentsPages + reports.reduce((t, r) => t + r.pages.length, 0) };
}

/** Waits while the output cannot take more (its buffer full), and lets what the document holds flow to it. */
async function drained(doc: PDFKit.PDFDocument, out: Writable): Promise<void> {
  await new Promise((r) => setImmediate(r));
  while (out.writableNeedDrain && !out.destroyed) await once(out, 'drain');
  if (doc.readableLength > 0 && !out.destroyed) await new Promise((r) => setImmediate(r));
}

/**
 * Writes the pack's PDF to `out` (ended when done) and answers its page count: a cover
 * (organization, pack, period, date), contents (each report and its first page), then each
 * report's pages (title, range or "As at" date, currency, the report's notices, its rows with the
 * figures as the Reports page shows them), "Page n of N" at the foot of every page. The reports
 * are computed again one at a time (the second pass) and drawn page by page as the output takes them.
 */
export async function packPdf(plan: PackPlan, source: PackSource, meta: PackMeta, out: Writable): Promise<{ pages: number }> {
  const PDFDocument = pdfkit();
  const doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: MARGIN, autoFirstPage: false, info: { Title: `${meta.name}: ${meta.periodLabel}`, Author: meta.organization, Creator: 'LedgerFlow' } });
  let failed: unknown;
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('close', resolve);
    out.on('error', reject);
    doc.on('error', reject);
  });
  done.catch((e: unknown) => (failed = e));
  doc.pipe(out);
  const firstPage = new Map<number, number>();
  let at = 1 + plan.contentsPages;
  plan.reports.forEach((r, i) => {
    firstPage.set(i, at + 1);
    at += r.pages.length;
  });
  const total = plan.pages;
  let pageNo = 0;
  const newPage = () => {
    doc.addPage();
    pageNo += 1;
    doc.font('Helvetica').fontSize(8).fillColor('#555555');
    // The foot is below the bottom margin: without it pdfkit would start a new page for it.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.text(`${meta.name} - ${meta.periodLabel} - Page ${pageNo} of ${total}`, MARGIN, FOOTER_Y, { width: PAGE.width - 2 * MARGIN, align: 'center', lineBreak: false });
    doc.page.margins.bottom = bottom;
    doc.fillColor('black');
  };
  const contentWidth = PAGE.width - 2 * MARGIN;

  // Cover
  newPage();
  doc.font('Helvetica-Bold').fontSize(26).text(meta.organization, MARGIN, 170, { width: contentWidth, align: 'center' });
  doc.moveDown(0.5).font('Helvetica').fontSize(18).text(meta.name, { width: contentWidth, align: 'center' });
  doc.moveDown(0.5).fontSize(14).text(meta.periodLabel, { width: contentWidth, align: 'center' });
  doc.moveDown(1.5).fontSize(11).fillColor('#555555').text(`Prepared ${dayLabel(meta.date)} by LedgerFlow`, { width: contentWidth, align: 'center' }).fillColor('black');

  // Contents
  for (let c = 0; c < plan.contentsPages; c += 1) {
    newPage();
    doc.font('Helvetica-Bold').fontSize(16).text('Contents', MARGIN, MARGIN);
    let y = MARGIN + 30;
    doc.font('Helvetica').fontSize(10);
    plan.reports.slice(c * CONTENTS_LINES, (c + 1) * CONTENTS_LINES).forEach((r, k) => {
      const i = c * CONTENTS_LINES + k;
      doc.text(fit(doc, `${i + 1}. ${r.title} (${r.subtitle})`, contentWidth - 80), MARGIN, y, { lineBreak: false });
      doc.text(`page ${firstPage.get(i)}`, PAGE.width - MARGIN - 70, y, { width: 70, align: 'right', lineBreak: false });
      y += 15;
    });
  }

  // The reports, one in memory at a time
  for (const [ri, planned] of plan.reports.entries()) {
    // A reader gone (the download cancelled) or an output failed: nothing more is computed or drawn.
    if (failed || out.destroyed) break;
    const r = await source.report(ri);
    if (shapeOf(r) !== planned.shape || r.dataAsOf !== planned.dataAsOf) {
      const e = new PackError('The figures changed while the pack was being made (a consolidation finished): make it again');
      doc.unpipe(out);
      out.destroy(e);
      throw e;
    }
    for (const p of planned.pages) {
      drawPage(doc, r, p, meta, newPage, contentWidth);
      await drained(doc, out);
      if (failed || out.destroyed) break;
    }
  }
  doc.end();
  await done;
  if (failed) throw failed;
  if (!out.writableFinished) throw new PackError('The output closed before the pack was written');
  return { pages: total };
}

function drawPage(doc: PDFKit.PDFDocument, r: ReportAnswer, p: ReportPage, meta: PackMeta, newPage: () => void, contentWidth: number): void {
  newPage();
  doc.font('Helvetica-Bold').fontSize(14).text(`${r.title}${p.first ? '' : ' (continued)'}`, MARGIN, MARGIN, { lineBreak: false });
  doc.font('Helvetica').fontSize(9).text(`${subtitle(r)}${p.part ? ` - ${p.part}` : ''}`, MARGIN, MARGIN + 19, { lineBreak: false });
  let y = BODY_TOP;
  if (p.notices.length) {
    doc.font('Helvetica-Bold').fontSize(8).text(p.notices[0] === 0 ? 'Notices' : 'Notices (continued)', MARGIN, y, { lineBreak: false });
    y += NOTICES_TITLE;
    doc.font('Helvetica').fontSize(8);
    // The bottom margin off while a notice is written: a notice is planned whole on its page, and
    // pdfkit would otherwise start a page of its own for the last line of one that ends near it.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    for (const i of p.notices) {
      const n = r.notices[i]!;
      doc.text(`- ${n}`, MARGIN, y, { width: contentWidth });
      y += noticeHeight(doc, n, contentWidth);
    }
    doc.page.margins.bottom = bottom;
  }
  if (!p.rows.length && p.notices.length) return;
  // Column headers (two lines at most), right-aligned over their figures
  doc.font('Helvetica-Bold').fontSize(7);
  p.columns.forEach((ci, k) => {
    const x = MARGIN + LABEL_WIDTH + k * FIGURE_WIDTH;
    doc.text(r.columns[ci]!.label, x, y, { width: FIGURE_WIDTH - 4, height: HEADER_HEIGHT - 2, align: 'right', ellipsis: true });
  });
  y += HEADER_HEIGHT;
  doc.moveTo(MARGIN, y - 3).lineTo(MARGIN + LABEL_WIDTH + p.columns.length * FIGURE_WIDTH, y - 3).lineWidth(0.5).stroke();
  for (const ri of p.rows) {
    const row = r.rows[ri]!;
    const bold = row.kind === 'section' || row.kind === 'total';
    doc.font(bold ? 'Helvetica-Bold' : row.kind === 'subtotal' ? 'Helvetica-Oblique' : 'Helvetica').fontSize(8);
    const indent = row.depth * 8;
    doc.text(fit(doc, row.label, LABEL_WIDTH - indent - 4), MARGIN + indent, y, { lineBreak: false });
    p.columns.forEach((ci, k) => {
      const text = figureText(row.values[ci] ?? null, row.format ?? r.columns[ci]!.format, meta.parentheses);
      if (text) doc.text(text, MARGIN + LABEL_WIDTH + k * FIGURE_WIDTH, y, { width: FIGURE_WIDTH - 4, align: 'right', lineBreak: false });
    });
    y += ROW_HEIGHT;
  }
}

/** The pack's XLSX, streamed to `out`: one sheet per report, as the statements' export makes them, a report at a time. */
export const packXlsx = (source: PackSource, out: Writable): Promise<void> => xlsxStream(source.count, (i) => source.report(i), out);

/** The pack's files' names: "board-pack-2026-03.pdf". */
export const packFileName = (name: string, period: string, ext: 'pdf' | 'xlsx') => `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'pack'}-${period}.${ext}`;
