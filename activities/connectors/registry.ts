// The worker's activities of each connector (activities/<key>/worker.ts): its one registration line
// on the worker's side. common/connectors/ (the registry) may not import activities/, and the
// workflows' proxies need every activity's name in the Activities type, so each connector is named
// here once; activities/index.ts checks that every registered connector has its line.
export { activities as quickbooks } from '../quickbooks/worker';
export { activities as sage } from '../sage/worker';
export { activities as netsuite } from '../netsuite/worker';
export { activities as xero } from '../xero/worker';
