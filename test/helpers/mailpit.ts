// Reads mail back from the Mailpit that `npm test` starts (scripts/test.mjs): a test's stack sends
// to it with startStack(mailpitConfig()), and these read the messages through Mailpit's HTTP API
// (GET /api/v1/search, GET /api/v1/message/ID), as a user's mail client would see them.

export interface MailpitMail {
  id: string;
  from: string;
  to: string[];
  subject: string;
  /** The plain-text body, decoded. */
  text: string;
  replyTo: string[];
  /** When Mailpit received it. */
  created: string;
}

interface Address {
  Name: string;
  Address: string;
}

function apiUrl(): string {
  const url = process.env.MAILPIT_API_URL;
  if (!url) throw new Error('MAILPIT_API_URL is not set: run tests through `npm test` (scripts/test.mjs), which starts Mailpit.');
  return url.replace(/\/+$/, '');
}

/** The overrides that send a test stack's mail to the shared Mailpit. */
export function mailpitConfig(): { SMTP_URL: string } {
  const smtp = process.env.MAILPIT_SMTP_URL;
  if (!smtp) throw new Error('MAILPIT_SMTP_URL is not set: run tests through `npm test` (scripts/test.mjs), which starts Mailpit.');
  return { SMTP_URL: smtp };
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`${apiUrl()}${path}`);
  if (!res.ok) throw new Error(`Mailpit GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Every mail addressed to `to` (oldest first), with its text body. */
export async function mailsTo(to: string): Promise<MailpitMail[]> {
  const found = await getJson<{ messages: { ID: string; Created: string }[] }>(`/api/v1/search?limit=500&query=${encodeURIComponent(`to:"${to}"`)}`);
  const ids = [...found.messages].sort((a, b) => a.Created.localeCompare(b.Created)).map((m) => m.ID);
  const out: MailpitMail[] = [];
  for (const id of ids) {
    const m = await getJson<{ ID: string; From: Address; To: Address[]; ReplyTo: Address[] | null; Subject: string; Text: string; Date: string }>(`/api/v1/message/${id}`);
    // The search matches on words; keep only the exact recipient.
    if (!m.To.some((a) => a.Address.toLowerCase() === to.toLowerCase())) continue;
    out.push({ id: m.ID, from: m.From.Address, to: m.To.map((a) => a.Address), subject: m.Subject, text: m.Text, replyTo: (m.ReplyTo ?? []).map((a) => a.Address), created: m.Date });
  }
  return out;
}

/**
 * Waits until `count` mails addressed to `to` have arrived (SMTP delivery is asynchronous to the
 * sender's answer), then answers them; fails naming what arrived when they don't within `timeoutMs`.
 */
export async function waitForMails(to: string, count: number, timeoutMs = 15000): Promise<MailpitMail[]> {
  const deadline = Date.now() + timeoutMs;
  let mails: MailpitMail[] = [];
  while (Date.now() < deadline) {
    mails = await mailsTo(to);
    if (mails.length >= count) return mails;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`expected ${count} mail(s) to ${to} in Mailpit within ${timeoutMs} ms; got ${mails.length}: ${JSON.stringify(mails.map((m) => m.subject))}`);
}

/** A mail's attachments as Mailpit holds them (GET /api/v1/message/ID, then each part's bytes). */
export async function mailAttachments(id: string): Promise<{ fileName: string; contentType: string; content: Buffer }[]> {
  const m = await getJson<{ Attachments: { PartID: string; FileName: string; ContentType: string }[] }>(`/api/v1/message/${id}`);
  const out: { fileName: string; contentType: string; content: Buffer }[] = [];
  for (const a of m.Attachments ?? []) {
    const res = await fetch(`${apiUrl()}/api/v1/message/${id}/part/${a.PartID}`);
    if (!res.ok) throw new Error(`Mailpit part ${a.PartID} of ${id} answered ${res.status}`);
    out.push({ fileName: a.FileName, contentType: a.ContentType, content: Buffer.from(await res.arrayBuffer()) });
  }
  return out;
}
