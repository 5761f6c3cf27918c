// How fresh an organization's reports are, per connection and for the whole organization: the
// newest sync whose data reached trial_balance (changeAt, when that sync finished), and the
// consolidation that includes it (consolidatedAt). Written by the organization's changes workflow
// (workflows/organization-changes.ts, activities/changes) after each round; a late or repeated
// round never moves a time back. Read by GET /api/v1/freshness (Apps, Reports' "data as of").
import mongoose, { Schema, type InferSchemaType } from 'mongoose';

const freshnessSchema = new Schema(
  {
    /** `org:<orgId>` for the organization, `<provider>:<accountId>` for a connection. */
    key: { type: String, required: true, unique: true },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    /** Absent on the organization's own row. */
    provider: { type: String, default: null },
    accountId: { type: String, default: null },
    /** When the newest sync applied to trial_balance finished. */
    changeAt: { type: Date, default: null },
    /** When the consolidation that includes it finished (null: none set up, or not consolidated yet). */
    consolidatedAt: { type: Date, default: null },
    /** The months the latest round found changed in trial_balance. */
    monthsChanged: { type: [String], default: [] },
    /** Organization row: when the latest successful round began reading (a change finished before it is in the reports). */
    appliedThrough: { type: Date, default: null },
    /** Organization row: the sources' notification event ids handled lately (a redelivery is applied once). */
    eventIds: { type: [String], default: undefined },
    /** Connection row: when the newest sync applied began (a source change made before it is in the reports: a late notification of it is not synced again). */
    syncedFrom: { type: Date, default: null },
    /** The latest round's failure, in the user's words (null once a round succeeds). */
    lastError: { type: String, default: null },
  },
  { timestamps: true },
);

export type FreshnessDoc = InferSchemaType<typeof freshnessSchema> & { _id: mongoose.Types.ObjectId };

export const Freshness = mongoose.model('Freshness', freshnessSchema);

export const freshnessKey = {
  organization: (orgId: string) => `org:${orgId}`,
  connection: (provider: string, accountId: string) => `${provider}:${accountId}`,
};
