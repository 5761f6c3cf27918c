// The pack's PDF laid out before it is drawn (warehouse/reports/pack.ts): the plan's page count is
// the PDF's, whatever the report holds. A report with more notices than a page takes (a fiscal
// year's intercompany mismatches, say) runs them over as many pages as they need, "Notices
// (continued)", before its rows; the contents and every "Page n of N" stay true. No database: the
// pack's source here answers reports made in the test.
//
// By hand: an A4 landscape page (595.28 pt high) has its body from 76 pt (the margin, 36, plus the
// title and subtitle, 40) to 553.28 pt (the margin and 6 pt above it). A one-line notice at 8 pt
// takes about 11.6 pt (its line, plus 2 pt after it), so a page holds about 40 of them below the
// 12 pt "Notices" title: 300 notices need 8 pages. So the report with 300 notices and 60 rows
// takes at least 8 pages. Rows of 11 pt start below the 20 pt column header (96 pt), so a page
// holds floor(457.28 / 11) = 41 of them: the plain report (40 rows, 12 columns: 8 figure columns
// a page width) takes 2 pages (two column slices of one page each).
import { PassThrough } from 'node:stream';
import type { ReportAnswer } from '../../warehouse/reports/answers';
import { packPdf, planPack, type PackSource } from '../../warehouse/reports/pack';
import { pdfText } from '../helpers/pdf';

function report(title: string, notices: number, rows: number): ReportAnswer {
  const columns = Array.from({ length: 12 }, (_, i) => ({ key: `c${i}`, label: `Entity ${i + 1}`, format: 'amount' as const }));
  return {
    title,
    currency: 'USD',
    range: { label: 'March 2026', months: ['2026-03'] },
    months: [],
    notices: Array.from({ length: notices }, (_, i) => `Intercompany mismatch number ${i + 1} beyond tolerance in March 2026: P and S differ by ${i + 1}.00 USD.`),
    columns,
    rows: Array.from({ length: rows }, (_, i) => ({ label: `Line ${i + 1}`, kind: 'account', depth: 0, values: columns.map(() => `${i + 1}.00`) })),
    dataAsOf: '2026-03-31T00:00:00.000Z',
  } as unknown as ReportAnswer;
}

it('lays out a report whose notices run over several pages: the plan has the PDF\'s pages, every notice once, every page "of N"', async () => {
  const reports = [report('Plain report', 0, 40), report('Report with many notices', 300, 60), report('Report after it', 2, 5)];
  const source: PackSource = { count: reports.length, report: async (i) => reports[i]! };
  const plan = await planPack(source);
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const { pages } = await packPdf(plan, source, { organization: 'Layout Group', name: 'Layout pack', periodLabel: 'March 2026', date: new Date(Date.UTC(2026, 3, 5)), parentheses: true }, out);
  const pdf = await pdfText(Buffer.concat(chunks));

  expect(pages).toBe(plan.pages);
  expect(pdf.total).toBe(plan.pages);
  expect(plan.reports[0]!.pages).toHaveLength(2);
  expect(plan.reports[1]!.pages.length).toBeGreaterThanOrEqual(8);
  for (let n = 1; n <= pdf.total; n++) expect(pdf.getPageText(n)).toContain(`Page ${n} of ${pdf.total}`);
  // Every notice is on a page, once, in order; the continuation pages say so.
  const noticePages = pdf.pages.filter((t) => t.includes('Report with many notices') && t.includes('Intercompany mismatch number'));
  expect(noticePages.length).toBeGreaterThanOrEqual(8);
  expect(noticePages.slice(1).every((t) => t.includes('Notices (continued)'))).toBe(true);
  const all = pdf.text;
  // (the last report's two notices are numbers 1 and 2 again)
  for (let i = 1; i <= 300; i++) expect(all.split(`mismatch number ${i} beyond`)).toHaveLength(i <= 2 ? 3 : 2);
  // The contents name each report's first page, as drawn.
  const contents = pdf.getPageText(2);
  for (const [i, r] of plan.reports.entries()) {
    const first = 1 + plan.contentsPages + plan.reports.slice(0, i).reduce((t, x) => t + x.pages.length, 0) + 1;
    expect(contents).toMatch(new RegExp(`${i + 1}\\. ${r.title}[^\\n]*page ${first}`));
    expect(pdf.getPageText(first)).toContain(r.title);
    expect(pdf.getPageText(first)).not.toContain('(continued)\n');
  }
  // The rows come after the notices: the many-notices report's first row is on its last notice page or after it.
  const firstRowPage = pdf.pages.findIndex((t) => t.includes('Report with many notices') && /Line 1 /.test(t));
  const lastNoticePage = pdf.pages.map((t, i) => (t.includes('mismatch number 300 ') ? i : -1)).find((i) => i >= 0)!;
  expect(firstRowPage).toBeGreaterThanOrEqual(lastNoticePage);
}, 60_000);
