// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// Each connector's settings (common/connectors/<key>-settings.ts: its environment variables, zod-checked), spread into common/config.ts.
export { quickbooksSettings as quickbooks } from './quickbooks-settings';
export { sageSettings as sage } from './sage-settings';
export { netsuiteSettings as netsuite } from './netsuite-settings';
export { xeroSettings as xero } from './xero-settings';
