// NetSuite connections in Mongo: stored after the worker has checked the credentials (the key
// encrypted, never answered), read per organization with the tenant check, status and schedule
// changed together, each change audited (without the key).
import type { Client } from '@temporalio/client';
import type { z } from 'zod';
import type { Config } from '../../../common/config';
import { encryptSecret } from '../../../common/crypto';
import { NetSuiteAccount, publicNetSuiteAccount, type NetSuiteAccountDoc } from '../../../common/models/netsuite-account';
import { readSigningKey } from '../../../common/netsuite';
import type { UserDoc } from '../../../common/models/user';
import { audit } from '../../lib/audit';
import { assertOrgAccess } from '../../lib/auth';
import { notFound } from '../../lib/errors';
import { deleteSyncSchedule, upsertSyncSchedule } from '../../lib/schedules';
import type { connectBody } from './schemas';

export type ConnectInput = z.infer<typeof connectBody>;

/** The account, when the user may reach its organization. */
export async function loadAccount(user: UserDoc, id: string): Promise<NetSuiteAccountDoc> {
  const account = await NetSuiteAccount.findById(id).lean<NetSuiteAccountDoc>();
  if (!account) throw notFound('NetSuite account not found');
  assertOrgAccess(user, String(account.organization_id));
  return account;
}

export function scheduleSync(temporal: Client, cfg: Config, a: NetSuiteAccountDoc, paused: boolean): Promise<void> {
  return upsertSyncSchedule(temporal, { provider: 'netsuite', accountId: String(a._id), orgId: String(a.organization_id), intervalHours: a.syncIntervalHours, paused, taskQueue: cfg.TEMPORAL_TASK_QUEUE });
}

/**
 * Stores checked credentials (a new connection, or a reconnect of the same NetSuite account, which
 * makes it active again) and answers it with whether it existed.
 */
export async function storeConnection(cfg: Config, user: UserDoc, orgId: string, b: ConnectInput): Promise<{ account: NetSuiteAccountDoc; existed: boolean }> {
  const key = { organization_id: orgId, accountId: b.accountId };
  const before = await NetSuiteAccount.findOne(key).lean<NetSuiteAccountDoc>();
  // FerretDB's findAndModify takes no projection (the key is select: false): update, then read.
  await NetSuiteAccount.updateOne(
    key,
    {
      $set: {
        clientId: b.clientId,
        certificateId: b.certificateId,
        algorithm: readSigningKey(b.privateKey).alg,
        privateKeyEnc: encryptSecret(b.privateKey.trim(), cfg.ENCRYPTION_KEY),
        status: 'active',
        lastError: null,
        connectedBy: user._id,
        ...(b.syncIntervalHours ? { syncIntervalHours: b.syncIntervalHours } : {}),
      },
      ...(b.syncIntervalHours ? {} : { $setOnInsert: { syncIntervalHours: cfg.SYNC_INTERVAL_HOURS } }),
    },
    { upsert: true },
  );
  const account = (await NetSuiteAccount.findOne(key).lean<NetSuiteAccountDoc>())!;
  await audit({ actor: user, action: before ? 'netsuite.reconnect' : 'netsuite.connect', targetType: 'netsuite_account', targetId: String(account._id), before: before ? publicNetSuiteAccount(before) : undefined, after: publicNetSuiteAccount(account) });
  return { account, existed: !!before };
}

/** Removes a connection that could not be scheduled (only one this request created). */
export async function forgetConnection(orgId: string, accountId: string): Promise<void> {
  await NetSuiteAccount.deleteOne({ organization_id: orgId, accountId });
}

export async function listConnections(orgId: string): Promise<NetSuiteAccountDoc[]> {
  return NetSuiteAccount.find({ organization_id: orgId }).sort({ createdAt: 1 }).lean<NetSuiteAccountDoc[]>();
}

export async function setStatus(user: UserDoc, account: NetSuiteAccountDoc, status: string, syncIntervalHours: number): Promise<void> {
  await NetSuiteAccount.updateOne({ _id: account._id }, { $set: { status, syncIntervalHours } });
  await audit({ actor: user, action: 'netsuite.status', targetType: 'netsuite_account', targetId: String(account._id), before: { status: account.status, syncIntervalHours: account.syncIntervalHours }, after: { status, syncIntervalHours } });
}

export async function removeConnection(temporal: Client, user: UserDoc, account: NetSuiteAccountDoc): Promise<void> {
  await deleteSyncSchedule(temporal, 'netsuite', String(account._id));
  await NetSuiteAccount.deleteOne({ _id: account._id });
  await audit({ actor: user, action: 'netsuite.delete', targetType: 'netsuite_account', targetId: String(account._id), before: publicNetSuiteAccount(account) });
}
