// The api's outgoing mail: common/mail.ts (shared with the worker, which sends the alerts).
export { mailerFor, outboxDir, type Mailer, type MailMessage, type MailResult } from '../../common/mail';
