// The first step of connecting QuickBooks: the URL of Intuit's consent screen. Pure (no call to
// Intuit): the api builds it; exchanging the code that comes back is the worker's
// (activities/quickbooks/connect.ts).
import type { Config } from './config';

export const QBO_SCOPE = 'com.intuit.quickbooks.accounting';

/** Intuit's authorization URL for one single-use state. */
export function authorizeUrl(cfg: Config, state: string): string {
  if (!cfg.QBO_CLIENT_ID || !cfg.QBO_REDIRECT_URI) throw new Error('QuickBooks is not configured: set QBO_CLIENT_ID, QBO_CLIENT_SECRET and QBO_REDIRECT_URI');
  const u = new URL(cfg.QBO_AUTHORIZE_URL);
  u.searchParams.set('client_id', cfg.QBO_CLIENT_ID);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('scope', QBO_SCOPE);
  u.searchParams.set('redirect_uri', cfg.QBO_REDIRECT_URI);
  u.searchParams.set('state', state);
  return u.toString();
}
