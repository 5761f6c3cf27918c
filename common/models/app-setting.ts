import mongoose, { Schema } from 'mongoose';

/**
 * Named app-wide settings and markers, one document each, keyed by name: e.g. "demo-seed" (how far
 * the demo organization's seeding got) and "demo-organization" (set once an admin deleted the demo
 * organization, so it is never created again).
 */
const appSettingSchema = new Schema(
  {
    _id: { type: String, required: true },
    value: { type: Schema.Types.Mixed, default: null },
  },
  { timestamps: true, minimize: false, versionKey: false },
);

/** The marker written when an admin deletes the demo organization: { removedAt, removedBy, organizationId, organizationName }. */
export const DEMO_ORGANIZATION_REMOVED = 'demo-organization';

export interface DemoRemoved {
  removedAt: Date;
  /** The admin's email. */
  removedBy: string;
  organizationId: string;
  organizationName: string;
}

export const AppSetting = mongoose.model('AppSetting', appSettingSchema);

/** The setting's value, or null when it was never set. */
export async function getAppSetting<T = unknown>(name: string): Promise<T | null> {
  const doc = await AppSetting.findById(name).lean<{ value?: T }>();
  return doc ? (doc.value ?? null) : null;
}

/** Sets (or replaces) the setting's value. */
export async function setAppSetting(name: string, value: unknown): Promise<void> {
  await AppSetting.updateOne({ _id: name }, { $set: { value } }, { upsert: true });
}

/** Sets the value only when the setting is not there yet (a marker keeps its first value); true when this call set it. */
export async function setAppSettingOnce(name: string, value: unknown): Promise<boolean> {
  const res = await AppSetting.updateOne({ _id: name }, { $setOnInsert: { value } }, { upsert: true });
  return res.upsertedCount === 1;
}
