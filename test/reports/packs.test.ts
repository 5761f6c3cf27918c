// Report packs on the real stack (Temporal dev server, FerretDB, the organization's SQLite
// database, the test run's Mailpit): the consolidation's worked example (P in USD, S in EUR 80 %
// owned, January to March 2026; test/helpers/consolidation-books.ts) consolidated by the worker,
// a pack of every built-in statement and a custom report sent now, read back from Mailpit (the
// PDF parsed with pdf-parse (test/helpers/pdf.ts), the XLSX with exceljs) and its figures checked against the api's
// statement answers and the hand computation below; a pack scheduled "when the month is locked"
// sent once per month whatever the locks do; a send that cannot reach its SMTP server retried and
// recorded failed; the rules of the routes.
//
// By hand (as test/reports/api.test.ts; S translated: revenue 345 / 488 / 423.50, expenses
// 230 / 305 / 363; P: revenue 1,000 / 700 / 800, expenses 400 / 300 / 300), Q1 FY2026:
//   revenue 2,500 + 1,256.50 = 3,756.50; expenses 1,000 + 898 = 1,898; profit 1,858.50.
//   As at 31 March: cash 6,500 + 1,300 x 1.18 = 8,034 = total assets = total liabilities and
//   equity (creditors 590, equity 7,444).
//   March alone (the locked month's pack): revenue 800 + 350 x 1.21 = 1,223.50, expenses 300 +
//   300 x 1.21 = 663, profit 560.50.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import ExcelJS from 'exceljs';
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { ReportPackSend } from '../../common/models/report-pack';
import { STATEMENT_TITLES, STATEMENTS } from '../../common/reports/statements';
import { workflowIds } from '../../common/temporal';
import { nthWorkingDay } from '../../activities/packs';
import { createWorker } from '../../worker/worker';
import { packSendWorkflow } from '../../workflows/packs';
import { Writable } from 'node:stream';
import { resolveOrgConnection } from '../../warehouse/connection';
import { figureText, PackError } from '../../warehouse/reports/pack';
import { openPackRender } from '../../warehouse/reports/pack-thread';
import { consolidateWorkedExample, onboardThroughApi } from '../helpers/consolidation-books';
import { mailAttachments, mailpitConfig, waitForMails, mailsTo } from '../helpers/mailpit';
import { startStack, workflowBundle, type TestStack } from '../helpers/stack';
import { pdfText } from '../helpers/pdf';
import { userWithToken } from '../helpers/users';
import { waitFor } from '../helpers/wait';

