// QuickBooks Online's settings (docs/configuration.md, docs/ledgers.md): the Intuit app's OAuth
// client and redirect URI, its environment (sandbox or production), the endpoints (Intuit's own
// unless a test or npm start points them at the simulator), and its webhook's verifier token and
// debounce. Read into common/config.ts through settings.ts.
import { z } from 'zod';
import { optionalString, url } from '../config-fields';

export const quickbooksSettings = {
  QBO_CLIENT_ID: optionalString,
  QBO_CLIENT_SECRET: optionalString,
  QBO_REDIRECT_URI: optionalString.pipe(url.optional()),
  QBO_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
  QBO_AUTHORIZE_URL: url.default('https://appcenter.intuit.com/connect/oauth2'),
  QBO_TOKEN_URL: url.default('https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer'),
  QBO_API_BASE: optionalString.pipe(url.optional()),
  /** Intuit's webhook verifier token (the app's Webhooks page): POST /quickbooks/webhooks answers 503 until it is set. */
  QBO_WEBHOOK_VERIFIER_TOKEN: optionalString,
};
