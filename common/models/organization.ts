import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { announceWrites } from './writes';
import type { OrganizationAnswer } from '../contract/organizations';

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
  },
  { timestamps: true },
);

export type OrganizationDoc = InferSchemaType<typeof organizationSchema> & { _id: mongoose.Types.ObjectId };

/** Writes to organizations through this process: the api's organization list cache forgets at once. */
export const organizationWrites = announceWrites(organizationSchema);

export const Organization = mongoose.model('Organization', organizationSchema);

/** Onboarding fields safe to answer (never the encrypted secrets). */
const PUBLIC_ONBOARDING_FIELDS = ['containerName', 'databaseName', 'dataFactoryName', 'factoryImportedAt', 'storageAccountName', 'sqlServerName', 'location'] as const;

/** The organization as answers carry it: ids as strings, dashboards as { name, url }, no secrets. */
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
    ...(opts.withOnboarding ? { onboarding: Object.fromEntries(PUBLIC_ONBOARDING_FIELDS.filter((k) => onboarding[k] != null).map((k) => [k, onboarding[k]])) } : {}),
  };
}
