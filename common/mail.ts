// Outgoing mail: the api's password resets, invitations and contact notices, and the worker's
// alerts and report packs (with their PDF and XLSX attached). With SMTP_URL (npm start sets it to its local Mailpit), nodemailer's SMTP transport
// sends it; without, each mail is rendered as a real RFC 822 message into DATA_DIR/outbox/*.eml
// and the file's path is logged (never its content: reset links carry tokens).
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import nodemailer from 'nodemailer';
import type { Config } from './config';
import { logger } from './logger';

export interface MailAttachment {
  filename: string;
  /** The file, or a stream of it (read as the mail is sent: a report pack's files are drawn into it). */
  content: Buffer | Readable;
  contentType: string;
}

export interface MailMessage {
  /** One address, or several (one mail to all of them). */
  to: string | string[];
  subject: string;
  text: string;
  replyTo?: string;
  /** Files sent with the mail (a report pack's PDF and XLSX). */
  attachments?: MailAttachment[];
}

export interface MailResult {
  via: 'smtp' | 'outbox';
  /** The outbox file, when written there. */
  path?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<MailResult>;
}

export function outboxDir(cfg: Config): string {
  return join(cfg.DATA_DIR, 'outbox');
}

const mailers = new WeakMap<Config, Mailer>();

/** One mailer per configuration (so one SMTP transport per process). */
export function mailerFor(cfg: Config): Mailer {
  let mailer = mailers.get(cfg);
  if (!mailer) {
    mailer = cfg.SMTP_URL ? smtpMailer(cfg, cfg.SMTP_URL) : outboxMailer(cfg);
    mailers.set(cfg, mailer);
  }
  return mailer;
}

function smtpMailer(cfg: Config, url: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(m) {
      await transport.sendMail({ from: cfg.MAIL_FROM, to: m.to, subject: m.subject, text: m.text, replyTo: m.replyTo, attachments: m.attachments });
      logger.info({ to: m.to, subject: m.subject }, 'mail sent through SMTP');
      return { via: 'smtp' };
    },
  };
}

function outboxMailer(cfg: Config): Mailer {
  const render = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(m) {
      const info = await render.sendMail({ from: cfg.MAIL_FROM, to: m.to, subject: m.subject, text: m.text, replyTo: m.replyTo, attachments: m.attachments });
      const dir = outboxDir(cfg);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const path = join(dir, `${stamp}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(path, info.message as Buffer, { mode: 0o600 });
      logger.info({ to: m.to, subject: m.subject, path }, 'mail written to the outbox (SMTP_URL is not set)');
      return { via: 'outbox', path };
    },
  };
}
