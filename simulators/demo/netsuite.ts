// The NetSuite simulator as the demo runs it: one account whose German and Canadian subsidiaries
// are the demo group's, reached with a certificate whose private key is made once and kept in the
// simulators' folder (it survives a restart).
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_GROUP, DEMO_SOURCE_IDS } from '../demo-books';
import { FakeNetSuite, generateNetSuiteKey } from '../netsuite';
import { demoSimulator } from './simulator';

const SUBS = DEMO_SOURCE_IDS.netsuiteSubsidiaryIds;

/** The seeded account, its integration and subsidiaries, as a user would type them in the Apps screen. */
export const company = {
  accountId: DEMO_SOURCE_IDS.netsuiteAccountId,
  clientId: 'ledgerflow-demo-integration',
  certificateId: 'ledgerflow-demo-certificate',
  months: 24,
  root: { id: String(DEMO_SOURCE_IDS.netsuiteRoot.id), name: DEMO_SOURCE_IDS.netsuiteRoot.name },
  subsidiaries: {
    DE: { id: String(SUBS.DE), name: DEMO_GROUP.DE.name, entity: DEMO_GROUP.DE.entityKey },
    CA: { id: String(SUBS.CA), name: DEMO_GROUP.CA.name, entity: DEMO_GROUP.CA.entityKey },
  },
} as const;

/** The NetSuite certificate key pair, made once and kept under dir. */
function netsuiteKey(dir: string): { privateKeyPem: string; publicKeyPem: string; keyFile: string } {
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'netsuite-private-key.pem');
  if (!existsSync(keyFile)) writeFileSync(keyFile, generateNetSuiteKey('rsa').privateKeyPem, { mode: 0o600 });
  const privateKeyPem = readFileSync(keyFile, 'utf8');
  const publicKeyPem = createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'pem' }).toString();
  return { privateKeyPem, publicKeyPem, keyFile };
}

export const simulator = demoSimulator<FakeNetSuite>({
  options: () => ({}),
  async start({ port, dir, books }) {
    const netsuite = new FakeNetSuite({ accountId: company.accountId, books });
    const key = netsuiteKey(dir);
    netsuite.addIntegration(company.clientId, company.certificateId, key.publicKeyPem);
    await netsuite.start(port);
    return {
      server: netsuite,
      env: netsuite.env(),
      pointsAt: 'NETSUITE_BASE_URL',
      note: `NetSuite: account ${company.accountId}, client ID ${company.clientId}, certificate ID ${company.certificateId}, key ${key.keyFile}`,
      demoConnection: { accountId: company.accountId, clientId: company.clientId, certificateId: company.certificateId, keyFile: key.keyFile },
      ready: { netsuiteKeyFile: key.keyFile },
      stop: () => netsuite.stop(),
    };
  },
});
