// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// Each connector's own routes (api/resources/<key>/router.ts `<key>Routes`: OAuth consent, webhooks), registered ahead of the generic ones.
export { quickbooksRoutes as quickbooks } from '../quickbooks/router';
export { sageRoutes as sage } from '../sage/router';
export { xeroRoutes as xero } from '../xero/router';
