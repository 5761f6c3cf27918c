// NetSuite's OAuth 2.0 client credentials (POST /services/rest/auth/oauth2/v1/token): the JWT
// client assertion is verified like NetSuite does: alg PS256/384/512 or ES256/384/512 (RS256
// refused), kid = a certificate ID mapped to an integration, iss = that integration's client ID,
// scope rest_webservices, aud = the token URL, exp not passed and at most 60 minutes after iat,
// and the signature against the certificate's public key. Refusals are OAuth errors ({ error,
// error_description }); an access token lives the lifetime it was issued with.
import { constants, createPublicKey, generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';

const HASH: Record<string, string> = { PS256: 'sha256', PS384: 'sha384', PS512: 'sha512', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };
const CURVE: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

interface Integration {
  clientId: string;
  certificateId: string;
  publicKey: KeyObject;
  revoked: boolean;
}

/** A key pair like the one a NetSuite admin makes for the certificate mapping (RSA 3072 or EC P-256). */
export function generateNetSuiteKey(kind: 'rsa' | 'ec' = 'rsa'): { privateKeyPem: string; publicKeyPem: string } {
  const pair = kind === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 3072 }) : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** The account's integrations, their certificate mappings and the access tokens issued to them. */
export class ClientCredentials {
  private readonly integrations = new Map<string, Integration>();
  private readonly tokens = new Map<string, number>();

  /** An integration record (client ID) with a certificate mapping (certificate ID -> public key). */
  addIntegration(clientId: string, certificateId: string, publicKeyPem: string): void {
    this.integrations.set(certificateId, { clientId, certificateId, publicKey: createPublicKey(publicKeyPem), revoked: false });
  }
  /** The admin revokes the certificate mapping: assertions signed for it are refused from now on. */
  revokeCertificate(certificateId: string): void {
    const i = this.integrations.get(certificateId);
    if (i) i.revoked = true;
  }
  /** Every access token issued so far stops working (as when they expire mid-sync). */
  expireTokens(): void {
    this.tokens.clear();
  }

  /** Whether an Authorization header carries a live access token. */
  authorized(authorization: string | undefined): boolean {
    const m = /^Bearer (\S+)$/.exec(authorization ?? '');
    const expires = m ? this.tokens.get(m[1]!) : undefined;
    return expires !== undefined && expires > Date.now();
  }

  /** The token endpoint's answer to a form posted to tokenUrl: the client assertion checked as NetSuite does. */
  token(form: URLSearchParams, tokenUrl: string, lifetimeSeconds: number): { status: number; body: object } {
    const refuse = (error: string, description: string, status = 400) => ({ status, body: { error, error_description: description } });
    if (form.get('grant_type') !== 'client_credentials') return refuse('unsupported_grant_type', `The grant type ${form.get('grant_type') ?? '(none)'} is not supported: use client_credentials.`);
    if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') return refuse('invalid_request', 'client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer.');
    const jwt = form.get('client_assertion') ?? '';
    const parts = jwt.split('.');
    if (parts.length !== 3) return refuse('invalid_request', 'The client assertion is not a JWT.');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return refuse('invalid_request', 'The client assertion is not a JWT.');
    }
    const alg = String(header.alg ?? '');
    if (!HASH[alg]) return refuse('invalid_request', `The JWT algorithm ${alg || '(none)'} is not supported: sign with PS256, PS384, PS512, ES256, ES384 or ES512.`);
    const integration = this.integrations.get(String(header.kid ?? ''));
    if (!integration) return refuse('invalid_client', `No certificate with the ID ${String(header.kid ?? '(none)')} is mapped to an integration in this account.`, 401);
    if (integration.revoked) return refuse('invalid_client', `The certificate ${integration.certificateId} has been revoked.`, 401);
    if (claims.iss !== integration.clientId) return refuse('invalid_client', `The certificate ${integration.certificateId} is not mapped to the integration with the client ID in iss.`, 401);
    const scope = Array.isArray(claims.scope) ? claims.scope.map(String) : String(claims.scope ?? '').split(/[\s,]+/);
    if (!scope.includes('rest_webservices')) return refuse('invalid_scope', 'The scope must include rest_webservices.');
    if (claims.aud !== tokenUrl) return refuse('invalid_grant', `The aud claim must be the token endpoint ${tokenUrl}.`);
    const now = Math.floor(Date.now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!Number.isInteger(iat) || !Number.isInteger(exp)) return refuse('invalid_grant', 'The iat and exp claims are required.');
    if (exp - iat > 3600) return refuse('invalid_grant', 'The exp claim must be at most 60 minutes after iat.');
    if (exp <= now) return refuse('invalid_grant', 'The client assertion has expired.');
    if (iat > now + 60) return refuse('invalid_grant', 'The client assertion was issued in the future.');
    const data = Buffer.from(`${parts[0]}.${parts[1]}`);
    const signature = Buffer.from(parts[2]!, 'base64url');
    const key = integration.publicKey;
    let valid = false;
    try {
      if (alg.startsWith('PS')) {
        valid = (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss') && verify(HASH[alg], data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, signature);
      } else {
        valid = key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === CURVE[alg] && verify(HASH[alg], data, { key, dsaEncoding: 'ieee-p1363' }, signature);
      }
    } catch {
      valid = false;
    }
    if (!valid) return refuse('invalid_grant', `The client assertion signature does not verify with the certificate ${integration.certificateId}.`);
    const token = `eyJraWQiOiJzLlNZU1RFTSJ9.${randomBytes(24).toString('base64url')}.${randomBytes(16).toString('base64url')}`;
    this.tokens.set(token, Date.now() + lifetimeSeconds * 1000);
    return { status: 200, body: { access_token: token, expires_in: String(lifetimeSeconds), token_type: 'bearer' } };
  }
}
