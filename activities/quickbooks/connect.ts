// Connecting a QuickBooks company (OAuth step 2, run by workflows/connect.ts): the api has
// consumed the single-use authorization state and left the code on it, encrypted; here the code
// is exchanged with Intuit, the company is confirmed to answer to the tokens, and the account is
// stored with its tokens encrypted. Neither the code nor the tokens ever enter a workflow input,
// result or history.
import type { Config } from '../../common/config';
import { encryptSecret } from '../../common/crypto';
import { quickbooksOAuth } from '../../common/quickbooks-oauth';
import { QuickBooksAccount } from '../../common/models/quickbooks-account';
import { exchangeCode, fetchCompanyName, IntuitHttpError, InvalidGrantError, ThrottledError } from './client';
import { failure } from '../../common/failures';
import { exchangeFailure, spendCode, stateCode } from '../connectors/oauth2-code';

export const TOKEN_EXCHANGE_FAILED = 'failed to process QuickBooks token exchange';

export interface ConnectQuickBooksInput {
  /** The OAuthState record the api consumed (it holds the encrypted code). */
  stateId: string;
  orgId: string;
  realmId: string;
  userId: string;
}
export interface ConnectQuickBooksOutput {
  accountId: string;
  /** false when the company was connected before (its tokens were replaced). */
  created: boolean;
}

const refused = (why: string) => failure('ConnectRefused', `${TOKEN_EXCHANGE_FAILED}: ${why}`);

export function createQuickBooksConnectActivities({ config: cfg }: { config: Config }) {
  return {
    async connectQuickBooksAccount({ stateId, orgId, realmId, userId }: ConnectQuickBooksInput): Promise<ConnectQuickBooksOutput> {
      const { code } = await stateCode(cfg, stateId);
      // A retried attempt after the code was spent finds the account the first attempt stored.
      if (code === null) {
        const done = await QuickBooksAccount.findOne({ organization_id: orgId, realmId, connectedBy: userId }, { _id: 1 }).lean();
        if (done) return { accountId: String(done._id), created: false };
        throw refused('the authorization was already used: start the connection again');
      }
      let tokens;
      try {
        tokens = await exchangeCode(cfg, code);
      } catch (e) {
        throw exchangeFailure(e, quickbooksOAuth, refused, (x) => x instanceof ThrottledError || (x instanceof IntuitHttpError && x.status >= 500), InvalidGrantError);
      }
      await spendCode(stateId);
      // The company must answer to these tokens: a realmId that is not the consented company is refused.
      let companyName: string;
      try {
        companyName = await fetchCompanyName(cfg, tokens.accessToken, realmId);
      } catch (e) {
        throw refused(`QuickBooks did not confirm company ${realmId} (${e instanceof Error ? e.message : String(e)})`);
      }
      const now = Date.now();
      const existed = await QuickBooksAccount.exists({ organization_id: orgId, realmId });
      // FerretDB's findAndModify takes no projection (the secrets are select: false): update, then read.
      await QuickBooksAccount.updateOne(
        { organization_id: orgId, realmId },
        {
          $set: {
            accessTokenEnc: encryptSecret(tokens.accessToken, cfg.ENCRYPTION_KEY),
            refreshTokenEnc: encryptSecret(tokens.refreshToken, cfg.ENCRYPTION_KEY),
            accessTokenExpiresAt: new Date(now + tokens.expiresIn * 1000),
            ...(tokens.refreshExpiresIn ? { refreshTokenExpiresAt: new Date(now + tokens.refreshExpiresIn * 1000) } : {}),
            status: 'active',
            lastError: null,
            connectedBy: userId,
            ...(companyName ? { companyName } : {}),
          },
          $setOnInsert: { syncIntervalHours: cfg.SYNC_INTERVAL_HOURS },
          $inc: { tokenVersion: 1 },
        },
        { upsert: true },
      );
      const account = await QuickBooksAccount.findOne({ organization_id: orgId, realmId }, { _id: 1 }).lean();
      return { accountId: String(account!._id), created: !existed };
    },
  };
}
