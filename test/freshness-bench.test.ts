// The measurement behind `npm run bench:freshness` (scripts/bench-freshness.mjs), skipped unless
// BENCH_FRESHNESS=1: nothing here is asserted beyond the run working; the figures go to the JSON
// file BENCH_OUT for the script to print against their targets.
//
// Against the simulators serving the demo group's books (QuickBooks: the US company; Sage
// Intacct: the UK company; NetSuite: the German subsidiary), with the schedule tick at one minute
// (SYNC_INTERVAL_HOURS=1/60) and the window at its default 25 months:
// - time from a source change to the consolidation that includes it: BENCH_CHANGES changes per
//   source (a sale on credit, Dr receivables / Cr revenue), one every BENCH_PACE_MS; for each, the
//   first successful sync that began after it (QuickBooks: its webhook's, or the schedule's) and
//   the consolidation that round ran (its history record's reports.consolidatedAt), minus the
//   time of the change;
// - rows read per incremental sync against the connection's first (full, 25-month) sync: all rows
//   written, and the ledger rows alone (the tables read month by month; the chart of accounts and
//   other master data are read again only when the source says they changed, which no change
//   here does).
// The changes go to the current month (the open month after the books' last, closed one, and the
// window's latest: where a sale made today lands; a run across the end of a month, UTC, is not
// supported: the window moves with it). At the end every change is checked in
// trial_balance: the receivables of each source moved by exactly the sum of its changes (cents).
//
// The baseline is read only once the first (full) syncs are in trial_balance: Sync now answers
// when the sync has written the connector's tables, and the organization's round (trial_balance,
// then the consolidation) follows it. Reading it at Sync now's answer took a baseline without the
// NetSuite company (the last of the three to sync): its receivables in the books' last month then
// "moved" by the books' own 13,356.00 on top of the changes (1,365,603 of 30,003 cents in a
// 3-change run). So the test waits for each first sync's history record to say it was applied
// (`reports.appliedAt`), then checks the baseline against the books the simulators serve; by hand
// for the books of a run on 2026-11-27 (months 2024-11 to 2026-10; the figures move with the month
// the books end), receivables in the last month, 2026-10:
// - QuickBooks (the US company, account 84, a balance carried forward: every journal through
//   2026-10): 525,831.35;
// - Sage Intacct (the UK company, account 11000, the month's debits less credits: get_trialbalance
//   of the month): 165,725.94 - 158,015.97 = 7,709.97;
// - NetSuite (the German subsidiary, account 1200, the month's posted lines): 204,377.33 -
//   191,021.33 = 13,356.00;
// and in the current month, 2026-11 (no journal in the books): QuickBooks 525,831.35 carried
// forward, Sage Intacct and NetSuite 0.00. Change i (0-based) is 10,000 + i cents (100.00, 100.01,
// ...), the same to each source; N changes add N x 100.00 + N(N-1)/2 cents (3 changes: 300.03;
// 100 changes: 10,049.50), so after 100 changes the current month holds 535,880.85 (QuickBooks),
// 10,049.50 (Sage Intacct) and 10,049.50 (NetSuite).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import request from 'supertest';
import { Organization } from '../common/models/organization';
import type { SyncProvider } from '../common/contract/connections';
import { connectorTables } from '../warehouse/catalog/connector-tables';
import { localDatabaseFile } from '../warehouse/connection';
import { DEMO_NETSUITE_ACCOUNTS, DEMO_SOURCE_IDS, demoBooks } from '../simulators/demo-books';
import { FakeIntacct } from '../simulators/intacct';
import { FakeIntuit } from '../simulators/intuit';
import { FakeNetSuite, generateNetSuiteKey } from '../simulators/netsuite';
import { consolidateWorkedExample, onboardThroughApi } from './helpers/consolidation-books';
import { syncRunsOf } from './helpers/runs';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

