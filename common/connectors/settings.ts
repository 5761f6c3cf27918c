// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// Each connector's settings (common/connectors/<key>-settings.ts: its environment variables, zod-checked), spread into common/config.ts.
export { xeroSettings as xero } from './xero-settings';
