// The api's half of the OAuth 2.0 authorization-code flow, once for every `oauth2-code` connector
// (its definition's `oauth2`: settings prefix, scopes; common/connectors/oauth2-code.ts):
//   GET /availability   whether this server can connect the ledger (the operator set its app);
//   GET /connect        the consent URL, with a random single-use state bound to the user and organization;
// and, for the connector's own callback route (its spec'd path, body and answer differ: QuickBooks'
// realmId and account, Xero's pick of organisations), the state's single use and the connect
// workflow that exchanges the code in the worker (activities/connectors/oauth2-code.ts).
import { randomBytes } from 'node:crypto';
import type { Router } from 'express';
import { z } from 'zod';
import type { ConnectorDefinition } from '../../common/connectors';
import { oauth2AuthorizeUrl, oauth2Configured, oauth2Required, type OAuth2CodeFlow } from '../../common/connectors/oauth2-code';
import { encryptSecret } from '../../common/crypto';
import { failureMessage, failureTypeOf, httpStatusOf } from '../../common/failures';
import { logger } from '../../common/logger';
import { OAuthState } from '../../common/models/oauth-state';
import type { UserDoc } from '../../common/models/user';
import { workflowIds } from '../../common/temporal';
import * as connectWorkflows from '../../workflows/connectors';
import type { AppDeps } from '../deps';
import { assertOrgAccess, auth } from './auth';
import { optionalOrgId } from './connection-schemas';
import { resolveExistingOrgId } from './connections';
import { ApiError } from './errors';
import { ok } from './respond';
import { route } from './route';
import { resultWithin, STILL_RUNNING, workflowStart } from './temporal';
import { validate } from './validate';

/** An authorization must come back within this time. */
const STATE_TTL_MS = 10 * 60 * 1000;
/** The callback is answered when the worker has exchanged the code. */
const CONNECT_WAIT_MS = 60000;

/** A connector with the flow. */
export type OAuth2Connector = ConnectorDefinition & { oauth2: OAuth2CodeFlow };

/** The failure message of a connector's code exchange ("failed to process Xero token exchange"). */
export const exchangeFailed = (flow: Pick<OAuth2CodeFlow, 'name'>) => `failed to process ${flow.name} token exchange`;

/** Registers GET /availability and GET /connect of an oauth2-code connector (api/resources/connectors/router.ts, ahead of the generic routes). */
export function oauth2Routes(router: Router, deps: AppDeps, c: OAuth2Connector): void {
  const cfg = deps.config;
  const flow = c.oauth2;
  const settings = oauth2Required(flow);

  // Whether this server can connect the ledger at all (its app's settings are the operator's):
  // the Apps screen shows the option as unavailable instead of failing on click.
  const availabilitySpec = { summary: `Whether this server can connect ${flow.name} (its app's settings ${settings} are set): data { available }`, tag: c.key, answer: z.object({ available: z.boolean() }) };
  route(router, 'get', '/availability', availabilitySpec, auth('admin', 'user'), (_req, res) => {
    ok(res, `${flow.name} availability`, { available: oauth2Configured(cfg, flow) });
  });

  // Step 1: the authorize URL, with a random state bound to this user and organization.
  const connectSpec = {
    summary: `Start connecting ${flow.name}: data { authorizeUrl, state, expiresAt }. The state (random, bound to this user and organization, single use, 10 min) comes back on the redirect to ${flow.prefix}_REDIRECT_URI. organization_id: optional for a user (its own organization); an admin must name one`,
    tag: c.key,
    answer: z.object({ authorizeUrl: z.string(), state: z.string(), expiresAt: z.string() }),
    statuses: { 404: "'Organization not found': the organization_id is well formed but names no organization", 503: `${flow.name} is not configured on this server (or Temporal or Mongo is unreachable)` },
  };
  route(router, 'get', '/connect', connectSpec, auth('admin', 'user'), validate({ query: z.object({ organization_id: optionalOrgId }) }), async (req, res) => {
    const orgId = await resolveExistingOrgId(req.user!, (res.locals.query as { organization_id?: string }).organization_id);
    if (!oauth2Configured(cfg, flow)) throw new ApiError(503, `${flow.name} is not configured on this server`);
    const state = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + STATE_TTL_MS);
    await OAuthState.create({ state, provider: c.key, userId: req.user!._id, organization_id: orgId, expiresAt });
    ok(res, `${flow.name} authorization URL created`, { authorizeUrl: oauth2AuthorizeUrl(cfg, flow, state), state, expiresAt: expiresAt.toISOString() });
  });
}

/**
 * Step 2, the connector's callback: the state is consumed (single use, only by the user it was
 * issued to, within its time; the code rides on it encrypted to the worker, never in a workflow
 * history), then the connector's connect workflow exchanges the code with `extra` (the callback's
 * own parameters, QuickBooks' realmId) and its answer is returned. A refused or late exchange is
 * answered with "failed to process <name> token exchange" and the ledger's reason.
 */
export async function exchangeCode<R>(
  deps: AppDeps,
  c: ConnectorDefinition,
  { user, code, state, extra, late }: { user: UserDoc; code: string; state: string; extra?: Record<string, string>; late: string },
): Promise<{ orgId: string; result: R }> {
  const cfg = deps.config;
  const flow = c.oauth2;
  if (!flow) throw new Error(`${c.key} has no oauth2 flow`);
  const failed = exchangeFailed(flow);
  const issued = await OAuthState.findOneAndUpdate({ state, provider: c.key, userId: user._id, usedAt: null }, { $set: { usedAt: new Date(), codeEnc: encryptSecret(code, cfg.ENCRYPTION_KEY) } }, { new: false }).lean();
  if (!issued || issued.expiresAt.getTime() <= Date.now()) throw new ApiError(400, failed, 'The authorization state is invalid, already used or expired: start the connection again.');
  const orgId = String(issued.organization_id);
  assertOrgAccess(user, orgId);
  const stateId = String(issued._id);
  try {
    const workflow = connectWorkflows[c.connectWorkflow as keyof typeof connectWorkflows] as unknown as (input: Record<string, string>) => Promise<R>;
    const handle = await deps.temporal.workflow.start(workflow, { ...workflowStart(cfg, workflowIds.connect(c.key, stateId), orgId), args: [{ stateId, orgId, userId: String(user._id), ...extra }] });
    const result = await resultWithin(deps.temporal, handle, CONNECT_WAIT_MS);
    if (result === STILL_RUNNING) throw new ApiError(504, failed, `${failed}: ${flow.name} did not answer in time; ${late}`);
    return { orgId, result };
  } catch (e) {
    if (e instanceof ApiError) throw e;
    logger.warn({ err: failureMessage(e), provider: c.key }, 'OAuth token exchange failed');
    throw new ApiError(httpStatusOf(failureTypeOf(e)), failed, failureMessage(e));
  }
}
