// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// Each connector's workflows (workflows/<key>.ts): the bundle exports them under their names (<key>SyncWorkflow, <key>ConnectWorkflow).
export * from './quickbooks';
export * from './sage';
export * from './netsuite';
export * from './xero';
