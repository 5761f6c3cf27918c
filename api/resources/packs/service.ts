// Report packs (issue 34): kept in MongoDB (common/models/report-pack.ts), checked against the
// organization's statements, custom reports and users; sends started as Temporal workflows
// (workflows/packs.ts), now, when a month is locked (consolidation's lock route calls
// sendLockedPacks) or on the Nth working day (a Temporal schedule per pack).
import { randomUUID } from 'node:crypto';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import mongoose from 'mongoose';
import type { Config } from '../../../common/config';
import { logger } from '../../../common/logger';
import { ReportPack, ReportPackSend, type ReportPackDoc, type ReportPackSendDoc } from '../../../common/models/report-pack';
import { User } from '../../../common/models/user';
import { STATEMENT_TITLES, STATEMENTS } from '../../../common/reports/statements';
import { ORGANIZATION_ID, workflowIds } from '../../../common/temporal';
import type { Kysely } from 'kysely';
import { listLayouts } from '../../../warehouse/reports/store';
import { itemTitle, type PackItem } from '../../../warehouse/reports/pack';
import { packScheduleWorkflow, packSendWorkflow } from '../../../workflows/packs';
import { ApiError } from '../../lib/errors';
import { workflowStart } from '../../lib/temporal';
import type { PackBody } from './schemas';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

/** The organization's users, by name (what a recipient is picked among). */
export async function orgUsers(orgId: string): Promise<{ id: string; name: string; email: string }[]> {
  const users = await User.find({ organization_id: new mongoose.Types.ObjectId(orgId) }, { fullName: 1, email: 1 }).sort({ fullName: 1, email: 1 }).lean();
  return users.map((u) => ({ id: String(u._id), name: u.fullName || u.email, email: u.email }));
}

/** What a pack may hold: every built-in statement (the list in common/reports/statements.ts) and the custom reports. */
export async function packOptions(db: Db, orgId: string) {
  const custom = await listLayouts(db);
  return {
    statements: STATEMENTS.map((s) => ({ ref: s, title: STATEMENT_TITLES[s] })),
    custom: custom.map((c) => ({ id: c.id, name: c.name })),
    users: await orgUsers(orgId),
  };
}

/** The body's problems, named (400, nothing saved): unknown statements or custom reports, recipients who are not users of the organization. */
export async function checkPack(db: Db, orgId: string, body: PackBody): Promise<void> {
  const problems: string[] = [];
  const custom = new Set((await listLayouts(db)).map((c) => c.id));
  for (const item of body.items) {
    if (item.kind === 'statement' && !(STATEMENTS as readonly string[]).includes(item.ref)) problems.push(`unknown statement "${item.ref}" (one of ${STATEMENTS.join(', ')})`);
    if (item.kind === 'custom' && !custom.has(item.ref)) problems.push(`unknown custom report "${item.ref}"`);
  }
  const users = new Set((await orgUsers(orgId)).map((u) => u.id));
  const outsiders = body.recipients.filter((r) => !users.has(r));
  if (outsiders.length) problems.push(`recipients must be users of the organization: ${outsiders.join(', ')} ${outsiders.length === 1 ? 'is' : 'are'} not`);
  if (problems.length) throw new ApiError(400, `The pack cannot be saved: ${problems.join('; ')}`);
}

export type SendAnswer = ReturnType<typeof sendAnswer>;
export const sendAnswer = (s: ReportPackSendDoc) => ({
  id: String(s._id),
  key: s.key,
  trigger: s.trigger,
  requestedBy: s.requestedBy,
  period: s.period ?? null,
  recipients: s.recipients,
  status: s.status,
  attempts: s.attempts,
  error: s.error ?? null,
  pages: s.pages ?? null,
  startedAt: s.startedAt.toISOString(),
  finishedAt: s.finishedAt ? s.finishedAt.toISOString() : null,
});

