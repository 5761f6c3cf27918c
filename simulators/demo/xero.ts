// The Xero simulator as the demo runs it: its consent grants two organisations, the demo group's
// Australian subsidiary (AUD) and a New Zealand one (NZD) outside the group; its webhooks go to
// <app URL>/api/v1/xero/webhooks. The demo seed connects it through its consent, as a user would.
import { DEMO_GROUP, DEMO_SOURCE_IDS } from '../demo-books';
import { FakeXero } from '../xero';
import { demoSimulator } from './simulator';

/** The demo group's organisation among those the consent grants. */
export const company = { tenantId: DEMO_SOURCE_IDS.xeroTenantId, name: DEMO_GROUP.AU.name, accounts: DEMO_GROUP.AU.accounts.length } as const;

export const simulator = demoSimulator<FakeXero>({
  options: () => ({}),
  async start({ port, appUrl, books }) {
    const xero = await new FakeXero({ demo: books }).start(port);
    xero.webhookUrl = `${appUrl}/api/v1/xero/webhooks`;
    return {
      server: xero,
      env: xero.env(`${appUrl}/apps/xero/callback`),
      pointsAt: 'XERO_CLIENT_ID',
      note: 'Xero: Connect (the simulator approves at once and grants two organisations)',
      stop: () => xero.stop(),
    };
  },
});
