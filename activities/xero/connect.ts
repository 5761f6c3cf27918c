// Connecting Xero (OAuth step 2, run by workflows/connect.ts): the api has consumed the single-use
// authorization state and left the code on it, encrypted; here the code is exchanged, the token
// set is stored encrypted on a XeroGrant, and the organisations it reaches are listed
// (GET /connections) with their base currency and fiscal year end (Organisation), for the user to
// pick which to link. Neither the code nor the tokens ever enter a workflow input, result or history.
import type { Config } from '../../common/config';
import { encryptSecret } from '../../common/crypto';
import { failure } from '../../common/failures';
import { xeroOAuth } from '../../common/xero-oauth';
import { exchangeFailure, spendCode, stateCode } from '../connectors/oauth2-code';
import { XeroGrant } from '../../common/models/xero-account';
import { apiGet, exchangeCode, InvalidGrantError, listConnections, XeroHttpError, XeroThrottled } from './client';
import { parseOrganisation } from './parse';

export const XERO_EXCHANGE_FAILED = 'failed to process Xero token exchange';

export interface ConnectXeroInput {
  stateId: string;
  orgId: string;
  userId: string;
}
export interface ConnectXeroOutput {
  grantId: string;
}

const refused = (why: string) => failure('ConnectRefused', `${XERO_EXCHANGE_FAILED}: ${why}`);

export function createXeroConnectActivities({ config: cfg }: { config: Config }) {
  return {
    async connectXeroGrant({ stateId, orgId, userId }: ConnectXeroInput): Promise<ConnectXeroOutput> {
      const { code, state } = await stateCode(cfg, stateId);
      // A retried attempt after the code was spent finds the grant the first attempt stored.
      if (code === null) {
        const done = state?.grantId ? await XeroGrant.exists({ _id: state.grantId }) : null;
        if (done) return { grantId: String(done._id) };
        throw refused('the authorization was already used: start the connection again');
      }
      let tokens;
      try {
        tokens = await exchangeCode(cfg, code);
      } catch (e) {
        throw exchangeFailure(e, xeroOAuth, refused, (x) => x instanceof XeroThrottled || (x instanceof XeroHttpError && x.transient), InvalidGrantError);
      }
      const tenants = (await listConnections(cfg, tokens.accessToken)).filter((t) => t.tenantType === 'ORGANISATION');
      const described = [];
      for (const t of tenants) {
        const org = parseOrganisation((await apiGet(cfg, tokens.accessToken, t.tenantId, '/Organisation')).body);
        described.push({ ...t, tenantName: t.tenantName || org.name, baseCurrency: org.baseCurrency, fiscalYearEndMonth: org.fiscalYearEndMonth });
      }
      const grant = await XeroGrant.create({
        organization_id: orgId,
        connectedBy: userId,
        accessTokenEnc: encryptSecret(tokens.accessToken, cfg.ENCRYPTION_KEY),
        refreshTokenEnc: encryptSecret(tokens.refreshToken, cfg.ENCRYPTION_KEY),
        accessTokenExpiresAt: new Date(Date.now() + tokens.expiresIn * 1000),
        tenants: described,
      });
      // The code is spent: it is not kept; the state remembers the grant it made.
      await spendCode(stateId, { grantId: grant._id });
      return { grantId: String(grant._id) };
    },
  };
}
