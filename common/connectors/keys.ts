// The connectors LedgerFlow has, one registration line each (docs/connectors.md is the recipe).
// Pure (no imports): the web app reads it through common/contract/connections.ts (SYNC_PROVIDERS,
// CONNECTOR_NAMES), and `node scripts/connectors.mjs` writes the barrels that gather each
// connector's own files from it (common/connectors/index.ts, activities/connectors/registry.ts,
// workflows/connectors.ts, api/resources/connectors/own.ts, simulators/connectors.ts);
// test/connectors.test.ts checks that they are what the script writes and that no other shared
// file names a connector. The order is the order of the Apps screen, the api's mounts and
// trial_balance's sources.
export const CONNECTOR_KEYS = [
  { key: 'quickbooks', ledgerName: 'QuickBooks', auth: 'oauth2-code' },
  { key: 'sage', ledgerName: 'Sage Intacct', auth: 'credentials' },
  { key: 'netsuite', ledgerName: 'NetSuite', auth: 'client-credentials' },
  { key: 'xero', ledgerName: 'Xero', auth: 'oauth2-code' },
] as const;
