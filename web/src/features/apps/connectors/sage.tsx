// Sage Intacct's own parts of the Apps screen (its connect form is common/connectors/sage-form.ts).
import type { OwnApp } from './types';

export const app: OwnApp = {
  appName: 'Sage',
  connectionName: (c) => String(c.sageCompanyID ?? c.id),
  reconnect: 'Sage Intacct refused the stored credentials: connect the company again (Add New Connection, Sage Intacct).',
};
