// The three simulators as one process, for `npm start` on the embedded default (and by hand:
// `node --require tsx/cjs simulators/main.ts`): Intuit (QuickBooks Online), Sage Intacct and
// NetSuite on loopback ports, each with its small seeded company. It prints one JSON line,
// `{"ready":true,...}`, with the configuration that points LedgerFlow at them, then serves until
// stopped. The NetSuite certificate's private key and Intuit's latest refresh tokens are kept in
// SIMULATORS_DIR, so connections made before a restart still work after it.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeIntacct } from './intacct';
import { FakeIntuit } from './intuit';
import { FakeNetSuite, generateNetSuiteKey, lastMonths } from './netsuite';

/** The seeded companies and their sign-ins, as a user would type them in the Apps screen. */
export const SIMULATED = {
  quickbooks: { realmId: '9341453000000001', name: 'LedgerFlow Demo US Inc. (simulated)', accounts: 12 },
  intacct: { companyId: 'LEDGERFLOW-DEMO-UK', userId: 'demo', userPassword: 'demo-intacct-password', accounts: 12 },
  netsuite: { accountId: 'TSTDRV_DEMO', clientId: 'ledgerflow-demo-integration', certificateId: 'ledgerflow-demo-certificate', months: 24, lines: 2_000 },
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

export interface Simulators {
  intuit: FakeIntuit;
  intacct: FakeIntacct;
  netsuite: FakeNetSuite;
  /** QBO_* and NETSUITE_BASE_URL / SAGE_ENDPOINT_URL pointing at the simulators. */
  env: Record<string, string>;
  netsuiteKeyFile: string;
  stop(): Promise<void>;
}

/** Starts the three simulators with their seeded companies. Port 0 picks a free one. */
export async function startSimulators(options: { intuitPort?: number; intacctPort?: number; netsuitePort?: number; appUrl: string; dir: string }): Promise<Simulators> {
  const s = SIMULATED;
  const intuit = new FakeIntuit();
  intuit.redirectUri = `${options.appUrl.replace(/\/$/, '')}/apps/quickbooks/callback`;
  intuit.addCompany(s.quickbooks.realmId, s.quickbooks.name, s.quickbooks.accounts);
  keepRefreshTokens(intuit, options.dir);
  const intacct = new FakeIntacct();
  intacct.addCompany(s.intacct.companyId, s.intacct.userId, s.intacct.userPassword, s.intacct.accounts);
  const netsuite = new FakeNetSuite({ accountId: s.netsuite.accountId, months: lastMonths(s.netsuite.months), lines: s.netsuite.lines });
  const key = netsuiteKey(options.dir);
  netsuite.addIntegration(s.netsuite.clientId, s.netsuite.certificateId, key.publicKeyPem);
  await intuit.start(options.intuitPort ?? 0);
  await intacct.start(options.intacctPort ?? 0);
  await netsuite.start(options.netsuitePort ?? 0);
  return {
    intuit,
    intacct,
    netsuite,
    env: { ...intuit.env(), SAGE_ENDPOINT_URL: intacct.url, ...netsuite.env() },
    netsuiteKeyFile: key.keyFile,
    stop: async () => {
      await Promise.all([intuit.stop(), intacct.stop(), netsuite.stop()]);
    },
  };
}

if (require.main === module) {
  const dir = process.env.SIMULATORS_DIR || join(process.cwd(), '.data', 'simulators');
  startSimulators({
    intuitPort: port('QBO_SIMULATOR_PORT', 8410),
    intacctPort: port('INTACCT_SIMULATOR_PORT', 8411),
    netsuitePort: port('NETSUITE_SIMULATOR_PORT', 8412),
    appUrl: process.env.SIMULATOR_APP_URL || 'http://127.0.0.1:3000',
    dir,
  }).then(
    (sims) => {
      process.stdout.write(`${JSON.stringify({ ready: true, env: sims.env, netsuiteKeyFile: sims.netsuiteKeyFile, companies: SIMULATED, intacctSender: { senderId: sims.intacct.senderId, senderPassword: sims.intacct.senderPassword } })}\n`);
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
