// Xero's OAuth 2.0 authorization-code flow: its settings (XERO_*) and the granular scopes new Xero
// apps must ask (the broad accounting.transactions and accounting.reports.read are not available
// to apps created since March 2026), for the generic flow (common/connectors/oauth2-code.ts) that
// builds the consent URL in the api and exchanges the code in the worker (activities/xero/connect.ts).
import type { OAuth2CodeFlow } from './connectors/oauth2-code';

/** The refresh token; the trial balance; accounts and organisation; invoices and credit notes (a webhook's document is read to date it). */
export const XERO_SCOPES = ['offline_access', 'accounting.reports.trialbalance.read', 'accounting.settings.read', 'accounting.invoices.read'] as const;

export const xeroOAuth: OAuth2CodeFlow = { name: 'Xero', prefix: 'XERO', scopes: XERO_SCOPES };
