// The Sage Intacct simulator as the demo runs it: Intacct's XML gateway serving the demo group's
// UK subsidiary, with the sign-ins a user types in the Apps screen.
import { DEMO_GROUP, DEMO_SOURCE_IDS } from '../demo-books';
import { FakeIntacct } from '../intacct';
import { demoSimulator } from './simulator';

/** The seeded company and its sign-in, as a user would type them in the Apps screen. */
export const company = { companyId: DEMO_SOURCE_IDS.intacctCompanyId, name: DEMO_GROUP.UK.name, userId: 'demo', userPassword: 'demo-intacct-password', accounts: DEMO_GROUP.UK.accounts.length } as const;

export const simulator = demoSimulator<FakeIntacct>({
  options: () => ({}),
  async start({ port, books }) {
    const intacct = new FakeIntacct();
    intacct.addBookCompany(company.companyId, company.userId, company.userPassword, books, 'UK');
    await intacct.start(port);
    const sender = { senderId: intacct.senderId, senderPassword: intacct.senderPassword };
    return {
      server: intacct,
      env: { SAGE_ENDPOINT_URL: intacct.url },
      pointsAt: 'SAGE_ENDPOINT_URL',
      note: `Sage Intacct: sender ${sender.senderId} / ${sender.senderPassword}, company ${company.companyId}, user ${company.userId} / ${company.userPassword}`,
      demoConnection: { ...sender, companyId: company.companyId, userId: company.userId, userPassword: company.userPassword, triggerUrl: `${new URL(intacct.url).origin}/simulator/v1/trigger` },
      ready: { intacctSender: sender },
      stop: () => intacct.stop(),
    };
  },
});