const RUN = process.env.BENCH_FRESHNESS === '1';
const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 1500);
const VERIFIER = 'bench-freshness-verifier-token';
const books = demoBooks();
const REALM = DEMO_SOURCE_IDS.quickbooksRealmId;
const NS_CLIENT = 'bench0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab';
const NS_CERT = 'bench_cert';
const nsKey = generateNetSuiteKey('rsa');
const code = (role: 'US' | 'UK', key: string) => books.entities[role].accounts.find((a) => a.key === key)!.code;
/** The books' last (closed) month, and the current (open) month after it, the sync window's latest, where the changes go. */
const LAST = books.months.at(-1)!;
const CURRENT = new Date().toISOString().slice(0, 7);
/** The connector tables read month by month (the rest, the chart and master data, are read whole on every sync). */
const PERIODIC = new Set(Object.values(connectorTables).filter((t) => t.periodic).map((t) => t.name));
/** The Sage Intacct company: its id is its entity in trial_balance. */
const SAGE_CO = DEMO_SOURCE_IDS.intacctCompanyId;

let stack: TestStack;
let intuit: FakeIntuit;
let intacct: FakeIntacct;
let netsuite: FakeNetSuite;
let server: Server;
let token: string;
let orgId: string;
let databaseName: string;
const ids: Partial<Record<SyncProvider, string>> = {};

const api = () => request(stack.app);
const bearer = () => ({ Authorization: `Bearer ${token}` });
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : NaN;
};
const receivablesNet = (entity: string, account: string, period: string) => {
  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName), { readonly: true });
  try {
    // Each stored amount is exact to 4 decimals (warehouse/transforms/trial-balance.ts): summed as integer units of 1/10,000.
    const r = db.prepare(`select coalesce(sum(cast(round(debit * 10000) as integer) - cast(round(credit * 10000) as integer)), 0) as units from trial_balance where entity = ? and account_code = ? and period = ?`).safeIntegers(true).get(entity, account, period) as { units: bigint };
    if (r.units % 100n !== 0n) throw new Error(`${entity} ${account}: receivables of ${r.units} ten-thousandths are not whole cents`);
    return r.units / 100n;
  } finally {
    db.close();
  }
};

/** Receivables in `period` as the books say, in cents: a balance carried forward (QuickBooks' trial balance) or the month's debits less credits (Sage Intacct's and NetSuite's). */
function bookReceivables(role: 'US' | 'UK' | 'DE', carriedForward: boolean, period: string): bigint {
  const e = books.entities[role];
  const account = e.accounts.find((a) => a.key === 'receivables')!.code;
  let net = 0n;
  for (const j of e.journals) if (carriedForward ? j.month <= period : j.month === period) for (const l of j.lines) if (l.account === account) net += l.debit - l.credit;
  return net;
}

