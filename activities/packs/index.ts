// Report packs' sends (issue 34; workflows/packs.ts): the pack's reports computed from the
// organization's database as the api answers them, rendered as one PDF and one XLSX
// (warehouse/reports/pack.ts) and mailed to its recipients through common/mail.ts, each send
// recorded in the pack's history (common/models/report-pack.ts ReportPackSend). A send's key is
// unique per pack (now-<id>, locked-<month>, working-day-<month>): a trigger that comes again (a
// month locked again, a retried activity after the mail went out) finds its record sent and
// sends nothing more.
import { PassThrough } from 'node:stream';
import mongoose from 'mongoose';
import type { Config } from '../../common/config';
import { fail } from '../../common/failures';
import { logger } from '../../common/logger';
import { mailerFor } from '../../common/mail';
import { Organization } from '../../common/models/organization';
import { ReportPack, ReportPackSend, type PackTrigger } from '../../common/models/report-pack';
import { User } from '../../common/models/user';
import { addMonths, monthLabel, RANGES, type RangeKind } from '../../common/reports/periods';
import { resolveOrgConnection, withOrgDatabase } from '../../warehouse/connection';
import { readingAsProvisioned } from '../../warehouse/org-schema';
import { dayLabel, latestConsolidatedMonth, PackError, packFileName } from '../../warehouse/reports/pack';
import { openPackRender } from '../../warehouse/reports/pack-thread';

export interface PackSendInput {
  orgId: string;
  packId: string;
  trigger: PackTrigger;
  /** The send's key (unique per pack): now-<id>, locked-<YYYY-MM>, working-day-<YYYY-MM>. */
  key: string;
  /** The month the range ends at when the pack names none: the locked month; else the latest consolidated one. */
  period?: string;
  requestedBy: string;
}

export interface PackSendOutput {
  status: 'sent' | 'skipped';
  /** Why nothing was sent (already sent for this key, the pack deleted, ...). */
  reason?: string;
  recipients?: string[];
  pages?: number;
}

const PDF = 'application/pdf';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const isDuplicateKey = (e: unknown) => (e as { code?: number })?.code === 11000;

/** The Nth working day (Monday to Friday, UTC) of a month, as YYYY-MM-DD. */
export function nthWorkingDay(month: string, n: number): string {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7)) - 1;
  let count = 0;
  for (let d = 1; d <= 31; d += 1) {
    const day = new Date(Date.UTC(y, m, d));
    if (day.getUTCMonth() !== m) break;
    const wd = day.getUTCDay();
    if (wd !== 0 && wd !== 6) count += 1;
    if (count === n) return day.toISOString().slice(0, 10);
  }
  // A month has at least 20 working days; the api accepts 1-20.
  return new Date(Date.UTC(y, m + 1, 0)).toISOString().slice(0, 10);
}

