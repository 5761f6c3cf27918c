// Contact-us: the inquiry is stored first, then the admins are notified by mail.
import type { Config } from '../../../common/config';
import { logger } from '../../../common/logger';
import { ContactInquiry } from '../../../common/models/contact';
import type { UserDoc } from '../../../common/models/user';
import { mailerFor } from '../../lib/mail';

export interface ContactInput {
  name: string;
  email: string;
  phoneNumber?: string;
  subject?: string;
  message: string;
}

export async function createInquiry(cfg: Config, actor: UserDoc | null, input: ContactInput) {
  const doc = await ContactInquiry.create({
    ...input,
    phoneNumber: input.phoneNumber ?? '',
    subject: input.subject ?? '',
    userId: actor?._id ?? null,
    organization_id: actor?.organization_id ?? null,
  });
  const to = cfg.ADMIN_NOTIFY_EMAIL ?? cfg.ADMIN_EMAIL;
  let notified = false;
  try {
    await mailerFor(cfg).send({
      to,
      replyTo: input.email,
      subject: `Contact inquiry: ${input.subject || `from ${input.name}`}`.slice(0, 200),
      text: [
        `From: ${input.name} <${input.email}>`,
        ...(input.phoneNumber ? [`Phone: ${input.phoneNumber}`] : []),
        ...(actor ? [`Signed-in user: ${actor.email} (${actor.role})`] : []),
        '',
        input.message,
      ].join('\n'),
    });
    notified = true;
    await ContactInquiry.updateOne({ _id: doc._id }, { $set: { notifiedAt: new Date() } });
  } catch (err) {
    // The inquiry is kept either way; the admins find it in the database.
    logger.error({ err, inquiryId: String(doc._id) }, 'contact notification mail failed');
  }
  return { inquiry: { id: String(doc._id), name: doc.name, email: doc.email, subject: doc.subject, createdAt: doc.createdAt }, notified };
}
