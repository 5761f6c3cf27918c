import { apiRequest } from '../../../lib/api-client';

export interface ContactInquiry {
  name: string;
  email: string;
  phone: string;
  subject: string;
  message: string;
}

/** POST /contact-us: stored, and the admins are notified by mail. */
export async function sendContactInquiry(body: ContactInquiry): Promise<string> {
  const payload: Record<string, string> = { name: body.name, email: body.email, message: body.message };
  if (body.phone.trim()) payload.phoneNumber = body.phone;
  if (body.subject.trim()) payload.subject = body.subject;
  const res = await apiRequest('POST', '/contact-us', payload, 'Failed to send your message');
  return res.message ?? 'Thank you! We will get back to you soon.';
}