export function createPackActivities({ config }: { config: Config }) {
  /** The send's record: made on the first attempt, its attempts counted; answers it as it was. */
  async function claim(input: PackSendInput) {
    const base = { pack_id: input.packId, organization_id: input.orgId, key: input.key, trigger: input.trigger, requestedBy: input.requestedBy, period: input.period ?? null, status: 'sending', startedAt: new Date() };
    try {
      const before = await ReportPackSend.findOneAndUpdate({ pack_id: input.packId, key: input.key }, { $setOnInsert: base, $inc: { attempts: 1 } }, { upsert: true, new: false }).lean();
      return before;
    } catch (e) {
      if (isDuplicateKey(e)) return ReportPackSend.findOne({ pack_id: input.packId, key: input.key }).lean();
      throw e;
    }
  }

  return {
    /**
     * Renders the pack and mails it: one mail to every recipient with the PDF and the XLSX. A
     * failure to reach the mail server is thrown for Temporal to retry (the record says
     * "retrying" and why); a pack that cannot be made (deleted, nothing consolidated, a custom
     * report gone) fails at once. Nothing is sent when this key's send went out already.
     */
    async sendReportPack(input: PackSendInput): Promise<PackSendOutput> {
      const before = await claim(input);
      if (before?.status === 'sent') return { status: 'skipped', reason: `already sent for ${input.key}` };
      const record = { pack_id: input.packId, key: input.key };
      try {
        const pack = await ReportPack.findOne({ _id: input.packId, organization_id: input.orgId }).lean();
        if (!pack) throw new PackError('The pack was deleted');
        const org = await Organization.findById(input.orgId, { organizationName: 1, onboarding: 1 }).lean();
        const databaseName = (org as { onboarding?: { databaseName?: string } } | null)?.onboarding?.databaseName;
        if (!org || !databaseName) throw new PackError('This organization has no SQL database yet: an admin must onboard it first.');
        const users = await User.find({ _id: { $in: pack.recipients }, organization_id: new mongoose.Types.ObjectId(input.orgId) }, { email: 1 }).lean();
        const recipients = users.map((u) => u.email).filter((e): e is string => !!e);
        if (!recipients.length) throw new PackError('The pack has no recipient among the organization\'s users');
        const range = (RANGES as readonly string[]).includes(pack.range) ? (pack.range as RangeKind) : 'month';
        const period = pack.period ?? input.period ?? (await withOrgDatabase(config, { orgId: input.orgId, databaseName }, async (o) => latestConsolidatedMonth((await readingAsProvisioned(o)).db), { readOnly: true }));
        if (!period) throw new PackError('Nothing is consolidated yet: run the consolidation before sending the pack');
        // The pack is made on a thread of its own (warehouse/reports/pack-thread.ts: the worker's
        // memory stays as it was), which reads the database itself. The first pass: every report
        // computed and laid out, one at a time (the page count and the contents).
        const conn = await resolveOrgConnection(config, { orgId: input.orgId, databaseName });
        const render = await openPackRender({ conn, items: pack.items, range, period, plan: true });
        // Until the files are drawn, any failure here ends the thread too.
        let pages: number;
        try {
          const plan = render.plan!;
          const periodLabel = plan.reports[0]?.rangeLabel ?? monthLabel(period);
          const now = new Date();
          await ReportPackSend.updateOne(record, { $set: { recipients, period } });
          // The files go into the mail as streams: the PDF drawn page by page, then the XLSX sheet by sheet, as the mail takes them.
          const pdf = new PassThrough();
          const book = new PassThrough();
          // Their errors come back through the promises below (a stream ended with one must not be an unhandled 'error').
          for (const stream of [pdf, book]) stream.on('error', () => undefined);
          const sending = mailerFor(config).send({
            to: recipients,
            subject: `${pack.name}: ${periodLabel} (${org.organizationName})`,
            text: [
              `${pack.name} of ${org.organizationName} for ${periodLabel}, prepared ${dayLabel(now)}.`,
              '',
              `Attached: the PDF (${plan.pages} pages) and the XLSX (one sheet per report) of:`,
              ...plan.reports.map((r) => `- ${r.title}`),
              ...(plan.reports.some((r) => r.hasNotices) ? ['', 'The reports carry notices: read them on their pages.'] : []),
            ].join('\n'),
            attachments: [
              { filename: packFileName(pack.name, period, 'pdf'), content: pdf, contentType: PDF },
              { filename: packFileName(pack.name, period, 'xlsx'), content: book, contentType: XLSX },
            ],
          });
          const producing = render.draw({ organization: org.organizationName ?? '', name: pack.name, periodLabel, date: now, parentheses: pack.parentheses ?? true }, { pdf, xlsx: book });
          try {
            await Promise.all([sending, producing]);
          } catch (e) {
            // Whichever side failed, the other stops: the streams are ended with the error.
            const err = e instanceof Error ? e : new Error(String(e));
            render.cancel();
            pdf.destroy(err);
            book.destroy(err);
            // The mail's own failure is the reason (its streams closing only follows from it).
            const [sent] = await Promise.allSettled([sending, producing]);
            throw sent.status === 'rejected' ? sent.reason : e;
          }
          pages = plan.pages;
        } catch (e) {
          render.cancel();
          throw e;
        }
        await ReportPackSend.updateOne(record, { $set: { status: 'sent', error: null, pages, finishedAt: new Date() } });
        logger.info({ orgId: input.orgId, packId: input.packId, key: input.key, recipients: recipients.length, pages }, 'report pack sent');
        return { status: 'sent', recipients, pages };
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        if (e instanceof PackError) {
          await ReportPackSend.updateOne(record, { $set: { status: 'failed', error: message, finishedAt: new Date() } });
          throw fail.validation(message);
        }
        await ReportPackSend.updateOne(record, { $set: { status: 'retrying', error: message } });
        logger.warn({ orgId: input.orgId, packId: input.packId, key: input.key, reason: message }, 'report pack not sent (Temporal retries it)');
        throw e;
      }
    },

    /** The send gave up (its retries spent): its record says failed, and why. */
    async markPackSendFailed(input: { packId: string; key: string; error: string }): Promise<void> {
      await ReportPackSend.updateOne({ pack_id: input.packId, key: input.key, status: { $ne: 'sent' } }, { $set: { status: 'failed', error: input.error, finishedAt: new Date() } });
    },

    /**
     * A working-day schedule's daily tick: whether today (UTC) is the pack's Nth working day, and
     * then the send's key and month (the month before, the one the pack reports on).
     */
    async packWorkingDayDue(input: { packId: string; today: string }): Promise<{ due: false } | { due: true; key: string; period: string }> {
      const pack = await ReportPack.findById(input.packId, { schedule: 1 }).lean();
      if (!pack || pack.schedule?.kind !== 'working-day' || !pack.schedule.day) return { due: false };
      const month = input.today.slice(0, 7);
      if (nthWorkingDay(month, pack.schedule.day) !== input.today) return { due: false };
      return { due: true, key: `working-day-${month}`, period: addMonths(month, -1) };
    },
  };
}
