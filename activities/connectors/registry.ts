// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// The worker's activities of each connector (activities/<key>/worker.ts); activities/index.ts checks every registered connector has them.
export { activities as quickbooks } from '../quickbooks/worker';
export { activities as sage } from '../sage/worker';
export { activities as netsuite } from '../netsuite/worker';
export { activities as xero } from '../xero/worker';
