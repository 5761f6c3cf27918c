// Xero's settings (docs/configuration.md, docs/ledgers.md): the app's OAuth client and redirect
// URI (the Apps screen's /apps/xero/callback), its webhook key; the endpoints default to Xero's
// own (the simulator's when npm start runs it). Read into common/config.ts through settings.ts.
import { optionalString, url } from '../config-fields';

export const xeroSettings = {
  XERO_CLIENT_ID: optionalString,
  XERO_CLIENT_SECRET: optionalString,
  XERO_REDIRECT_URI: optionalString.pipe(url.optional()),
  XERO_AUTHORIZE_URL: url.default('https://login.xero.com/identity/connect/authorize'),
  XERO_TOKEN_URL: url.default('https://identity.xero.com/connect/token'),
  XERO_API_BASE: url.default('https://api.xero.com'),
  XERO_WEBHOOK_KEY: optionalString,
};
