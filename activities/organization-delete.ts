// Deleting an organization (workflows/organization-delete.ts): each step removes one kind of
// thing the organization has and finds it already gone when retried. Every step reads what to
// remove from the organization's own record (never from its input), and refuses to remove a
// container, database or data factory that another organization's record also names.
//   schedules    the Temporal schedules of its connections' syncs
//   workflows    what still runs for it (started after the api's check), terminated
//   connections  QuickBooks, Sage and NetSuite accounts (their encrypted secrets), pending connections, OAuth states
//   files        its uploads' blobs (listed from the upload records in its database, and what the
//                upgrade's move left in Mongo) and records, and its storage container; before
//                the database step, which removes those records with the rest
//   database     its SQL database (local: the SQLite file and its journal files; azure: the Azure
//                SQL database through ARM) and, on azure, its data factory
//   runs         pipeline runs and sync runs: they live in its database (gone with it); what
//                the upgrade's move left in the legacy Mongo collections
//   users        its users (role user), their reset tokens; an admin attached to it is detached
//   finish       the audit record, then the organization document
import type { BlobServiceClient } from '@azure/storage-blob';
import { Context } from '@temporalio/activity';
import { ScheduleNotFoundError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import Database from 'better-sqlite3';
import mongoose from 'mongoose';
import { existsSync, rmSync } from 'node:fs';
import type { Config } from '../common/config';
import { CONNECTOR_LIST } from '../common/connectors';
import { fail } from '../common/failures';
import { logger } from '../common/logger';
import { DEMO_ORGANIZATION_REMOVED, setAppSettingOnce, type DemoRemoved } from '../common/models/app-setting';
import { AuditRecord } from '../common/models/audit';
import { OAuthState } from '../common/models/oauth-state';
import { AlertState } from '../common/models/alert-state';
import { AlertWebhook } from '../common/models/alert-webhook';
import { Freshness } from '../common/models/freshness';
import { Organization, type OrganizationDoc } from '../common/models/organization';
import { PendingConnection } from '../common/models/pending-connection';
import { ResetToken } from '../common/models/reset-token';
import type { SyncProvider } from '../common/models/sync-run';
import { deleteLegacyRuns, deleteLegacyUploads, legacyUploadsOf } from '../warehouse/records/run-migration';
import { forgetRunStore, withRunStore } from '../warehouse/records/run-store';
import { forgetUploadOrganizations } from '../warehouse/records/uploads';
import { User } from '../common/models/user';
import { localDatabaseFile } from '../warehouse/connection';
import { armStatus, azureCredential, classifyArmError, managementClientOptions, type AzureDeps } from '../common/azure-arm';
import type { Warehouse } from '../warehouse/types';

/** The tag onboarding puts on what it creates in Azure (warehouse/provision.ts, datafactory/azure.ts). */
const OWNER_TAG = 'ledgerflowOrganizationId';

/** A sync schedule's id, as api/lib/schedules.ts syncScheduleId names it. */
const syncScheduleId = (provider: SyncProvider, accountId: string) => `sync-schedule-${provider}-${accountId}`;

export interface OrganizationDeleteStepInput {
  orgId: string;
}

export interface PrepareOrganizationDeletionOutput {
  /** false when the organization is gone already (a deletion that finished, run again). */
  found: boolean;
  organizationName?: string;
}

export interface StopOrganizationWorkflowsInput extends OrganizationDeleteStepInput {
  /** The deletion's own workflow, which must go on. */
  exceptWorkflowId: string;
}

export interface MarkDeletionFailedInput extends OrganizationDeleteStepInput {
  error: string;
}

/** The organization as a deletion step reads it: only while it is marked for deletion. */
async function markedOrganization(orgId: string): Promise<OrganizationDoc | null> {
  if (!mongoose.isValidObjectId(orgId)) throw fail.validation('Organization ID is missing');
  const org = await Organization.findById(orgId).lean<OrganizationDoc>();
  if (!org) return null;
  // A guard against a workflow started by hand: only what the api marked is deleted.
  if (org.deletion?.status !== 'deleting') throw fail.validation(`Organization "${org.organizationName}" is not marked for deletion: delete it from the Organizations screen`);
  return org;
}

/** Refuses when another organization's record names the same resource (it would be theirs to lose). */
async function assertOnlyOurs(orgId: string, field: 'containerName' | 'databaseName' | 'dataFactoryName', name: string, what: string): Promise<void> {
  const other = await Organization.findOne({ _id: { $ne: orgId }, [`onboarding.${field}`]: name }, { organizationName: 1 }).lean<OrganizationDoc>();
  if (other) throw fail.validation(`${what} "${name}" is also named by organization "${other.organizationName}": it was left in place; remove it by hand if it is not theirs`);
}

/** The Temporal client of the worker running this activity (the deletion's own namespace). */
const temporal = (): Client => Context.current().client;

export interface OrganizationDeleteDeps {
  config: Config;
  blobService: BlobServiceClient;
  warehouse: Warehouse;
  azure?: AzureDeps;
}

/** Removes the organization's SQL database (and, on azure, its data factory): one per provider. */
interface DatabaseRemover {
  removeDatabase(org: OrganizationDoc, databaseName: string): Promise<boolean>;
  removeDataFactory(org: OrganizationDoc, factoryName: string): Promise<boolean>;
}

/** Local: the SQLite file under WAREHOUSE_DIR (with its -wal, -shm and -journal files); the local engine's factory is the organization's record. */
function localRemover(cfg: Config): DatabaseRemover {
  return {
    async removeDatabase(org, databaseName) {
      const file = localDatabaseFile(cfg.WAREHOUSE_DIR, databaseName);
      const files = [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
      if (!files.some((f) => existsSync(f))) return false;
      if (existsSync(file)) {
        // The owner row onboarding wrote (warehouse/provision.ts): never another organization's file.
        let owner: string | undefined;
        try {
          const db = new Database(file, { readonly: true, fileMustExist: true });
          try {
            owner = (db.prepare("select value from _ledgerflow_meta where key = 'organization_id'").get() as { value?: string } | undefined)?.value;
          } finally {
            db.close();
          }
        } catch (e) {
          // Unreadable (damaged, no owner table): the record names it as this organization's, and no other one does.
          logger.warn({ err: e, databaseName }, 'organization database has no readable owner row; removed as the record names it');
        }
        if (owner && owner !== String(org._id)) throw fail.validation(`Database "${databaseName}" belongs to another organization: it was left in place`);
      }
      for (const f of files) rmSync(f, { force: true });
      return true;
    },
    async removeDataFactory() {
      return false;
    },
  };
}

/**
 * Azure: the Azure SQL database on the organization's server (else AZURE_SQL_SERVER) and its
 * Data Factory, through ARM as onboarding created them (@azure/arm-sql, @azure/arm-datafactory),
 * each only when its owner tag is this organization's (or absent). The SQL server itself is
 * never removed: it is the admin's, shared or brought for the organization.
 */
function azureRemover(cfg: Config, azure: AzureDeps): DatabaseRemover {
  const scope = () => {
    if (!cfg.AZURE_RESOURCE_GROUP || !cfg.AZURE_SUBSCRIPTION_ID) throw fail.validation('AZURE_SUBSCRIPTION_ID and AZURE_RESOURCE_GROUP must be configured');
    return { rg: cfg.AZURE_RESOURCE_GROUP, subscription: cfg.AZURE_SUBSCRIPTION_ID };
  };
  const assertOwner = (tags: Record<string, string> | undefined, orgId: string, what: string) => {
    const owner = tags?.[OWNER_TAG];
    if (owner && owner !== orgId) throw fail.validation(`${what} belongs to another organization: it was left in place`);
  };
  return {
    async removeDatabase(org, databaseName) {
      const { rg, subscription } = scope();
      const server = org.onboarding?.sqlServerName || cfg.AZURE_SQL_SERVER;
      if (!server) throw fail.validation('This organization has no Azure SQL server: set AZURE_SQL_SERVER');
      const { SqlManagementClient } = await import('@azure/arm-sql');
      const client = new SqlManagementClient(await azureCredential(azure), subscription, managementClientOptions(cfg, azure));
      try {
        const existing = await client.databases.get(rg, server, databaseName);
        assertOwner(existing.tags, String(org._id), `Database "${databaseName}"`);
      } catch (e) {
        if (e instanceof ApplicationFailure) throw e;
        if (armStatus(e) === 404) return false;
        classifyArmError(e, `Azure SQL refused to read database "${databaseName}"`);
      }
      try {
        await client.databases.beginDeleteAndWait(rg, server, databaseName, { updateIntervalInMs: azure.pollIntervalMs ?? 5000 });
      } catch (e) {
        if (armStatus(e) === 404) return false;
        classifyArmError(e, `Azure SQL refused to delete database "${databaseName}"`);
      }
      return true;
    },
    async removeDataFactory(org, factoryName) {
      const { rg, subscription } = scope();
      const { DataFactoryManagementClient } = await import('@azure/arm-datafactory');
      const adf = new DataFactoryManagementClient(await azureCredential(azure), subscription, managementClientOptions(cfg, azure));
      try {
        const existing = await adf.factories.get(rg, factoryName);
        assertOwner(existing.tags, String(org._id), `Data factory "${factoryName}"`);
      } catch (e) {
        if (e instanceof ApplicationFailure) throw e;
        if (armStatus(e) === 404) return false;
        classifyArmError(e, `Azure refused to read data factory "${factoryName}"`);
      }
      try {
        // ARM answers 204 for a factory already gone.
        await adf.factories.delete(rg, factoryName);
      } catch (e) {
        if (armStatus(e) === 404) return false;
        classifyArmError(e, `Azure refused to delete data factory "${factoryName}"`);
      }
      return true;
    },
  };
}

export function createOrganizationDeleteActivities({ config, blobService, warehouse, azure = {} }: OrganizationDeleteDeps) {
  // The provider is the warehouse's, chosen once where activities are built (activities/index.ts).
  const remover = warehouse.provider === 'azure' ? azureRemover(config, azure) : localRemover(config);

  return {
    /** Finds the marked organization; the demo organization's removal marker is written (again) before anything goes. */
    async prepareOrganizationDeletion({ orgId }: OrganizationDeleteStepInput): Promise<PrepareOrganizationDeletionOutput> {
      const org = await markedOrganization(orgId);
      if (!org) return { found: false };
      if (org.demo) {
        const marker: DemoRemoved = { removedAt: new Date(), removedBy: org.deletion?.requestedBy?.email ?? '', organizationId: orgId, organizationName: org.organizationName };
        await setAppSettingOnce(DEMO_ORGANIZATION_REMOVED, marker);
      }
      return { found: true, organizationName: org.organizationName };
    },

    /** The sync schedules of its connections, and any other schedule carrying its OrganizationId. */
    async deleteOrganizationSchedules({ orgId }: OrganizationDeleteStepInput): Promise<{ deleted: string[] }> {
      if (!(await markedOrganization(orgId))) return { deleted: [] };
      const client = temporal();
      const ids = new Set<string>();
      for (const c of CONNECTOR_LIST) for (const a of await c.model.find({ organization_id: orgId }, { _id: 1 }).lean()) ids.add(syncScheduleId(c.key, String(a._id)));
      for await (const s of client.schedule.list({ query: `OrganizationId = '${orgId}'` })) ids.add(s.scheduleId);
      const deleted: string[] = [];
      for (const id of ids) {
        try {
          await client.schedule.getHandle(id).delete();
          deleted.push(id);
        } catch (e) {
          if (!(e instanceof ScheduleNotFoundError)) throw e;
        }
      }
      return { deleted };
    },

    /**
     * Terminates what still runs for it: the api refused the deletion while its work ran, but a
     * run may have started since (a schedule firing before its deletion, a request in between).
     */
    async stopOrganizationWorkflows({ orgId, exceptWorkflowId }: StopOrganizationWorkflowsInput): Promise<{ stopped: string[] }> {
      if (!(await markedOrganization(orgId))) return { stopped: [] };
      const client = temporal();
      const stopped: string[] = [];
      for await (const w of client.workflow.list({ query: `OrganizationId = '${orgId}' AND ExecutionStatus = 'Running'` })) {
        if (w.workflowId === exceptWorkflowId) continue;
        try {
          await client.workflow.getHandle(w.workflowId, w.runId).terminate('The organization is being deleted');
          stopped.push(w.workflowId);
        } catch (e) {
          if (!(e instanceof WorkflowNotFoundError)) throw e;
        }
      }
      return { stopped };
    },

    /** QuickBooks, Sage and NetSuite accounts (their encrypted tokens, passwords and keys with them), OAuth states and pending connections. */
    async deleteOrganizationConnections({ orgId }: OrganizationDeleteStepInput): Promise<{ accounts: number; oauthStates: number; pendingConnections: number }> {
      if (!(await markedOrganization(orgId))) return { accounts: 0, oauthStates: 0, pendingConnections: 0 };
      // A pending connection names no organization: its connect workflow does (sage-connect-<pendingId>, netsuite-connect-<pendingId>).
      const pendingIds: string[] = [];
      // The credentials connectors' connect workflows hold a pending record (<key>-connect-<pendingId>).
      const credentials = CONNECTOR_LIST.filter((c) => c.connection);
      const types = credentials.map((c) => `'${c.connectWorkflow}'`).join(', ');
      const idOf = new RegExp(`^(?:${credentials.map((c) => c.key).join('|')})-connect-([a-f0-9]{24})$`);
      for await (const w of temporal().workflow.list({ query: `OrganizationId = '${orgId}' AND WorkflowType IN (${types})` })) {
        const id = idOf.exec(w.workflowId)?.[1];
        if (id) pendingIds.push(id);
      }
      const pending = pendingIds.length ? (await PendingConnection.deleteMany({ _id: { $in: pendingIds } })).deletedCount : 0;
      const oauthStates = (await OAuthState.deleteMany({ organization_id: orgId })).deletedCount;
      // What a connector keeps beside its connections (Xero's consents) is the organization's too.
      for (const c of CONNECTOR_LIST) for (const m of c.otherRecords ?? []) await m.deleteMany({ organization_id: orgId });
      let accounts = 0;
      for (const c of CONNECTOR_LIST) accounts += (await c.model.deleteMany({ organization_id: orgId })).deletedCount;
      // What its connections' syncs and alerts recorded: freshness, alert states, the alert webhook (its secret).
      await Freshness.deleteMany({ organization_id: orgId });
      await AlertState.deleteMany({ organization_id: orgId });
      await AlertWebhook.deleteMany({ organization_id: orgId });
      return { accounts, oauthStates, pendingConnections: pending };
    },

    /**
     * Its uploads' blobs (also any outside its container), its container with whatever else it
     * holds, then the upload records. The records are read from its database, so this step runs
     * before the database's; a retry after the database went finds those blobs gone with the
     * container (and the legacy records, if any, still in Mongo).
     */
    async deleteOrganizationFiles({ orgId }: OrganizationDeleteStepInput): Promise<{ uploads: number; containerDeleted: boolean }> {
      const org = await markedOrganization(orgId);
      if (!org) return { uploads: 0, containerDeleted: false };
      const containerName = org.onboarding?.containerName ?? undefined;
      const stored = (await withRunStore(config, orgId, (s) => s.allUploads())) ?? [];
      const legacy = await legacyUploadsOf(orgId);
      const uploads = [...stored, ...legacy].map((u) => ({ containerName: u.containerName, blobName: u.blobName }));
      for (const u of uploads) {
        if (u.containerName === containerName) continue;
        await assertOnlyOurs(orgId, 'containerName', u.containerName, 'Container');
        await blobService.getContainerClient(u.containerName).getBlobClient(u.blobName).deleteIfExists();
      }
      let containerDeleted = false;
      if (containerName) {
        await assertOnlyOurs(orgId, 'containerName', containerName, 'Container');
        containerDeleted = (await blobService.getContainerClient(containerName).deleteIfExists()).succeeded;
      }
      const removed = ((await withRunStore(config, orgId, (s) => s.deleteAllUploads())) ?? 0) + (await deleteLegacyUploads(orgId));
      await forgetUploadOrganizations(orgId);
      return { uploads: removed, containerDeleted };
    },

    /** Its SQL database and (azure) data factory, through the provider's remover. */
    async deleteOrganizationDatabase({ orgId }: OrganizationDeleteStepInput): Promise<{ database: boolean; dataFactory: boolean }> {
      const org = await markedOrganization(orgId);
      if (!org) return { database: false, dataFactory: false };
      const { databaseName, dataFactoryName } = org.onboarding ?? {};
      let dataFactory = false;
      let database = false;
      // The factory first: on azure its linked service points at the database.
      if (dataFactoryName) {
        await assertOnlyOurs(orgId, 'dataFactoryName', dataFactoryName, 'Data factory');
        dataFactory = await remover.removeDataFactory(org, dataFactoryName);
      }
      if (databaseName) {
        await assertOnlyOurs(orgId, 'databaseName', databaseName, 'Database');
        // This process's handle on it (run records) closes first.
        await forgetRunStore(orgId);
        database = await remover.removeDatabase(org, databaseName);
      }
      return { database, dataFactory };
    },

    /** Its pipeline runs and sync runs left in the legacy Mongo collections (the rest went with its database). */
    async deleteOrganizationRuns({ orgId }: OrganizationDeleteStepInput): Promise<{ pipelineRuns: number; syncRuns: number }> {
      if (!(await markedOrganization(orgId))) return { pipelineRuns: 0, syncRuns: 0 };
      return deleteLegacyRuns(orgId);
    },

    /** Its users (role user) with their reset tokens; an admin attached to it stays, detached. */
    async deleteOrganizationUsers({ orgId }: OrganizationDeleteStepInput): Promise<{ users: number; adminsDetached: number }> {
      if (!(await markedOrganization(orgId))) return { users: 0, adminsDetached: 0 };
      const ids = (await User.find({ organization_id: orgId, role: 'user' }, { _id: 1 }).lean()).map((u) => u._id);
      if (ids.length) await ResetToken.deleteMany({ userId: { $in: ids } });
      const users = ids.length ? (await User.deleteMany({ _id: { $in: ids } })).deletedCount : 0;
      const adminsDetached = (await User.updateMany({ organization_id: orgId, role: 'admin' }, { $set: { organization_id: null } })).modifiedCount;
      return { users, adminsDetached };
    },

    /** The audit record of who deleted which organization (once), then the organization itself. */
    async finishOrganizationDeletion({ orgId }: OrganizationDeleteStepInput): Promise<{ deleted: boolean }> {
      const org = await markedOrganization(orgId);
      if (!org) return { deleted: false };
      if (!(await AuditRecord.exists({ action: 'organization.delete', targetId: orgId }))) {
        const by = org.deletion?.requestedBy;
        const ob = org.onboarding ?? {};
        await AuditRecord.create({
          actorId: by?.userId ?? null,
          actorEmail: by?.email ?? '',
          actorRole: 'admin',
          action: 'organization.delete',
          targetType: 'organization',
          targetId: orgId,
          before: {
            organizationName: org.organizationName,
            organizationEmail: org.organizationEmail ?? '',
            demo: Boolean(org.demo),
            requestedAt: org.deletion?.requestedAt ?? null,
            containerName: ob.containerName ?? null,
            databaseName: ob.databaseName ?? null,
            dataFactoryName: ob.dataFactoryName ?? null,
          },
          after: null,
        });
      }
      await Organization.deleteOne({ _id: orgId, 'deletion.status': 'deleting' });
      return { deleted: true };
    },

    /** A step failed for good: the organization shows again, with the error, for the admin to retry. */
    async markOrganizationDeletionFailed({ orgId, error }: MarkDeletionFailedInput): Promise<void> {
      await Organization.updateOne({ _id: orgId, 'deletion.status': 'deleting' }, { $set: { 'deletion.status': 'failed', 'deletion.error': error, 'deletion.failedAt': new Date() } });
    },
  };
}

export type OrganizationDeleteActivities = ReturnType<typeof createOrganizationDeleteActivities>;
