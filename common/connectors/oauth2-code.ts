// The OAuth 2.0 authorization-code flow, once for every `oauth2-code` connector (QuickBooks,
// Xero), driven by the connector's definition (`oauth2`): its settings' prefix (<P>_CLIENT_ID,
// <P>_CLIENT_SECRET, <P>_REDIRECT_URI, <P>_AUTHORIZE_URL, <P>_TOKEN_URL in its
// common/connectors/<key>-settings.ts) and the scopes it asks. Pure (no call to the ledger): the
// api builds the consent URL here (api/lib/oauth2-code.ts: availability, connect, the single-use
// state, the connect workflow), and the worker's token requests read the same settings
// (activities/connectors/oauth2-code.ts: code exchange and refresh, Basic client auth).
import type { Config } from '../config';

/** The prefixes P for which the configuration has all five <P>_* OAuth settings (QBO, XERO). */
export type OAuth2Prefix = {
  [K in keyof Config]: K extends `${infer P}_CLIENT_ID` ? (`${P}_CLIENT_SECRET` | `${P}_REDIRECT_URI` | `${P}_AUTHORIZE_URL` | `${P}_TOKEN_URL` extends keyof Config ? P : never) : never;
}[keyof Config];

export interface OAuth2CodeFlow {
  /** As messages name the ledger ("Xero is not configured on this server"). */
  name: string;
  /** Its settings' prefix: QBO_CLIENT_ID, ... */
  prefix: OAuth2Prefix;
  /** The scopes the consent asks, space-separated on the authorize URL. */
  scopes: readonly string[];
}

export interface OAuth2Settings {
  clientId?: string;
  clientSecret?: string;
  redirectUri?: string;
  authorizeUrl: string;
  tokenUrl: string;
}

/** The connector's OAuth settings, read from its <P>_* variables. */
export function oauth2Settings(cfg: Config, flow: Pick<OAuth2CodeFlow, 'prefix'>): OAuth2Settings {
  const get = (name: string) => (cfg as unknown as Record<string, string | undefined>)[`${flow.prefix}_${name}`];
  return { clientId: get('CLIENT_ID'), clientSecret: get('CLIENT_SECRET'), redirectUri: get('REDIRECT_URI'), authorizeUrl: get('AUTHORIZE_URL')!, tokenUrl: get('TOKEN_URL')! };
}

/** The three settings the operator must give (the app registered with the ledger), as named in messages. */
export const oauth2Required = (flow: Pick<OAuth2CodeFlow, 'prefix'>): string => `${flow.prefix}_CLIENT_ID, ${flow.prefix}_CLIENT_SECRET and ${flow.prefix}_REDIRECT_URI`;

/** Whether this server can connect the ledger: its app's client id, secret and redirect URI are set. */
export function oauth2Configured(cfg: Config, flow: Pick<OAuth2CodeFlow, 'prefix'>): boolean {
  const s = oauth2Settings(cfg, flow);
  return Boolean(s.clientId && s.clientSecret && s.redirectUri);
}

/** The ledger's consent URL for one single-use state. */
export function oauth2AuthorizeUrl(cfg: Config, flow: OAuth2CodeFlow, state: string): string {
  const s = oauth2Settings(cfg, flow);
  if (!s.clientId || !s.redirectUri) throw new Error(`${flow.name} is not configured: set ${oauth2Required(flow)}`);
  const u = new URL(s.authorizeUrl);
  u.searchParams.set('client_id', s.clientId);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('scope', flow.scopes.join(' '));
  u.searchParams.set('redirect_uri', s.redirectUri);
  u.searchParams.set('state', state);
  return u.toString();
}
