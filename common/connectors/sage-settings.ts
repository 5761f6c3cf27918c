// Sage Intacct's settings (docs/configuration.md, docs/ledgers.md): its XML gateway, Sage's own
// unless a test or npm start points it at the simulator. Read into common/config.ts through settings.ts.
import { url } from '../config-fields';

export const sageSettings = {
  SAGE_ENDPOINT_URL: url.default('https://api.intacct.com/ia/xml/xmlgw.phtml'),
};
