import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { announceWrites } from './writes';
import { ORGANIZATION_DELETION_STATUSES, type OrganizationAnswer } from '../contract/organizations';

const dashboardSchema = new Schema({ name: { type: String, required: true }, url: { type: String, required: true } }, { _id: false });

/** A pipeline installed by "import data factory" from templates/datafactory (the local engine runs these). */
const installedPipelineSchema = new Schema(
  {
    name: { type: String, required: true },
    description: String,
    dependsOn: { type: [String], default: [] },
    /** The local engine's step kinds, in order (e.g. loadCsvFiles, rebuildTrialBalance). */
    activities: { type: [new Schema({ name: String, type: String }, { _id: false })], default: [] },
  },
  { _id: false },
);

/** What onboarding has created for the organization; each step writes its own part. */
const onboardingSchema = new Schema(
  {
    containerName: String,
    databaseName: String,
    dataFactoryName: String,
    factoryImportedAt: Date,
    storageAccountName: String,
    sqlServerName: String,
    sqlAdminUsername: String,
    /** Encrypted with common/crypto (never stored or answered in clear). */
    sqlAdminPasswordEnc: String,
    location: String,
    /** Encrypted: the blob-to-SQL connection string embeds credentials. */
    blobToSqlConnectionStringEnc: String,
    databaseCreatedAt: Date,
    dataFactoryCreatedAt: Date,
    /** Version of templates/datafactory/factory.json that the import installed. */
    factoryTemplateVersion: Number,
    /** The pipelines "import data factory" installed (local engine and azure both list them). */
    pipelines: { type: [installedPipelineSchema], default: undefined },
  },
  { _id: false },
);

/**
 * Set when an admin deletes the organization (DELETE /organization/:id): while 'deleting' the
 * organization-delete workflow removes everything it has, then the document itself; 'failed'
 * keeps the organization, with the error, until the admin retries.
 */
const deletionSchema = new Schema(
  {
    requestedAt: { type: Date, required: true },
    requestedBy: {
      userId: { type: Schema.Types.ObjectId, ref: 'User', default: null },
      email: { type: String, default: '' },
      name: { type: String, default: '' },
    },
    status: { type: String, enum: ORGANIZATION_DELETION_STATUSES, required: true },
    workflowId: { type: String, default: null },
    error: { type: String, default: null },
    failedAt: { type: Date, default: null },
  },
  { _id: false },
);

const organizationSchema = new Schema(
  {
    organizationName: { type: String, required: true, trim: true },
    organizationEmail: { type: String, trim: true, lowercase: true },
    organizationPhoneNumber: { type: String, trim: true },
    organizationAddress: { type: String, trim: true },
    organizationDescription: { type: String, trim: true },
    dashboards: { type: [dashboardSchema], default: [] },
    onboarding: { type: onboardingSchema, default: {} },
    /** Set when the organization's users first save the consolidation's settings: pipeline runs then consolidate too. */
    consolidationConfiguredAt: { type: Date, default: null },
    /** The demo organization of the embedded default (api/demo): its deletion keeps it from ever being created again. */
    demo: { type: Boolean, default: false },
    deletion: { type: deletionSchema, default: undefined },
  },
  { timestamps: true },
);

export type OrganizationDoc = InferSchemaType<typeof organizationSchema> & { _id: mongoose.Types.ObjectId };

/** Writes to organizations through this process: the api's organization list cache forgets at once. */
export const organizationWrites = announceWrites(organizationSchema);

export const Organization = mongoose.model('Organization', organizationSchema);

/** Onboarding fields safe to answer (never the encrypted secrets). */
const PUBLIC_ONBOARDING_FIELDS = ['containerName', 'databaseName', 'dataFactoryName', 'factoryImportedAt', 'storageAccountName', 'sqlServerName', 'location'] as const;

/** The organization as answers carry it: ids as strings, dashboards as { name, url }, no secrets; admins also read a deletion's state. */
export function publicOrganization(o: OrganizationDoc, opts: { withOnboarding?: boolean } = {}): OrganizationAnswer {
  const onboarding = (o.onboarding ?? {}) as Record<string, unknown>;
  return {
    id: String(o._id),
    _id: String(o._id),
    organizationName: o.organizationName,
    organizationEmail: o.organizationEmail ?? '',
    organizationPhoneNumber: o.organizationPhoneNumber ?? '',
    organizationAddress: o.organizationAddress ?? '',
    organizationDescription: o.organizationDescription ?? '',
    dashboards: (o.dashboards ?? []).map((d) => ({ name: d.name, url: d.url })),
    demo: Boolean(o.demo),
    ...(opts.withOnboarding && o.deletion?.status
      ? {
          deletion: {
            status: o.deletion.status,
            requestedAt: new Date(o.deletion.requestedAt).toISOString(),
            requestedBy: o.deletion.requestedBy?.email || null,
            error: o.deletion.error ?? null,
          },
        }
      : {}),
    ...(opts.withOnboarding ? { onboarding: Object.fromEntries(PUBLIC_ONBOARDING_FIELDS.filter((k) => onboarding[k] != null).map((k) => [k, onboarding[k]])) } : {}),
  };
}
