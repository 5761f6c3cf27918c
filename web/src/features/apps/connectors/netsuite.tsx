// NetSuite's own parts of the Apps screen (its connect form is common/connectors/netsuite-form.ts).
import type { OwnApp } from './types';

export const app: OwnApp = {
  connectionName: (c) => String(c.accountId ?? c.id),
  details: (c) => (Array.isArray(c.subsidiaries) && c.subsidiaries.length > 0 ? `${c.subsidiaries.length} subsidiaries` : null),
  reconnect: 'NetSuite refused the stored certificate: reconnect the account (Add New Connection, NetSuite) with a working certificate.',
};