/** A pack as the api answers it: items and recipients by name, its last send. */
export async function packAnswer(p: ReportPackDoc, customNames: Map<string, string>, users: Map<string, { name: string; email: string }>) {
  const last = await ReportPackSend.findOne({ pack_id: p._id }).sort({ startedAt: -1 }).lean();
  return {
    id: String(p._id),
    name: p.name,
    items: p.items.map((i) => ({ kind: i.kind as PackItem['kind'], ref: i.ref, title: itemTitle(i as PackItem, customNames) })),
    range: p.range,
    period: p.period ?? null,
    parentheses: p.parentheses ?? true,
    recipients: p.recipients.map((r) => ({ id: String(r), name: users.get(String(r))?.name ?? 'A user no longer in the organization', email: users.get(String(r))?.email ?? null })),
    schedule: { kind: p.schedule?.kind ?? 'none', day: p.schedule?.day ?? null },
    createdBy: p.createdBy,
    updatedBy: p.updatedBy,
    updatedAt: p.updatedAt.toISOString(),
    lastSend: last ? sendAnswer(last) : null,
  };
}

export async function packAnswers(db: Db, orgId: string, packs: ReportPackDoc[]) {
  const customNames = new Map((await listLayouts(db)).map((c) => [c.id, c.name]));
  const users = new Map((await orgUsers(orgId)).map((u) => [u.id, u]));
  return Promise.all(packs.map((p) => packAnswer(p, customNames, users)));
}

// --- Temporal ---------------------------------------------------------------------------------

/** Starts one send (a workflow per key); answers its key and workflow id. A key started before is not started again. */
export async function startSend(client: Client, cfg: Config, input: { orgId: string; packId: string; trigger: 'now' | 'locked'; key?: string; period?: string; requestedBy: string }) {
  const key = input.key ?? `now-${randomUUID().slice(0, 12)}`;
  const workflowId = workflowIds.packSend(input.packId, key);
  try {
    await client.workflow.start(packSendWorkflow, {
      ...workflowStart(cfg, workflowId, input.orgId, 'fail'),
      // The same trigger never runs twice, not even after the first one finished.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ orgId: input.orgId, packId: input.packId, trigger: input.trigger, key, period: input.period, requestedBy: input.requestedBy }],
    });
    return { key, workflowId, started: true };
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return { key, workflowId, started: false };
    throw e;
  }
}

/**
 * A month was locked: every pack of the organization scheduled "when the month is locked" sends
 * that month's pack once (key locked-<month>; a second lock of the same month, after an unlock,
 * starts nothing). The lock stands whatever happens here: a failure to start is logged.
 */
export async function sendLockedPacks(client: Client, cfg: Config, orgId: string, period: string, who: string): Promise<void> {
  const packs = await ReportPack.find({ organization_id: orgId, 'schedule.kind': 'locked' }, { _id: 1 }).lean();
  for (const p of packs) {
    try {
      await startSend(client, cfg, { orgId, packId: String(p._id), trigger: 'locked', key: `locked-${period}`, period, requestedBy: who });
    } catch (err) {
      logger.error({ err, orgId, packId: String(p._id), period }, 'report pack send on lock not started');
    }
  }
}

const scheduleId = (packId: string) => workflowIds.packSchedule(packId);

/** The pack's Temporal schedule: every day at 06:00 UTC for a working-day pack (the workflow sends on the Nth working day), none otherwise. */
export async function syncPackSchedule(client: Client, cfg: Config, orgId: string, pack: { id: string; schedule: { kind: string; day: number | null } }): Promise<void> {
  if (pack.schedule.kind !== 'working-day') return deletePackSchedule(client, pack.id);
  const attrs = new TypedSearchAttributes([{ key: ORGANIZATION_ID, value: orgId }]);
  const action = { type: 'startWorkflow' as const, workflowType: packScheduleWorkflow, workflowId: scheduleId(pack.id), args: [{ orgId, packId: pack.id }] as [{ orgId: string; packId: string }], taskQueue: cfg.TEMPORAL_TASK_QUEUE, typedSearchAttributes: attrs };
  const spec = { calendars: [{ hour: 6, minute: 0, comment: `daily: the pack goes out on working day ${pack.schedule.day} of the month` }] };
  try {
    await client.schedule.create({ scheduleId: scheduleId(pack.id), spec, action, policies: { overlap: 'SKIP', catchupWindow: '1 day' }, typedSearchAttributes: attrs });
  } catch (e) {
    if (!(e instanceof ScheduleAlreadyRunning)) throw e;
    await client.schedule.getHandle(scheduleId(pack.id)).update((prev) => ({ ...prev, spec, action }));
  }
}

export async function deletePackSchedule(client: Client, packId: string): Promise<void> {
  try {
    await client.schedule.getHandle(scheduleId(packId)).delete();
  } catch (e) {
    if (!(e instanceof ScheduleNotFoundError)) throw e;
  }
}
