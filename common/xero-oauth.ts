// The first step of connecting Xero: the URL of Xero's consent screen, with the granular scopes
// new Xero apps must ask (the broad accounting.transactions and accounting.reports.read are not
// available to apps created since March 2026). Pure (no call to Xero): the api builds it;
// exchanging the code that comes back is the worker's (activities/xero/connect.ts).
import type { Config } from './config';

/** The refresh token; the trial balance; accounts and organisation; invoices and credit notes (a webhook's document is read to date it). */
export const XERO_SCOPES = ['offline_access', 'accounting.reports.trialbalance.read', 'accounting.settings.read', 'accounting.invoices.read'] as const;

export const xeroConfigured = (cfg: Pick<Config, 'XERO_CLIENT_ID' | 'XERO_CLIENT_SECRET' | 'XERO_REDIRECT_URI'>) => Boolean(cfg.XERO_CLIENT_ID && cfg.XERO_CLIENT_SECRET && cfg.XERO_REDIRECT_URI);

/** Xero's authorization URL for one single-use state. */
export function xeroAuthorizeUrl(cfg: Config, state: string): string {
  if (!cfg.XERO_CLIENT_ID || !cfg.XERO_REDIRECT_URI) throw new Error('Xero is not configured: set XERO_CLIENT_ID, XERO_CLIENT_SECRET and XERO_REDIRECT_URI');
  const u = new URL(cfg.XERO_AUTHORIZE_URL);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('client_id', cfg.XERO_CLIENT_ID);
  u.searchParams.set('redirect_uri', cfg.XERO_REDIRECT_URI);
  u.searchParams.set('scope', XERO_SCOPES.join(' '));
  u.searchParams.set('state', state);
  return u.toString();
}