(RUN ? describe : describe.skip)('bench:freshness', () => {
  beforeAll(async () => {
    intuit = await new FakeIntuit({ webhookVerifierToken: VERIFIER }).start();
    intuit.addBookCompany(REALM, books.entities.US.name, books, 'US');
    intacct = await new FakeIntacct().start();
    intacct.addBookCompany(SAGE_CO, 'bench', 'bench-password', books, 'UK');
    netsuite = await new FakeNetSuite({ accountId: DEMO_SOURCE_IDS.netsuiteAccountId, books }).start();
    netsuite.addIntegration(NS_CLIENT, NS_CERT, nsKey.publicKeyPem);
    stack = await startStack({
      ...intuit.env(),
      ...netsuite.env(),
      SAGE_ENDPOINT_URL: intacct.url,
      QBO_WEBHOOK_VERIFIER_TOKEN: VERIFIER,
      ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: '1',
      SYNC_INTERVAL_HOURS: String(1 / 60),
    });
    server = createServer(stack.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    intuit.webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/quickbooks/webhooks`;
    ({ token } = await userWithToken(stack.app, { email: 'bench-freshness@example.com', role: 'admin', fullName: 'Bench Admin' }));
    orgId = String((await Organization.create({ organizationName: 'Freshness Bench' }))._id);
    await onboardThroughApi(stack.app, token, orgId, 'fresh');
    databaseName = (await Organization.findById(orgId).lean())!.onboarding!.databaseName!;
    await consolidateWorkedExample(stack.app, token, orgId);
    const started = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(bearer());
    const state = new URL(started.body.data.authorizeUrl).searchParams.get('state')!;
    ids.quickbooks = (await api().post('/api/v1/quickbooks/token-exchange').set(bearer()).send({ code: intuit.issueCode(REALM), state, realmId: REALM })).body.data.account.id;
    ids.sage = (await api().post('/api/v1/sage').set(bearer()).send({ sageUserID: 'bench', sageUserPassword: 'bench-password', sageSenderID: intacct.senderId, sageSenderPassword: intacct.senderPassword, sageCompanyID: SAGE_CO, organization_id: orgId })).body.data.id;
    ids.netsuite = (await api().post('/api/v1/netsuite').set(bearer()).send({ accountId: netsuite.accountId, clientId: NS_CLIENT, certificateId: NS_CERT, privateKey: nsKey.privateKeyPem, organization_id: orgId })).body.data.id;
    // The first (full) syncs, through Sync now; then the schedules and webhooks take over.
    for (const p of ['quickbooks', 'sage', 'netsuite'] as const) {
      const res = p === 'quickbooks' ? await api().post('/api/v1/quickbooks').set(bearer()).send({ id: ids.quickbooks, organization_id: orgId }) : await api().get(`/api/v1/${p}/data?id=${ids[p]}`).set(bearer());
      expect(res.status).toBe(200);
    }
  }, 600_000);
  afterAll(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await stack?.stop();
    await intuit?.stop();
    await intacct?.stop();
    await netsuite?.stop();
  });

  it('measures the time from a change to the consolidation that includes it, and the rows read', async () => {
    const providers = ['quickbooks', 'sage', 'netsuite'] as const;
    const receivables = (period: string) => ({
      quickbooks: receivablesNet(REALM, code('US', 'receivables'), period),
      sage: receivablesNet(SAGE_CO, code('UK', 'receivables'), period),
      netsuite: receivablesNet(books.entities.DE.entityKey, '1200', period),
    });
    // The first syncs' rounds: until each has been applied, trial_balance may not hold its data.
    await waitFor('the first syncs applied to trial_balance', async () => {
      for (const p of providers) {
        const rs = await syncRunsOf(stack.config, orgId, p, ids[p]!, 50);
        const failed = rs.find((r) => r.reports?.error);
        if (failed) throw new Error(`${p}: sync ${failed.id} did not reach the reports: ${failed.reports!.error}`);
        if (!rs.some((r) => r.status === 'succeeded' && r.reports?.appliedAt)) return null;
      }
      return true;
    }, 300_000, 500);
    // The baseline is the books' (header): the full syncs brought every cent of them, in the books'
    // last month and in the current one (where the changes go).
    if (CURRENT <= LAST) throw new Error(`the current month ${CURRENT} is not after the books' last ${LAST}`);
    for (const period of [LAST, CURRENT]) {
      const books0 = { quickbooks: bookReceivables('US', true, period), sage: bookReceivables('UK', false, period), netsuite: bookReceivables('DE', false, period) };
      const held = receivables(period);
      for (const p of providers) if (held[p] !== books0[p]) throw new Error(`${p}: before the changes trial_balance holds ${held[p]} cents of receivables in ${period}, the books ${books0[p]}`);
    }
    const before = receivables(CURRENT);
    const posted: Record<SyncProvider, number[]> = { quickbooks: [], sage: [], netsuite: [], xero: [] };
    const sums = { quickbooks: 0n, sage: 0n, netsuite: 0n };
    const receivablesId = DEMO_NETSUITE_ACCOUNTS.find((a) => a.key === 'receivables')!.id;
    const revenueId = DEMO_NETSUITE_ACCOUNTS.find((a) => a.key === 'revenue')!.id;
    for (let i = 0; i < CHANGES; i++) {
      const cents = BigInt(10_000 + i);
      await Promise.all([
        (async () => {
          posted.quickbooks.push(Date.now());
          await intuit.postJournal(REALM, { month: CURRENT, amountCents: cents });
        })(),
        (async () => {
          posted.sage.push(Date.now());
          intacct.postJournal(SAGE_CO, { month: CURRENT, lines: [{ account: code('UK', 'receivables'), debit: cents, credit: 0n }, { account: code('UK', 'revenue'), debit: 0n, credit: cents }] });
        })(),
        (async () => {
          posted.netsuite.push(Date.now());
          netsuite.postJournal(DEMO_SOURCE_IDS.netsuiteSubsidiaryIds.DE, CURRENT, [{ account: receivablesId, debit: cents, credit: 0n }, { account: revenueId, debit: 0n, credit: cents }]);
        })(),
      ]);
      for (const p of providers) sums[p] += cents;
      await new Promise((r) => setTimeout(r, PACE_MS)); // the pace of changes at the source (not a wait for LedgerFlow)
    }
    const lastPost = Math.max(...providers.map((p) => posted[p].at(-1)!));
    const result: Record<string, unknown> = { changes: CHANGES, paceMs: PACE_MS, tickSeconds: 60 };
    for (const p of providers) {
      const runs = await waitFor(`${p}: a consolidation after the last change`, async () => {
        const rs = await syncRunsOf(stack.config, orgId, p, ids[p]!, 1000);
        return rs.some((r) => r.status === 'succeeded' && r.startedAt.getTime() >= posted[p].at(-1)! && r.reports?.consolidatedAt) ? rs : null;
      }, 300_000, 500);
      const done = runs.filter((r) => r.status === 'succeeded' && r.reports?.consolidatedAt).sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
      // Each change, split where its time went: waiting for its sync to start (the schedule's
      // tick; the webhook's round for QuickBooks), the sync itself, and the round after it
      // (debounce, any round ahead of it, trial_balance, the consolidation).
      const split = { waitMs: [] as number[], syncMs: [] as number[], roundMs: [] as number[] };
      const latencies = posted[p].map((t) => {
        const r = done.find((x) => x.startedAt.getTime() >= t)!;
        const consolidatedAt = new Date(r.reports!.consolidatedAt!).getTime();
        const finishedAt = r.finishedAt ? r.finishedAt.getTime() : consolidatedAt;
        split.waitMs.push(r.startedAt.getTime() - t);
        split.syncMs.push(finishedAt - r.startedAt.getTime());
        split.roundMs.push(consolidatedAt - finishedAt);
        return consolidatedAt - t;
      });
      const stats = (xs: number[]) => ({ p50Ms: pct(xs, 50), p95Ms: pct(xs, 95), maxMs: Math.max(...xs) });
      const ordered = [...runs].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
      const full = ordered.find((r) => r.status === 'succeeded')!;
      const incremental = ordered.filter((r) => r.status === 'succeeded' && r !== full && r.startedAt.getTime() >= posted[p][0]! && r.startedAt.getTime() <= lastPost + 120_000 && r.rowsTotal > 0);
      const rows = incremental.map((r) => r.rowsTotal);
      const ledger = (r: (typeof runs)[number]) => Object.entries(r.rows).reduce((n, [table, k]) => n + (PERIODIC.has(table) ? k : 0), 0);
      const ledgerRows = incremental.map(ledger);
      result[p] = {
        p50Ms: pct(latencies, 50),
        p95Ms: pct(latencies, 95),
        maxMs: Math.max(...latencies),
        syncs: incremental.length,
        fullRows: full.rowsTotal,
        fullMonths: full.periods.length,
        incrementalRowsMean: rows.length ? rows.reduce((a, b) => a + b, 0) / rows.length : 0,
        incrementalRowsMax: rows.length ? Math.max(...rows) : 0,
        incrementalMonthsMax: Math.max(0, ...incremental.map((r) => r.periods.length)),
        fullLedgerRows: ledger(full),
        incrementalLedgerRowsMean: ledgerRows.length ? ledgerRows.reduce((a, b) => a + b, 0) / ledgerRows.length : 0,
        incrementalLedgerRowsMax: ledgerRows.length ? Math.max(...ledgerRows) : 0,
        breakdown: { wait: stats(split.waitMs), sync: stats(split.syncMs), round: stats(split.roundMs) },
      };
    }
    // Every change is in trial_balance, to the cent.
    const moved = () => {
      const now = receivables(CURRENT);
      return { quickbooks: now.quickbooks - before.quickbooks, sage: now.sage - before.sage, netsuite: now.netsuite - before.netsuite };
    };
    try {
      await waitFor('every change in trial_balance', async () => (providers.every((p) => moved()[p] === sums[p]) ? true : null), 300_000, 500);
    } catch (e) {
      // Say which source is off, and by how much (cents), for whoever looks into it.
      const m = moved();
      throw new Error(`${(e as Error).message}: ${providers.map((p) => `${p} moved ${m[p]} of ${sums[p]} cents`).join('; ')}`);
    }
    result.exact = true;
    if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(result, null, 2));
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }, 3_600_000);
});
