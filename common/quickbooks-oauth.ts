// QuickBooks' OAuth 2.0 authorization-code flow: its settings (QBO_*) and scope, for the generic
// flow (common/connectors/oauth2-code.ts) that builds Intuit's consent URL in the api and
// exchanges the code in the worker (activities/quickbooks/connect.ts).
import type { Config } from './config';
import { oauth2AuthorizeUrl, type OAuth2CodeFlow } from './connectors/oauth2-code';

export const QBO_SCOPE = 'com.intuit.quickbooks.accounting';

export const quickbooksOAuth: OAuth2CodeFlow = { name: 'QuickBooks', prefix: 'QBO', scopes: [QBO_SCOPE] };

/** Intuit's authorization URL for one single-use state. */
export const authorizeUrl = (cfg: Config, state: string): string => oauth2AuthorizeUrl(cfg, quickbooksOAuth, state);
