// What the api and the worker both know about a NetSuite account: its ID's canonical form, where
// it is reached, the key it signs its OAuth 2.0 client assertions with, and the entity key its
// subsidiaries take in trial_balance and the consolidation.
import { createPrivateKey, type KeyObject } from 'node:crypto';

/** OAuth 2.0 token endpoint (client credentials), relative to the account's base URL. */
export const NETSUITE_TOKEN_PATH = '/services/rest/auth/oauth2/v1/token';
export const NETSUITE_SUITEQL_PATH = '/services/rest/query/v1/suiteql';
export const NETSUITE_GOVERNANCE_PATH = '/services/rest/system/v1/governanceLimits';

/** A NetSuite account ID as NetSuite writes it: 1234567, 1234567_SB1, TSTDRV1234567. */
export const NETSUITE_ACCOUNT_ID_RE = /^[A-Z0-9]{1,30}(_[A-Z0-9]{1,10})?$/;

/** The canonical account ID: upper case, the sandbox suffix after an underscore ("1234567-sb1" -> "1234567_SB1"). */
export function normalizeAccountId(raw: string): string {
  return raw.trim().toUpperCase().replace(/-/g, '_');
}

/** The account ID as it appears in NetSuite's host names: lower case, dash ("1234567_SB1" -> "1234567-sb1"). */
export function accountHost(accountId: string): string {
  return accountId.toLowerCase().replace(/_/g, '-');
}

/** The account's REST base URL from the configured template (NETSUITE_BASE_URL, "{account}" replaced), without a trailing slash. */
export function netsuiteBaseUrl(template: string, accountId: string): string {
  return template.replace('{account}', accountHost(accountId)).replace(/\/+$/, '');
}

export type NetSuiteSigningAlgorithm = 'PS256' | 'ES256' | 'ES384' | 'ES512';

/** NetSuite takes PS256/384/512 and ES256/384/512 assertions (never RS256); each EC curve has its own. */
const EC_ALGORITHMS: Record<string, NetSuiteSigningAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

export class NetSuiteKeyError extends Error {}

/**
 * The private key (PEM) of the certificate mapped in NetSuite, and the algorithm it signs with:
 * RSA -> PS256, EC P-256/P-384/P-521 -> ES256/ES384/ES512. Throws NetSuiteKeyError with the
 * user's message (never the key) for anything else.
 */
export function readSigningKey(pem: string): { key: KeyObject; alg: NetSuiteSigningAlgorithm } {
  const text = pem.trim();
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) throw new NetSuiteKeyError('The file is not a private key in PEM format (-----BEGIN PRIVATE KEY-----)');
  if (/ENCRYPTED PRIVATE KEY|Proc-Type: 4,ENCRYPTED/.test(text)) throw new NetSuiteKeyError('The private key is protected by a passphrase: upload it without one');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch {
    throw new NetSuiteKeyError('The private key could not be read (PEM, PKCS#8 or PKCS#1/SEC1)');
  }
  const type = key.asymmetricKeyType;
  if (type === 'rsa' || type === 'rsa-pss') return { key, alg: 'PS256' };
  if (type === 'ec') {
    const alg = EC_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (alg) return { key, alg };
  }
  throw new NetSuiteKeyError('NetSuite takes RSA keys (signed PS256) or EC keys on P-256, P-384 or P-521 (ES256, ES384, ES512)');
}

/** A subsidiary's entity key in trial_balance and the consolidation: "<account ID>:<subsidiary internal ID>". */
export function netsuiteEntityKey(accountId: string, subsidiaryId: string): string {
  return `${accountId}:${subsidiaryId}`;
}
