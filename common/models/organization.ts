import mongoose, { Schema, type InferSchemaType } from 'mongoose';

const dashboardSchema = new Schema({ name: { type: String, required: true }, url: { type: String, required: true } }, { _id: false });

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
  },
  { timestamps: true },
);

export type OrganizationDoc = InferSchemaType<typeof organizationSchema> & { _id: mongoose.Types.ObjectId };

export const Organization = mongoose.model('Organization', organizationSchema);
