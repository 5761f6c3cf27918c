// The connectors LedgerFlow has, one registration line each (docs/connectors.md is the recipe).
// Pure (no imports): the web app reads it through common/contract/connections.ts (SYNC_PROVIDERS,
// CONNECTOR_NAMES), and `node scripts/connectors.mjs` writes the barrels that gather each
// connector's own files from it (common/connectors/index.ts, activities/connectors/registry.ts,
// workflows/connectors.ts, api/resources/connectors/own.ts, simulators/connectors.ts);
// test/connectors.test.ts checks that they are what the script writes and that no other shared
// file names a connector. The order is the order of the Apps screen, the api's mounts and
// trial_balance's sources. `simulator` is the variable and default of the port its demo simulator
// (simulators/demo/<key>.ts) listens on under npm start (scripts/start.mjs reads it through
// scripts/connectors.mjs).
export const CONNECTOR_KEYS = [
  { key: 'quickbooks', ledgerName: 'QuickBooks', auth: 'oauth2-code', simulator: { port: 'QBO_SIMULATOR_PORT', default: 8410 } },
  { key: 'sage', ledgerName: 'Sage Intacct', auth: 'credentials', simulator: { port: 'INTACCT_SIMULATOR_PORT', default: 8411 } },
  { key: 'netsuite', ledgerName: 'NetSuite', auth: 'client-credentials', simulator: { port: 'NETSUITE_SIMULATOR_PORT', default: 8412 } },
  { key: 'xero', ledgerName: 'Xero', auth: 'oauth2-code', simulator: { port: 'XERO_SIMULATOR_PORT', default: 8413 } },
] as const;
