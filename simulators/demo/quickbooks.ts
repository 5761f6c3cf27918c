// The QuickBooks simulator as the demo runs it: Intuit serving the demo group's US parent, its
// refresh tokens, webhook verifier token and posted journals kept in the simulators' folder (they
// survive a restart). Intuit's webhooks go to QBO_WEBHOOK_URL, else <app URL>/api/v1/quickbooks/webhooks
// (QBO_SIMULATOR_WEBHOOK_FORMAT=legacy sends the older shape instead of CloudEvents).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_GROUP, DEMO_SOURCE_IDS } from '../demo-books';
import { FakeIntuit, type PostedJournal, type WebhookFormat } from '../intuit';
import { demoSimulator } from './simulator';

/** The seeded company, as the Apps screen connects it. */
export const company = { realmId: DEMO_SOURCE_IDS.quickbooksRealmId, name: DEMO_GROUP.US.name, accounts: DEMO_GROUP.US.accounts.length } as const;

export interface QuickBooksSimulatorOptions {
  /** Where Intuit posts webhooks (default <appUrl>/api/v1/quickbooks/webhooks). */
  webhookUrl?: string;
  webhookFormat?: WebhookFormat;
  webhookRetryDelaysMs?: number[];
  /** The verifier token Intuit signs webhooks with: the user's QBO_WEBHOOK_VERIFIER_TOKEN when set, else one made once and kept under dir. */
  webhookVerifierToken?: string;
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

export const simulator = demoSimulator<FakeIntuit, QuickBooksSimulatorOptions>({
  options: (env) => ({
    webhookUrl: env.QBO_WEBHOOK_URL || undefined,
    webhookFormat: env.QBO_SIMULATOR_WEBHOOK_FORMAT === 'legacy' ? 'legacy' : 'cloudevents',
    // A token the user set wins (the app verifies with it): the simulator signs with the same one.
    webhookVerifierToken: env.QBO_WEBHOOK_VERIFIER_TOKEN || undefined,
  }),
  async start({ port, appUrl, dir, books, options }) {
    const webhookUrl = options.webhookUrl || `${appUrl}/api/v1/quickbooks/webhooks`;
    const intuit = new FakeIntuit({ webhookUrl, webhookVerifierToken: options.webhookVerifierToken || webhookVerifierToken(dir), webhookFormat: options.webhookFormat, webhookRetryDelaysMs: options.webhookRetryDelaysMs });
    intuit.redirectUri = `${appUrl}/apps/quickbooks/callback`;
    intuit.addBookCompany(company.realmId, company.name, books, 'US');
    keepRefreshTokens(intuit, dir);
    keepPostedJournals(intuit, dir);
    await intuit.start(port);
    return {
      server: intuit,
      env: { ...intuit.env(), QBO_WEBHOOK_VERIFIER_TOKEN: intuit.webhookVerifierToken },
      pointsAt: 'QBO_CLIENT_ID',
      note: 'QuickBooks: Connect (the simulator approves at once)',
      yours: { QBO_WEBHOOK_VERIFIER_TOKEN: 'yours is used; the QuickBooks simulator signs its webhooks with it' },
      demoConnection: { realmId: company.realmId },
      // Where Intuit's webhooks go, and the control endpoint that posts a journal (scripts/demo-change.mjs).
      ready: { webhook: { url: webhookUrl, format: intuit.webhookFormat, journalUrl: `${intuit.url}/simulator/v1/journal` } },
      stop: () => intuit.stop(),
    };
  },
});
