// The simulators as one process, for `npm start` on the embedded default (and by hand:
// `node --require tsx/cjs simulators/main.ts`): Intuit (QuickBooks Online), Sage Intacct,
// NetSuite and Xero on loopback ports, serving the demo group's books (demo-books.ts): the US parent on
// QuickBooks, the UK subsidiary on Sage Intacct, the German and Canadian subsidiaries on NetSuite,
// the Australian subsidiary on Xero (beside a New Zealand organisation outside the group).
// It prints one JSON line, `{"ready":true,...}`, with the configuration that points LedgerFlow
// at them, then serves until stopped. The NetSuite certificate's private key, Intuit's latest
// refresh tokens, the webhook verifier token and the journals posted through
// POST /simulator/v1/journal are kept in SIMULATORS_DIR, so they survive a restart; the demo
// group's set-up (demo-plan.ts) is written there too, for the api's demo seed to read.
// Intuit's webhooks go to QBO_WEBHOOK_URL, else <app URL>/api/v1/quickbooks/webhooks
// (QBO_SIMULATOR_WEBHOOK_FORMAT=legacy sends the older shape instead of CloudEvents).
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_GROUP, DEMO_SOURCE_IDS, demoBooks, type DemoBooks } from './demo-books';
import { writeDemoPlan } from './demo-plan';
import { FakeIntacct } from './intacct';
import { FakeIntuit, type PostedJournal, type WebhookFormat } from './intuit';
import { FakeNetSuite, generateNetSuiteKey } from './netsuite';
import { FakeXero } from './xero';

const NS_SUBS = DEMO_SOURCE_IDS.netsuiteSubsidiaryIds;

/** The seeded companies and their sign-ins, as a user would type them in the Apps screen. */
export const SIMULATED = {
  quickbooks: { realmId: DEMO_SOURCE_IDS.quickbooksRealmId, name: DEMO_GROUP.US.name, accounts: DEMO_GROUP.US.accounts.length },
  intacct: { companyId: DEMO_SOURCE_IDS.intacctCompanyId, name: DEMO_GROUP.UK.name, userId: 'demo', userPassword: 'demo-intacct-password', accounts: DEMO_GROUP.UK.accounts.length },
  netsuite: {
    accountId: DEMO_SOURCE_IDS.netsuiteAccountId,
    clientId: 'ledgerflow-demo-integration',
    certificateId: 'ledgerflow-demo-certificate',
    months: 24,
    root: { id: String(DEMO_SOURCE_IDS.netsuiteRoot.id), name: DEMO_SOURCE_IDS.netsuiteRoot.name },
    subsidiaries: {
      DE: { id: String(NS_SUBS.DE), name: DEMO_GROUP.DE.name, entity: DEMO_GROUP.DE.entityKey },
      CA: { id: String(NS_SUBS.CA), name: DEMO_GROUP.CA.name, entity: DEMO_GROUP.CA.entityKey },
    },
  },
  /** Xero: the consent grants two organisations: the demo group's Australian subsidiary (AUD) and a New Zealand one (NZD) outside the group. */
  xero: { tenantId: DEMO_SOURCE_IDS.xeroTenantId, name: DEMO_GROUP.AU.name, accounts: DEMO_GROUP.AU.accounts.length },
  /** The entity key each demo entity takes in LedgerFlow (trial_balance, consolidation). */
  entities: { US: DEMO_GROUP.US.entityKey, UK: DEMO_GROUP.UK.entityKey, DE: DEMO_GROUP.DE.entityKey, CA: DEMO_GROUP.CA.entityKey, AU: DEMO_GROUP.AU.entityKey },
} as const;

const port = (name: string, dflt: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new Error(`${name}=${v} is not a port number`);
  return Number(v);
};

/** The NetSuite certificate key pair, made once and kept under dir. */
function netsuiteKey(dir: string): { privateKeyPem: string; publicKeyPem: string; keyFile: string } {
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'netsuite-private-key.pem');
  if (!existsSync(keyFile)) writeFileSync(keyFile, generateNetSuiteKey('rsa').privateKeyPem, { mode: 0o600 });
  const privateKeyPem = readFileSync(keyFile, 'utf8');
  const publicKeyPem = createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'pem' }).toString();
  return { privateKeyPem, publicKeyPem, keyFile };
}

/**
 * Intuit's refresh tokens outlive the simulator process, as the real ones outlive a session: they
 * are kept in dir, so a company connected before a restart still syncs after it.
 */
function keepRefreshTokens(intuit: FakeIntuit, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'intuit-refresh-tokens.json');
  const kept = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  for (const [realmId, token] of Object.entries(kept)) intuit.restoreRefreshToken(realmId, token);
  intuit.onRefreshToken = (realmId, token) => {
    kept[realmId] = token;
    writeFileSync(`${file}.tmp`, JSON.stringify(kept), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  };
}

/** The webhook verifier token, made once and kept under dir (LedgerFlow gets it as QBO_WEBHOOK_VERIFIER_TOKEN). */
function webhookVerifierToken(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'intuit-webhook-verifier-token');
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** Journals posted to the QuickBooks company are kept in dir and put back after a restart. */
function keepPostedJournals(intuit: FakeIntuit, dir: string): void {
  const file = join(dir, 'intuit-posted-journals.json');
  type Kept = Omit<PostedJournal, 'lines'> & { lines: { account: string; debit: string; credit: string }[] };
  const kept = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Kept[]) : [];
  intuit.restorePostedJournals(kept.map((j) => ({ ...j, lines: j.lines.map((l) => ({ account: l.account, debit: BigInt(l.debit), credit: BigInt(l.credit) })) })));
  intuit.onJournalPosted = (j) => {
    kept.push({ ...j, lines: j.lines.map((l) => ({ account: l.account, debit: String(l.debit), credit: String(l.credit) })) });
    writeFileSync(`${file}.tmp`, JSON.stringify(kept), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  };
}