const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@packs.example.com`;

let stack: TestStack;
let token: string;
let financeToken: string;
let outsiderToken: string;
let orgID: string;
let financeId: string;
let controllerId: string;
let outsiderId: string;
let customId: string;
const api = (method: 'get' | 'put' | 'post' | 'delete', path: string, t = token) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);

type Row = { label: string; values: (string | null)[] };
/** The consolidated (last column) figure of a row of an api answer. */
const consolidated = (rows: Row[], label: string): string => {
  const r = rows.find((x) => x.label === label);
  if (!r) throw new Error(`no row "${label}" in ${rows.map((x) => x.label).join(' | ')}`);
  return r.values.at(-1)!;
};
/** The PDF's line that starts with `label` (its figures follow it). */
const lineOf = (text: string, label: string) => text.split('\n').find((l) => l.startsWith(`${label} `)) ?? '';

beforeAll(async () => {
  stack = await startStack(mailpitConfig());
  ({ token } = await userWithToken(stack.app, { email: addr('admin'), role: 'admin', fullName: 'Pat Packs' }));
  orgID = String((await Organization.create({ organizationName: `Pack Group ${run}` }))._id);
  const other = String((await Organization.create({ organizationName: `Other Group ${run}` }))._id);
  let u;
  ({ user: u, token: financeToken } = await userWithToken(stack.app, { email: addr('finance'), role: 'user', organization_id: orgID, fullName: 'Fiona Finance' }));
  financeId = String(u._id);
  ({ user: u } = await userWithToken(stack.app, { email: addr('controller'), role: 'user', organization_id: orgID, fullName: 'Carl Controller' }));
  controllerId = String(u._id);
  ({ user: u, token: outsiderToken } = await userWithToken(stack.app, { email: addr('outsider'), role: 'user', organization_id: other, fullName: 'Olga Outsider' }));
  outsiderId = String(u._id);
  await onboardThroughApi(stack.app, token, orgID, 'packs');
  await consolidateWorkedExample(stack.app, token, orgID);
  const custom = await api('post', `/reports/${orgID}/custom`).send({ name: 'Revenue summary', lines: [{ id: 'revenue', label: 'Sales revenue', kind: 'accounts', accounts: ['4000'] }] });
  expect(custom.status).toBe(201);
  customId = custom.body.data.id;
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

const allItems = () => [...STATEMENTS.map((ref) => ({ kind: 'statement', ref })), { kind: 'custom', ref: customId }];

describe('report packs', () => {
  it('refuses what a pack cannot hold and other organizations', async () => {
    const bad = await api('post', `/reports/${orgID}/packs`).send({ name: 'Bad', items: [{ kind: 'statement', ref: 'cash-flow-x' }, { kind: 'custom', ref: 'nope' }], recipients: [financeId, outsiderId] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('unknown statement "cash-flow-x"');
    expect(bad.body.message).toContain('unknown custom report "nope"');
    expect(bad.body.message).toContain(`recipients must be users of the organization: ${outsiderId} is not`);
    expect((await api('post', `/reports/${orgID}/packs`).send({ name: 'No one', items: allItems(), recipients: [] })).status).toBe(400);
    expect((await api('post', `/reports/${orgID}/packs`).send({ name: 'Sched', items: allItems(), recipients: [financeId], schedule: { kind: 'working-day' } })).body.errors[0].msg).toBe('A working-day schedule needs its day (1 to 20)');
    expect((await api('get', `/reports/${orgID}/packs`, outsiderToken)).status).toBe(403);
    expect((await api('get', `/reports/${orgID}/packs`)).body.data.packs).toEqual([]);
    const options = await api('get', `/reports/${orgID}/packs/options`, financeToken);
    expect(options.body.data.statements.map((s: { ref: string }) => s.ref)).toEqual([...STATEMENTS]);
    expect(options.body.data.users.map((x: { name: string }) => x.name)).toEqual(['Carl Controller', 'Fiona Finance']);
  });

  it('sends a pack now: the mail in Mailpit, its PDF and XLSX with the api\'s figures to the cent, and the history', async () => {
    const created = await api('post', `/reports/${orgID}/packs`, financeToken).send({ name: 'Board pack', items: allItems(), range: 'quarter', period: '2026-03', recipients: [financeId] });
    expect(created.status).toBe(201);
    const packId = created.body.data.id as string;
    const sent = await api('post', `/reports/${orgID}/packs/${packId}/send`, financeToken).send({});
    expect(sent.status).toBe(202);
    const [mail] = await waitForMails(addr('finance'), 1, 60_000);
    expect(mail!.subject).toBe(`Board pack: Q1 FY2026 (Jan-Mar 2026) (Pack Group ${run})`);
    const files = await mailAttachments(mail!.id);
    expect(files.map((f) => [f.fileName, f.contentType])).toEqual([
      ['board-pack-2026-03.pdf', 'application/pdf'],
      ['board-pack-2026-03.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ]);

    // The api's answers for the same range
    const q = 'period=2026-03&range=quarter';
    const bs = (await api('get', `/reports/${orgID}/statements/balance-sheet?${q}`)).body.data;
    const pl = (await api('get', `/reports/${orgID}/statements/profit-and-loss?${q}`)).body.data;
    const rev = (await api('get', `/reports/${orgID}/custom/${customId}/figures?${q}`)).body.data;
    expect(consolidated(bs.rows, 'Total assets')).toBe('8034.00');
    expect(consolidated(bs.rows, 'Total liabilities and equity')).toBe('8034.00');
    expect(consolidated(pl.rows, 'Profit for the period')).toBe('1858.50');
    expect(consolidated(rev.rows, 'Sales revenue')).toBe('3756.50');

    const pdf = await pdfText(files[0]!.content);
    const n = pdf.total;
    // Cover, contents, page numbers
    expect(pdf.getPageText(1)).toContain(`Pack Group ${run}`);
    expect(pdf.getPageText(1)).toContain('Board pack');
    expect(pdf.getPageText(1)).toContain('Q1 FY2026 (Jan-Mar 2026)');
    expect(pdf.getPageText(1)).toMatch(/Prepared \d{1,2} [A-Z][a-z]+ \d{4} by LedgerFlow/);
    expect(pdf.getPageText(2)).toContain('Contents');
    for (const s of STATEMENTS) expect(pdf.getPageText(2)).toMatch(new RegExp(`\\d+\\. ${STATEMENT_TITLES[s]} \\(.*\\) page \\d+`));
    expect(pdf.getPageText(2)).toMatch(/\d+\. Revenue summary \(Q1 FY2026 \(Jan-Mar 2026\); USD\) page \d+/);
    for (let i = 1; i <= n; i += 1) expect(pdf.getPageText(i)).toContain(`Page ${i} of ${n}`);
    // The contents' page numbers lead to the reports
    const bsPage = Number(/\d+\. Balance sheet \(.*\) page (\d+)/.exec(pdf.getPageText(2))![1]);
    expect(pdf.getPageText(bsPage)).toContain('Balance sheet\nAs at 31 March 2026; USD');
    // Figures as the api answers them (the consolidated column last), notices included
    expect(lineOf(pdf.text, 'Total assets').endsWith(` ${figureText(consolidated(bs.rows, 'Total assets'), 'amount', true)}`)).toBe(true);
    expect(lineOf(pdf.text, 'Total assets')).toMatch(/ 8,034\.00$/);
    expect(lineOf(pdf.text, 'Total liabilities and equity')).toMatch(/ 8,034\.00$/);
    expect(lineOf(pdf.text, 'Profit for the period')).toMatch(/ 1,858\.50$/);
    expect(lineOf(pdf.text, 'Sales revenue')).toMatch(/ 3,756\.50$/);
    expect(bs.notices.length).toBeGreaterThan(0);
    for (const notice of bs.notices as string[]) expect(pdf.text.replace(/\s+/g, ' ')).toContain(notice);

    // The XLSX: one sheet per report, real numbers
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(files[1]!.content as unknown as ArrayBuffer);
    expect(book.worksheets.map((w) => w.name)).toEqual([...STATEMENTS.map((s) => STATEMENT_TITLES[s]), 'Revenue summary']);
    const lastFigure = (sheet: string, label: string) => {
      const ws = book.getWorksheet(sheet)!;
      let found: unknown;
      ws.eachRow((r) => {
        if (String(r.getCell(1).value).trim() === label) found = r.getCell(r.cellCount).value;
      });
      return found;
    };
    expect(lastFigure('Balance sheet', 'Total assets')).toBe(8034);
    expect(lastFigure('Profit and loss', 'Profit for the period')).toBe(1858.5);
    expect(lastFigure('Revenue summary', 'Sales revenue')).toBe(3756.5);

    // The history
    const history = await waitFor('the send recorded sent', async () => {
      const h = (await api('get', `/reports/${orgID}/packs/${packId}/history`, financeToken)).body.data.sends;
      return h[0]?.status === 'sent' ? h : null;
    }, 30_000);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ trigger: 'now', requestedBy: 'Fiona Finance', period: '2026-03', recipients: [addr('finance')], status: 'sent', attempts: 1, error: null, pages: n });
    const listed = (await api('get', `/reports/${orgID}/packs`, financeToken)).body.data.packs;
    expect(listed[0]).toMatchObject({ name: 'Board pack', recipients: [{ name: 'Fiona Finance', email: addr('finance') }], lastSend: { status: 'sent' } });
    expect(listed[0].items.map((i: { title: string }) => i.title)).toEqual([...STATEMENTS.map((s) => STATEMENT_TITLES[s]), 'Revenue summary']);

    // Downloads now: the same PDF text (but the date) and the XLSX
    const dl = await api('get', `/reports/${orgID}/packs/${packId}/pdf`, financeToken).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(dl.status).toBe(200);
    expect(dl.headers['content-type']).toBe('application/pdf');
    const again = await pdfText(dl.body as Buffer);
    expect(again.total).toBe(n);
    expect(lineOf(again.text, 'Total assets')).toMatch(/ 8,034\.00$/);
    const x = await api('get', `/reports/${orgID}/packs/${packId}/xlsx`, financeToken);
    expect(x.status).toBe(200);
    expect(x.headers['content-disposition']).toContain('board-pack-2026-03.xlsx');
  }, 120_000);

  it("makes a pack on its own thread: a reader gone mid-file ends it, a cancel after the plan ends it, and a pack that cannot be made is refused as one", async () => {
    const org = (await Organization.findById(orgID).lean())!;
    const conn = await resolveOrgConnection(stack.config, { orgId: orgID, databaseName: org.onboarding!.databaseName! });
    const job = { conn, items: allItems() as { kind: 'statement' | 'custom'; ref: string }[], range: 'month' as const, period: '2026-03', plan: true };
    const meta = { organization: 'Pack Group', name: 'Board pack', periodLabel: 'March 2026', date: new Date(), parentheses: true };

    // A reader that goes away after the first chunk: the draw fails with the reason, the thread ends.
    const render = await openPackRender(job);
    expect(render.plan!.pages).toBeGreaterThan(2);
    let got = 0;
    const reader = new Writable({
      write(chunk: Buffer, _e, done) {
        got += chunk.length;
        done();
        reader.destroy();
      },
    });
    await expect(render.draw(meta, { pdf: reader })).rejects.toThrow('The output closed before the pack was written');
    expect(got).toBeGreaterThan(0);

    // A reader gone before the draw began (it left while the pack was laid out): refused at once, the thread ended.
    const third = await openPackRender(job);
    const gone = new Writable({ write: (_c, _e, done) => done() });
    gone.destroy();
    await expect(third.draw(meta, { pdf: gone })).rejects.toThrow('The output closed before the pack was written');

    // Cancelled after its plan (a refusal of the caller's): nothing drawn, the promise of a later draw never hangs.
    const second = await openPackRender(job);
    second.cancel();
    await expect(second.draw(meta, { pdf: new Writable({ write: (_c, _e, done) => done() }) })).rejects.toThrow();

    // A custom report that does not exist: a PackError from the thread, before any byte.
    await expect(openPackRender({ ...job, items: [{ kind: 'custom', ref: '000000000000000000000000' }] })).rejects.toBeInstanceOf(PackError);
  }, 120_000);

  it('sends a pack scheduled "when the month is locked" once per month: locking again, or unlocking and locking, sends nothing more', async () => {
    const created = await api('post', `/reports/${orgID}/packs`).send({ name: 'Month end', items: [{ kind: 'statement', ref: 'profit-and-loss' }], range: 'month', period: null, recipients: [controllerId], schedule: { kind: 'locked', day: null } });
    expect(created.status).toBe(201);
    const packId = created.body.data.id as string;
    expect((await api('put', `/consolidation/${orgID}/locks/2026-03`)).status).toBe(200);
    const [march] = await waitForMails(addr('controller'), 1, 60_000);
    expect(march!.subject).toBe(`Month end: March 2026 (Pack Group ${run})`);
    const marchPdf = await pdfText((await mailAttachments(march!.id))[0]!.content);
    expect(lineOf(marchPdf.text, 'Profit for the period')).toMatch(/ 560\.50$/);
    const first = await stack.env.client.workflow.getHandle(workflowIds.packSend(packId, 'locked-2026-03')).describe();
    await waitFor('the March send finished', async () => (await stack.env.client.workflow.getHandle(first.workflowId).describe()).status.name === 'COMPLETED', 30_000);

    // The same month locked again (over its lock), then unlocked and locked: no new send
    expect((await api('put', `/consolidation/${orgID}/locks/2026-03`)).status).toBe(200);
    expect((await api('delete', `/consolidation/${orgID}/locks/2026-03`)).status).toBe(200);
    expect((await api('put', `/consolidation/${orgID}/locks/2026-03`)).status).toBe(200);
    // A different month is a new send: when its mail is there, the relocks' would have been started before it
    expect((await api('put', `/consolidation/${orgID}/locks/2026-02`)).status).toBe(200);
    const mails = await waitForMails(addr('controller'), 2, 60_000);
    expect(mails.map((m) => m.subject)).toEqual([`Month end: March 2026 (Pack Group ${run})`, `Month end: February 2026 (Pack Group ${run})`]);
    // One run of March's send ever (REJECT_DUPLICATE), and one record per month
    const after = await stack.env.client.workflow.getHandle(workflowIds.packSend(packId, 'locked-2026-03')).describe();
    expect(after.runId).toBe(first.runId);
    const history = await waitFor('both sends recorded sent', async () => {
      const h = (await api('get', `/reports/${orgID}/packs/${packId}/history`)).body.data.sends as { key: string; status: string; trigger: string; requestedBy: string }[];
      return h.length === 2 && h.every((s) => s.status === 'sent') ? h : null;
    }, 30_000);
    expect(history.map((s) => [s.key, s.trigger, s.requestedBy]).sort()).toEqual([
      ['locked-2026-02', 'locked', 'Pat Packs'],
      ['locked-2026-03', 'locked', 'Pat Packs'],
    ]);
    expect(await mailsTo(addr('controller'))).toHaveLength(2);
  }, 120_000);

  it('retries a send whose SMTP server refuses, then records it failed with the reason', async () => {
    const created = await api('post', `/reports/${orgID}/packs`).send({ name: 'Refused', items: [{ kind: 'statement', ref: 'balance-sheet' }], period: '2026-03', recipients: [financeId] });
    const packId = created.body.data.id as string;
    // A port nothing listens on: the SMTP connection is refused
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const config = { ...stack.config, SMTP_URL: `smtp://127.0.0.1:${port}`, TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-closed-smtp` };
    const worker = await createWorker({ config, connection: stack.env.nativeConnection, workflowBundle: await workflowBundle(config) });
    const running = worker.run();
    try {
      const key = 'now-refused';
      const outcome = await stack.env.client.workflow
        .execute(packSendWorkflow, { workflowId: workflowIds.packSend(packId, key), taskQueue: config.TEMPORAL_TASK_QUEUE, args: [{ orgId: orgID, packId, trigger: 'now', key, requestedBy: 'Pat Packs', attempts: 2 }] })
        .then(() => 'sent', (e: Error) => e);
      expect(outcome).toBeInstanceOf(Error);
    } finally {
      worker.shutdown();
      await running;
    }
    const [send] = (await api('get', `/reports/${orgID}/packs/${packId}/history`)).body.data.sends;
    expect(send).toMatchObject({ key: 'now-refused', status: 'failed', attempts: 2 });
    expect(send.error).toMatch(/ECONNREFUSED/);
    expect(send.finishedAt).not.toBeNull();
    expect(await ReportPackSend.countDocuments({ pack_id: packId })).toBe(1);
  }, 120_000);

  it('keeps a Temporal schedule for a working-day pack, and the Nth working day is counted Monday to Friday', async () => {
    // November 2026 starts on a Sunday: Mon 2 is the 1st working day, Fri 6 the 5th, Mon 9 the 6th.
    expect(nthWorkingDay('2026-11', 1)).toBe('2026-11-02');
    expect(nthWorkingDay('2026-11', 5)).toBe('2026-11-06');
    expect(nthWorkingDay('2026-11', 6)).toBe('2026-11-09');
    // May 2026 starts on a Friday.
    expect(nthWorkingDay('2026-05', 1)).toBe('2026-05-01');
    expect(nthWorkingDay('2026-05', 2)).toBe('2026-05-04');
    const created = await api('post', `/reports/${orgID}/packs`).send({ name: 'Fifth day', items: [{ kind: 'statement', ref: 'trial-balance' }], recipients: [financeId], schedule: { kind: 'working-day', day: 5 } });
    expect(created.status).toBe(201);
    const packId = created.body.data.id as string;
    const handle = stack.env.client.schedule.getHandle(workflowIds.packSchedule(packId));
    expect((await handle.describe()).action.workflowType).toBe('packScheduleWorkflow');
    // No schedule any more: it is deleted with the schedule's change, and with the pack
    const body = { name: 'Fifth day', items: [{ kind: 'statement', ref: 'trial-balance' }], recipients: [financeId], schedule: { kind: 'none', day: null } };
    expect((await api('put', `/reports/${orgID}/packs/${packId}`).send(body)).status).toBe(200);
    await expect(handle.describe()).rejects.toThrow();
    expect((await api('put', `/reports/${orgID}/packs/${packId}`).send({ ...body, schedule: { kind: 'working-day', day: 3 } })).status).toBe(200);
    expect((await handle.describe()).spec.calendars?.length).toBe(1);
    expect((await api('delete', `/reports/${orgID}/packs/${packId}`)).status).toBe(200);
    await expect(handle.describe()).rejects.toThrow();
    expect((await api('get', `/reports/${orgID}/packs/${packId}`)).status).toBe(404);
  });
});
