// Contact-us: stored, then the admins are notified by mail (outbox on the local default).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../api/app';
import { outboxDir } from '../api/lib/mail';
import { ContactInquiry } from '../common/models/contact';
import { Organization } from '../common/models/organization';
import { messages } from '../common/validation';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';

let stack: TestStack;
let token: string;
let orgId: string;
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@contact.example.com`;

beforeAll(async () => {
  stack = await startStack({ ADMIN_NOTIFY_EMAIL: addr('ops'), CONTACT_MAX_PER_IP: '3', TRUST_PROXY: 'loopback' });
  orgId = String((await Organization.create({ organizationName: `Contact Org ${run}` }))._id);
  ({ token } = await userWithToken(stack.app, { email: addr('asker'), fullName: 'Curious George', organization_id: orgId }));
});
afterAll(() => stack.stop());

function mailsTo(to: string): string[] {
  const dir = outboxDir(stack.config);
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
  } catch {
    return [];
  }
  return files
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .filter((raw) => raw.slice(0, raw.indexOf('\n\n')).includes(`To: ${to}`))
    .map((raw) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))));
}

const send = (body: object, t: string | null = token, app = stack.app) => {
  const req = request(app).post('/api/v1/contact-us');
  return (t ? req.set('Authorization', `Bearer ${t}`) : req).send(body);
};

describe('POST /api/v1/contact-us', () => {
  it('stores the inquiry (name and email default to the user) and mails ADMIN_NOTIFY_EMAIL', async () => {
    const res = await send({ subject: 'Pricing', message: 'How much for 3 entities?', phone: '555 222 3333' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: true, data: { notified: true, inquiry: { name: 'Curious George', email: addr('asker'), subject: 'Pricing' } } });
    const saved = await ContactInquiry.findById(res.body.data.inquiry.id).lean();
    expect(saved).toMatchObject({ message: 'How much for 3 entities?', phoneNumber: '5552223333', email: addr('asker') });
    expect(String(saved!.organization_id)).toBe(orgId);
    expect(saved!.notifiedAt).toBeInstanceOf(Date);
    const mails = mailsTo(addr('ops'));
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('Subject: Contact inquiry: Pricing');
    expect(mails[0]).toMatch(new RegExp(`^Reply-To: ${addr('asker').replace(/\./g, '\\.')}`, 'm'));
    expect(mails[0]).toContain('How much for 3 entities?');
  });

  it('falls back to ADMIN_EMAIL, and keeps the inquiry when the mail cannot go out', async () => {
    const fallback = createApp({ ...stack.deps, config: { ...stack.config, ADMIN_NOTIFY_EMAIL: undefined, ADMIN_EMAIL: addr('root') } });
    expect((await send({ name: 'Other Person', email: addr('other'), message: 'Hello' }, token, fallback)).status).toBe(201);
    expect(mailsTo(addr('root'))).toHaveLength(1);

    // SMTP on a port where nothing listens: the answer still succeeds, the inquiry is kept.
    const broken = createApp({ ...stack.deps, config: { ...stack.config, SMTP_URL: 'smtp://127.0.0.1:9/' } });
    const res = await send({ message: 'Mail is down' }, token, broken);
    expect(res.status).toBe(201);
    expect(res.body.data.notified).toBe(false);
    expect(await ContactInquiry.findById(res.body.data.inquiry.id).lean()).toMatchObject({ message: 'Mail is down', notifiedAt: null });
  });

  const bad: [string, object, string][] = [
    ['no message', { message: undefined }, messages.contactMessage],
    ['blank message', { message: '   ' }, messages.contactMessage],
    ['message too long', { message: 'm'.repeat(5001) }, messages.contactMessage],
    ['name with digits', { name: 'R2D2' }, messages.name],
    ['bad email', { email: 'george@zoo' }, messages.email],
    ['bad phone', { phoneNumber: '12' }, messages.phoneDigits],
    ['phone with letters', { phoneNumber: 'x' }, messages.phoneFormat],
    ['subject with a line break', { subject: 'Hi\nBcc: all@example.com' }, messages.subject],
    ['subject too long', { subject: 's'.repeat(201) }, messages.subject],
  ];
  it.each(bad)('rejects %s with 400 and stores nothing', async (_label, change, msg) => {
    const before = await ContactInquiry.countDocuments();
    const res = await send({ name: 'Curious George', email: addr('asker'), message: 'Hi', ...change });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toBe(msg);
    expect(await ContactInquiry.countDocuments()).toBe(before);
  });

  it('takes a visitor without a token (the form is on the public landing page), with name and email', async () => {
    const res = await send({ name: 'Anon Person', email: addr('anon'), message: 'Hi from the landing page' }, null);
    expect(res.status).toBe(201);
    const saved = await ContactInquiry.findById(res.body.data.inquiry.id).lean();
    expect(saved).toMatchObject({ name: 'Anon Person', email: addr('anon'), userId: null, organization_id: null });
    expect(mailsTo(addr('ops')).some((m) => m.includes('Hi from the landing page'))).toBe(true);
    const before = await ContactInquiry.countDocuments();
    expect((await send({ message: 'Who am I?' }, null)).body.errors[0].msg).toBe(messages.nameRequired);
    expect((await send({ name: 'Anon Person', message: 'No email' }, null)).body.errors[0].msg).toBe(messages.emailRequired);
    // A token, when sent, must be valid: never silently anonymous.
    expect((await send({ name: 'Anon Person', email: addr('anon'), message: 'Hi' }, 'garbage')).status).toBe(401);
    expect(await ContactInquiry.countDocuments()).toBe(before);
  });

  it('limits messages per IP and per email (configured: 3 per window)', async () => {
    const from = (ip: string, email: string) => request(stack.app).post('/api/v1/contact-us').set('X-Forwarded-For', ip).send({ name: 'Spam Bot', email, message: 'Buy now' });
    for (let i = 0; i < 3; i++) expect((await from('10.9.0.1', addr(`spam${i}`))).status).toBe(201);
    const blocked = await from('10.9.0.1', addr('spam9'));
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe('Too many messages. Please try again later.');
    for (let i = 0; i < 3; i++) expect((await from(`10.9.1.${i}`, addr('samesender'))).status).toBe(201);
    expect((await from('10.9.1.9', addr('samesender'))).status).toBe(429);
    expect(await ContactInquiry.countDocuments({ email: addr('spam9') })).toBe(0);
  });
});
