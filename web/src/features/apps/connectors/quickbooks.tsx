// QuickBooks Online's own parts of the Apps screen: its names, the spec's answer shapes and texts.
import type { OwnApp } from './types';

export const app: OwnApp = {
  appName: 'QuickBooks',
  choiceLabel: 'QuickBooks Online',
  answers: 'wrapped',
  connectionName: (c) => (typeof c.companyName === 'string' && c.companyName) || String(c.realmId ?? c.id),
  reconnect: 'QuickBooks authorization has expired: reconnect the account (Add New Connection, QuickBooks).',
  consentNote: 'You will be sent to Intuit to sign in and allow access, then brought back here.',
};
