// Connecting a Sage Intacct company (run by workflows/connect.ts): the credentials the user
// typed must open an API session before the api stores them. The api leaves them encrypted on a
// PendingConnection record; only its id travels through Temporal.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../common/config';
import { decryptSecret } from '../../common/crypto';
import { PendingConnection } from '../../common/models/pending-connection';
import { getApiSession, IntacctError, IntacctHttpError, MalformedIntacctAnswer, type SageCredentials } from './client';
import { fail, failure } from '../../common/failures';

export const SAGE_CONNECT_FAILED = 'Failed to connect Sage account';

export function createSageConnectActivities({ config: cfg }: { config: Config }) {
  return {
    /** Opens (and drops) an API session with the pending credentials; refusals are final, an unreachable Intacct is retried. */
    async verifySageCredentials({ pendingId }: { pendingId: string }): Promise<{ verified: true }> {
      const pending = await PendingConnection.findById(pendingId).lean();
      if (!pending || pending.expiresAt.getTime() <= Date.now()) throw fail.notFound(`${SAGE_CONNECT_FAILED}: the request expired, try again`);
      const creds = JSON.parse(decryptSecret(pending.secretEnc, cfg.ENCRYPTION_KEY)) as SageCredentials;
      try {
        await getApiSession(cfg.SAGE_ENDPOINT_URL, creds);
      } catch (e) {
        // Throttled: the user is waiting, so it is answered (429) rather than retried.
        if (e instanceof IntacctError) throw ApplicationFailure.nonRetryable(`${SAGE_CONNECT_FAILED}: ${e.description || e.message} (${e.errorno})`, e.throttled ? 'RateLimited' : 'ValidationError');
        if (e instanceof MalformedIntacctAnswer || e instanceof IntacctHttpError) throw failure('ConnectRefused', `${SAGE_CONNECT_FAILED}: ${e.message}`);
        throw ApplicationFailure.retryable(`${SAGE_CONNECT_FAILED}: Sage Intacct could not be reached`, 'Unreachable');
      }
      return { verified: true };
    },
  };
}
