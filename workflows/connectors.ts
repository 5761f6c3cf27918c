// Each connector's workflows (workflows/<key>.ts), one line per connector. Temporal finds
// a workflow by the name the bundle exports it under (workflows/index.ts exports these), and the
// api starts one by its function's name: both are `<key>SyncWorkflow` / `<key>ConnectWorkflow`,
// so each connector's module is named here; common/connectors/ (the registry) may not be imported
// by the workflow bundle (it carries the Mongo models). test/connectors.test.ts checks every
// registered connector's workflows are exported under the names its definition gives.
export * from './quickbooks';
export * from './sage';
export * from './netsuite';
export * from './xero';
