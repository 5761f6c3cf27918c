// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// Each connector's demo simulator (simulators/demo/<key>.ts: `simulator`, the `company` it serves), started alike by simulators/main.ts.
export * as quickbooks from './demo/quickbooks';
export * as sage from './demo/sage';
export * as netsuite from './demo/netsuite';
export * as xero from './demo/xero';
