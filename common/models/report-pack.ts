// Report packs (issue 34): a named list of built-in statements and custom reports for a month or
// a range, sent by mail (PDF and XLSX attached) to some of the organization's users, now or on a
// schedule. ReportPackSend is each send's history: one record per trigger, its key unique per
// pack, so the same trigger (a month locked again, a schedule fired twice, an activity retried)
// never sends twice (activities/packs, workflows/packs.ts).
import mongoose, { Schema, type InferSchemaType } from 'mongoose';

export const PACK_SCHEDULES = ['none', 'locked', 'working-day'] as const;
export type PackScheduleKind = (typeof PACK_SCHEDULES)[number];
export const PACK_TRIGGERS = ['now', 'locked', 'working-day'] as const;
export type PackTrigger = (typeof PACK_TRIGGERS)[number];
export const PACK_SEND_STATUSES = ['sending', 'retrying', 'sent', 'failed'] as const;
export type PackSendStatus = (typeof PACK_SEND_STATUSES)[number];

const itemSchema = new Schema(
  {
    /** statement: a built-in statement (common/reports/statements.ts STATEMENTS); custom: a custom report's id. */
    kind: { type: String, enum: ['statement', 'custom'], required: true },
    ref: { type: String, required: true },
  },
  { _id: false },
);

const reportPackSchema = new Schema(
  {
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    name: { type: String, required: true },
    items: { type: [itemSchema], default: [] },
    /** month | quarter | ytd | year, ending at `period`, or at the trigger's month when `period` is null. */
    range: { type: String, required: true, default: 'month' },
    period: { type: String, default: null },
    /** Negatives shown in parentheses (else with a minus sign). */
    parentheses: { type: Boolean, default: true },
    recipients: { type: [{ type: Schema.Types.ObjectId, ref: 'User' }], default: [] },
    schedule: {
      kind: { type: String, enum: PACK_SCHEDULES, default: 'none' },
      /** working-day: the Nth working day (Monday to Friday, UTC) of the month. */
      day: { type: Number, default: null },
    },
    createdBy: { type: String, default: '' },
    updatedBy: { type: String, default: '' },
  },
  { timestamps: true },
);

const reportPackSendSchema = new Schema(
  {
    pack_id: { type: Schema.Types.ObjectId, ref: 'ReportPack', required: true },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    /** What the send is for: now-<id>, locked-<YYYY-MM>, working-day-<YYYY-MM>. One send per key. */
    key: { type: String, required: true },
    trigger: { type: String, enum: PACK_TRIGGERS, required: true },
    /** Who asked (send now), or what did (the lock's user, the schedule). */
    requestedBy: { type: String, default: '' },
    /** The month the pack's range ends at. */
    period: { type: String, default: null },
    recipients: { type: [String], default: [] },
    status: { type: String, enum: PACK_SEND_STATUSES, required: true },
    attempts: { type: Number, default: 0 },
    error: { type: String, default: null },
    pages: { type: Number, default: null },
    startedAt: { type: Date, required: true },
    finishedAt: { type: Date, default: null },
  },
  { timestamps: true },
);
reportPackSendSchema.index({ pack_id: 1, key: 1 }, { unique: true });
reportPackSendSchema.index({ pack_id: 1, startedAt: -1 });

export type ReportPackDoc = InferSchemaType<typeof reportPackSchema> & { _id: mongoose.Types.ObjectId; createdAt: Date; updatedAt: Date };
export type ReportPackSendDoc = InferSchemaType<typeof reportPackSendSchema> & { _id: mongoose.Types.ObjectId };

export const ReportPack = mongoose.model('ReportPack', reportPackSchema);
export const ReportPackSend = mongoose.model('ReportPackSend', reportPackSendSchema);
