// Connecting a NetSuite account (run by workflows/connect.ts): the worker signs a client assertion
// with the uploaded private key, takes an access token and runs one small SuiteQL query before the
// api stores anything. The credentials wait encrypted on a PendingConnection record; only its id
// travels through Temporal. A refusal answers NetSuite's own text.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../common/config';
import { decryptSecret } from '../../common/crypto';
import { fail, failure } from '../../common/failures';
import { PendingConnection } from '../../common/models/pending-connection';
import { NetSuiteKeyError } from '../../common/netsuite';
import { MalformedNetSuiteAnswer, NetSuiteApiError, NetSuiteAuthError, NetSuiteClient, type NetSuiteCredentials } from './client';

export const NETSUITE_CONNECT_FAILED = 'Failed to connect NetSuite account';
/** The smallest query that proves the role may read through SuiteQL. */
export const CONNECT_CHECK_QUERY = 'SELECT id FROM subsidiary ORDER BY id';

export function createNetSuiteConnectActivities({ config: cfg }: { config: Config }) {
  return {
    /** Token and one query with the pending credentials; refusals are final, an unreachable NetSuite is retried. */
    async verifyNetSuiteCredentials({ pendingId }: { pendingId: string }): Promise<{ verified: true }> {
      const pending = await PendingConnection.findById(pendingId).lean();
      if (!pending || pending.provider !== 'netsuite' || pending.expiresAt.getTime() <= Date.now()) throw fail.notFound(`${NETSUITE_CONNECT_FAILED}: the request expired, try again`);
      const creds = JSON.parse(decryptSecret(pending.secretEnc, cfg.ENCRYPTION_KEY)) as NetSuiteCredentials;
      try {
        await new NetSuiteClient(cfg, creds).suiteql(CONNECT_CHECK_QUERY, 1, 0);
      } catch (e) {
        if (e instanceof NetSuiteKeyError) throw ApplicationFailure.nonRetryable(`${NETSUITE_CONNECT_FAILED}: ${e.message}`, 'ValidationError');
        if (e instanceof NetSuiteAuthError) throw ApplicationFailure.nonRetryable(`${NETSUITE_CONNECT_FAILED}: ${e.message}`, 'ValidationError');
        // Throttled: the user is waiting, so it is answered (429) rather than retried.
        if (e instanceof NetSuiteApiError && e.throttled) throw ApplicationFailure.nonRetryable(`${NETSUITE_CONNECT_FAILED}: ${e.message}`, 'RateLimited');
        if (e instanceof NetSuiteApiError && e.status < 500) throw ApplicationFailure.nonRetryable(`${NETSUITE_CONNECT_FAILED}: ${e.message}`, e.status === 401 || e.status === 403 ? 'ValidationError' : 'ConnectRefused');
        if (e instanceof MalformedNetSuiteAnswer) throw failure('ConnectRefused', `${NETSUITE_CONNECT_FAILED}: unexpected answer from NetSuite: ${e.message}`);
        throw ApplicationFailure.retryable(`${NETSUITE_CONNECT_FAILED}: NetSuite could not be reached`, 'Unreachable');
      }
      return { verified: true };
    },
  };
}
