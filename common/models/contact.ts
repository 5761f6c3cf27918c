import mongoose, { Schema, type InferSchemaType } from 'mongoose';

/** A contact-us inquiry: stored, and the admins are notified by mail. */
const contactSchema = new Schema(
  {
    name: { type: String, required: true, trim: true },
    email: { type: String, required: true, trim: true, lowercase: true },
    phoneNumber: { type: String, default: '' },
    subject: { type: String, default: '' },
    message: { type: String, required: true },
    userId: { type: Schema.Types.ObjectId, ref: 'User', default: null },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', default: null },
    notifiedAt: { type: Date, default: null },
  },
  { timestamps: true },
);

export type ContactInquiryDoc = InferSchemaType<typeof contactSchema> & { _id: mongoose.Types.ObjectId };

export const ContactInquiry = mongoose.model('ContactInquiry', contactSchema);