export interface Simulators {
  intuit: FakeIntuit;
  intacct: FakeIntacct;
  netsuite: FakeNetSuite;
  xero: FakeXero;
  /** The books they serve. */
  books: DemoBooks;
  /** QBO_* (QBO_WEBHOOK_VERIFIER_TOKEN included) and NETSUITE_BASE_URL / SAGE_ENDPOINT_URL pointing at the simulators. */
  env: Record<string, string>;
  netsuiteKeyFile: string;
  /** The demo group's set-up for these books (common/demo-plan.ts), as a file. */
  demoPlanFile: string;
  /** Where Intuit's webhooks go, and the control endpoint that posts a journal (scripts/demo-change.mjs). */
  webhook: { url: string; format: WebhookFormat; journalUrl: string };
  stop(): Promise<void>;
}

export interface StartOptions {
  intuitPort?: number;
  intacctPort?: number;
  netsuitePort?: number;
  xeroPort?: number;
  appUrl: string;
  dir: string;
  /** Where Intuit posts webhooks (default <appUrl>/api/v1/quickbooks/webhooks). */
  webhookUrl?: string;
  webhookFormat?: WebhookFormat;
  webhookRetryDelaysMs?: number[];
  /** The books cover the 24 months before this date's month (default now). */
  now?: Date;
  /** The verifier token Intuit signs webhooks with: the user's QBO_WEBHOOK_VERIFIER_TOKEN when set, else one made once and kept under dir. */
  webhookVerifierToken?: string;
}

/** Starts the three simulators with the demo group's companies. Port 0 picks a free one. */
export async function startSimulators(options: StartOptions): Promise<Simulators> {
  const s = SIMULATED;
  const books = demoBooks(options.now);
  const appUrl = options.appUrl.replace(/\/$/, '');
  const webhookUrl = options.webhookUrl || `${appUrl}/api/v1/quickbooks/webhooks`;
  const intuit = new FakeIntuit({ webhookUrl, webhookVerifierToken: options.webhookVerifierToken || webhookVerifierToken(options.dir), webhookFormat: options.webhookFormat, webhookRetryDelaysMs: options.webhookRetryDelaysMs });
  intuit.redirectUri = `${appUrl}/apps/quickbooks/callback`;
  intuit.addBookCompany(s.quickbooks.realmId, s.quickbooks.name, books, 'US');
  keepRefreshTokens(intuit, options.dir);
  keepPostedJournals(intuit, options.dir);
  const intacct = new FakeIntacct();
  intacct.addBookCompany(s.intacct.companyId, s.intacct.userId, s.intacct.userPassword, books, 'UK');
  const netsuite = new FakeNetSuite({ accountId: s.netsuite.accountId, books });
  const key = netsuiteKey(options.dir);
  netsuite.addIntegration(s.netsuite.clientId, s.netsuite.certificateId, key.publicKeyPem);
  await intuit.start(options.intuitPort ?? 0);
  await intacct.start(options.intacctPort ?? 0);
  await netsuite.start(options.netsuitePort ?? 0);
  const xero = await new FakeXero({ demo: books }).start(options.xeroPort ?? 0);
  xero.webhookUrl = `${appUrl}/api/v1/xero/webhooks`;
  return {
    intuit,
    intacct,
    netsuite,
    xero,
    books,
    env: { ...intuit.env(), QBO_WEBHOOK_VERIFIER_TOKEN: intuit.webhookVerifierToken, SAGE_ENDPOINT_URL: intacct.url, ...netsuite.env(), ...xero.env(`${appUrl}/apps/xero/callback`) },
    netsuiteKeyFile: key.keyFile,
    demoPlanFile: writeDemoPlan(options.dir, books),
    webhook: { url: webhookUrl, format: intuit.webhookFormat, journalUrl: `${intuit.url}/simulator/v1/journal` },
    stop: async () => {
      await Promise.all([intuit.stop(), intacct.stop(), netsuite.stop(), xero.stop()]);
    },
  };
}

if (require.main === module) {
  const dir = process.env.SIMULATORS_DIR || join(process.cwd(), '.data', 'simulators');
  startSimulators({
    intuitPort: port('QBO_SIMULATOR_PORT', 8410),
    intacctPort: port('INTACCT_SIMULATOR_PORT', 8411),
    netsuitePort: port('NETSUITE_SIMULATOR_PORT', 8412),
    xeroPort: port('XERO_SIMULATOR_PORT', 8413),
    appUrl: process.env.SIMULATOR_APP_URL || 'http://127.0.0.1:3000',
    dir,
    webhookUrl: process.env.QBO_WEBHOOK_URL || undefined,
    webhookFormat: process.env.QBO_SIMULATOR_WEBHOOK_FORMAT === 'legacy' ? 'legacy' : 'cloudevents',
    // A token the user set wins (the app verifies with it): the simulator signs with the same one.
    webhookVerifierToken: process.env.QBO_WEBHOOK_VERIFIER_TOKEN || undefined,
  }).then(
    (sims) => {
      const demo = { months: [sims.books.months[0], sims.books.months.at(-1)], historicalRates: sims.books.historicalRates };
      process.stdout.write(`${JSON.stringify({ ready: true, env: sims.env, netsuiteKeyFile: sims.netsuiteKeyFile, demoPlanFile: sims.demoPlanFile, companies: SIMULATED, intacctSender: { senderId: sims.intacct.senderId, senderPassword: sims.intacct.senderPassword }, webhook: sims.webhook, demo })}\n`);
      const stop = () => void sims.stop().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err: unknown) => {
      process.stderr.write(`error: the simulators did not start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
