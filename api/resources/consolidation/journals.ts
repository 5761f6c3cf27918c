// Consolidation journals through the api (issue 29, section 1): book (draft), edit or delete a
// draft, submit (posts, or waits for approval under the two-person rule), approve or reject,
// reverse a posted journal; list them, export and import them as CSV, and the mismatch report's
// "book an adjustment" draft. Every change is checked whole first (common/consolidation/journals.ts
// checkJournal, the month locks) and written with its audit row in one transaction: a refused
// change changes nothing. Posted journals are never edited, only reversed.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Router } from 'express';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { formatFixed, fromStored, PRESENTATION_SCALE } from '../../../common/consolidation/decimal';
import { differenceAccount } from '../../../common/consolidation/counterparty';
import { IC_CATEGORIES, type IcCategory } from '../../../common/consolidation/types';
import { checkJournal, journalScale, JOURNAL_KINDS, JOURNAL_LEVELS, JOURNAL_STATUSES, resolveAccount, type JournalContext, type JournalInput, type JournalStatus } from '../../../common/consolidation/journals';
import { journalAnswerSchema, journalListSchema, journalPrefillSchema } from '../../../common/contract/journals';
import type { OrgDatabase, OrgDialect } from '../../../warehouse/connection';
import { deleteJournal, readJournal, readJournals, updateJournalHead, writeJournals, type StoredJournal } from '../../../warehouse/consolidation/journals';
import { readChart, readEntities, readSettings, writeAudit } from '../../../warehouse/consolidation/store';
import { ApiError } from '../../lib/errors';
import { orgIdSchema } from '../../lib/organization';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { validate } from '../../lib/validate';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;
export interface Who {
  userId?: string;
  name?: string;
}

// --- request schemas ------------------------------------------------------------------------------
const PERIOD_RE = /^\d{4}-(0[1-9]|1[0-2])$/;
const period = z.string().regex(PERIOD_RE, 'A month is YYYY-MM');
const key = z.string().trim().min(1).max(200, 'An entity or account has at most 200 characters');
const amountText = z
  .union([z.string(), z.number()])
  .transform((v) => String(v).trim())
  .pipe(z.string().max(40, 'An amount has at most 40 characters'));
/** The most journals a CSV import (or lines a journal) takes. */
export const MAX_JOURNAL_LINES = 1000;
export const MAX_IMPORT_ROWS = 20_000;

export const journalLineSchema = z.object({
  account: z.string({ required_error: 'Each line needs its account' }).trim().max(200, 'An account has at most 200 characters'),
  counterparty: key.nullable().optional(),
  debit: amountText.default(''),
  credit: amountText.default(''),
  memo: z.string().trim().max(400, 'A memo has at most 400 characters').nullable().optional(),
});
export const journalBody = z.object({
  reference: z.string({ required_error: 'A journal needs its reference' }).trim().min(1, 'A journal needs its reference').max(60, 'A reference has at most 60 characters'),
  period,
  level: z.enum(JOURNAL_LEVELS, { errorMap: () => ({ message: 'The level is entity (in the entity\'s currency, before translation) or group (in the presentation currency)' }) }),
  entity: key.nullable().optional(),
  kind: z.enum(JOURNAL_KINDS, { errorMap: () => ({ message: 'The kind is one_off, recurring or reversing (auto-reversing next month)' }) }).default('one_off'),
  recurringTo: period.nullable().optional(),
  memo: z.string().trim().max(400, 'A memo has at most 400 characters').nullable().optional(),
  origin: z.string().trim().max(200).nullable().optional(),
  lines: z.array(journalLineSchema).min(1, 'A journal needs at least two lines').max(MAX_JOURNAL_LINES, `A journal has at most ${MAX_JOURNAL_LINES} lines`),
});
export const journalParams = z.object({ orgId: orgIdSchema, id: z.string().trim().min(1).max(200) });
export const journalsQuery = z.object({ period: period.optional(), status: z.enum(JOURNAL_STATUSES).optional() });
export const reverseBody = z.object({ period: period.optional() });
export const prefillQuery = z.object({ period, entityA: key, entityB: key, category: z.enum(['receivable_payable', 'revenue_expense', 'loan', 'investment_equity']) });
const orgParams = z.object({ orgId: orgIdSchema });

// --- helpers --------------------------------------------------------------------------------------
function refuse(problems: string[], what: string, status = 400): never {
  const shown = problems.slice(0, 10);
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : '';
  throw new ApiError(status, `${what}: ${shown.join('; ')}${more}`);
}
const now = () => new Date().toISOString();

async function context(db: Db): Promise<JournalContext & { approvalRequired: boolean }> {
  const [settings, chart, entities, mappings] = await Promise.all([
    readSettings(db),
    readChart(db),
    readEntities(db),
    db.selectFrom('group_account_mappings').select(['entity', 'source_account', 'group_account']).execute() as Promise<{ entity: string; source_account: string; group_account: string }[]>,
  ]);
  const byEntity = new Map<string, Map<string, string>>();
  for (const m of mappings) {
    if (!byEntity.has(m.entity)) byEntity.set(m.entity, new Map());
    byEntity.get(m.entity)!.set(m.source_account, m.group_account);
  }
  return {
    accounts: new Map(chart.map((a) => [a.code, a])),
    entities: new Map(entities.map((e) => [e.entity, { name: e.name, currency: e.currency }])),
    mappings: byEntity,
    presentationCurrency: settings.presentationCurrency,
    approvalRequired: !!settings.journalApproval,
  };
}

/**
 * The month locks a journal meets: its own month, or any later one (its balances carry into
 * every later month, so a lock from its month on would be changed under it). Empty: none.
 */
async function lockFaults(db: Db, j: { reference: string; period: string }): Promise<string[]> {
  const locks = (await db.selectFrom('consolidation_period_locks').select('period').where('period', '>=', j.period).orderBy('period').execute()) as { period: string }[];
  if (!locks.length) return [];
  const first = locks[0]!.period;
  if (first === j.period) return [`${j.period} is locked: unlock it to book in it`];
  return [`${first} is locked, and a journal of ${j.period} would change it (a journal's balances carry into later months): unlock ${first} or book in a later month`];
}

function stored(input: JournalInput, lines: StoredJournal['lines'], who: Who, id: string = randomUUID()): StoredJournal {
  return {
    id,
    reference: input.reference.trim(),
    period: input.period,
    level: input.level,
    entity: input.level === 'entity' ? (input.entity ?? null) : null,
    kind: input.kind,
    recurringTo: input.kind === 'recurring' ? (input.recurringTo ?? null) : null,
    status: 'draft',
    memo: input.memo?.trim() || null,
    origin: (input as { origin?: string | null }).origin?.trim() || null,
    reversalOf: null,
    reversedBy: null,
    authorId: who.userId ?? null,
    authorName: who.name ?? null,
    createdAt: now(),
    submittedAt: null,
    approverId: null,
    approverName: null,
    postedAt: null,
    reversedAt: null,
    updatedBy: who.name ?? null,
    updatedAt: now(),
    lines,
  };
}

/** A journal's faults (checks, reference taken by another journal, locks): refused with all of them. */
async function checkOrRefuse(db: Db, ctx: JournalContext, input: JournalInput, what: string, selfId?: string): Promise<StoredJournal['lines']> {
  const { problems, lines } = checkJournal(input, ctx);
  const taken = (await db.selectFrom('consolidation_journals').select(['id', 'period']).where('reference', '=', input.reference.trim()).execute()) as { id: string; period: string }[];
  if (taken.some((t) => t.id !== selfId)) problems.push(`The reference "${input.reference.trim()}" is already used by another journal`);
  if (PERIOD_RE.test(input.period)) problems.push(...(await lockFaults(db, input)));
  if (problems.length) refuse(problems, what);
  return lines;
}

/** A stored journal as the api answers it: amounts as decimal text, names beside keys. */
function answer(j: StoredJournal, ctx: JournalContext) {
  const scale = journalScale(j.level);
  let debit = 0n;
  let credit = 0n;
  for (const l of j.lines) {
    debit += l.debit;
    credit += l.credit;
  }
  const entityName = j.entity ? (ctx.entities.get(j.entity)?.name ?? j.entity) : null;
  return {
    id: j.id,
    reference: j.reference,
    period: j.period,
    level: j.level,
    entity: j.entity,
    entityName,
    currency: j.level === 'entity' ? (j.entity ? (ctx.entities.get(j.entity)?.currency ?? null) : null) : ctx.presentationCurrency,
    kind: j.kind,
    recurringTo: j.recurringTo,
    status: j.status,
    memo: j.memo,
    origin: j.origin,
    reversalOf: j.reversalOf,
    reversedBy: j.reversedBy,
    authorId: j.authorId,
    author: j.authorName,
    approver: j.approverName,
    createdAt: j.createdAt,
    submittedAt: j.submittedAt,
    postedAt: j.postedAt,
    reversedAt: j.reversedAt,
    totalDebit: formatFixed(debit, scale),
    totalCredit: formatFixed(credit, scale),
    lines: j.lines.map((l) => {
      const group = resolveAccount(ctx, j.level, j.entity, l.account);
      return { account: l.account, groupAccount: group, accountName: group ? (ctx.accounts.get(group)?.name ?? null) : null, counterparty: l.counterparty, counterpartyName: l.counterparty ? (ctx.entities.get(l.counterparty)?.name ?? l.counterparty) : null, debit: formatFixed(l.debit, scale), credit: formatFixed(l.credit, scale), memo: l.memo };
    }),
  };
}

async function mustRead(db: Db, id: string): Promise<StoredJournal> {
  const j = await readJournal(db, id);
  if (!j) throw new ApiError(404, `No journal ${id} in this organization`);
  return j;
}

// --- the service ----------------------------------------------------------------------------------
export async function listJournals(db: Db, q: { period?: string; status?: JournalStatus }) {
  const ctx = await context(db);
  const journals = await readJournals(db, { period: q.period, statuses: q.status ? [q.status] : undefined });
  return { approvalRequired: ctx.approvalRequired, presentationCurrency: ctx.presentationCurrency, journals: journals.map((j) => answer(j, ctx)) };
}

export async function getJournal(db: Db, id: string) {
  const ctx = await context(db);
  return answer(await mustRead(db, id), ctx);
}

export async function createJournal(db: Db, dialect: OrgDialect, who: Who, input: JournalInput) {
  const ctx = await context(db);
  const lines = await checkOrRefuse(db, ctx, input, `Journal ${input.reference.trim()} not saved`);
  const j = stored(input, lines, who);
  await db.transaction().execute(async (trx) => {
    await writeJournals(trx, dialect, [j]);
    await writeAudit(trx, who, 'journal.create', { id: j.id, reference: j.reference, period: j.period, level: j.level, entity: j.entity, kind: j.kind });
  });
  return answer(j, ctx);
}

/** A journal that is not a draft is not changed: posted ones are reversed, pending ones rejected first. */
function editableOrRefuse(j: StoredJournal, what: string): void {
  if (j.status === 'posted' || j.status === 'reversed') throw new ApiError(409, `${what}: journal ${j.reference} is ${j.status}; posted journals are never edited, only reversed`);
  if (j.status === 'pending_approval') throw new ApiError(409, `${what}: journal ${j.reference} is waiting for approval; reject it to edit it`);
}

export async function updateJournal(db: Db, dialect: OrgDialect, who: Who, id: string, input: JournalInput) {
  const current = await mustRead(db, id);
  editableOrRefuse(current, `Journal ${current.reference} not saved`);
  const ctx = await context(db);
  const lines = await checkOrRefuse(db, ctx, input, `Journal ${input.reference.trim()} not saved`, id);
  const j: StoredJournal = { ...stored(input, lines, who, id), authorId: current.authorId, authorName: current.authorName, createdAt: current.createdAt, origin: (input as { origin?: string | null }).origin?.trim() || current.origin };
  await db.transaction().execute(async (trx) => {
    await writeJournals(trx, dialect, [j]);
    await writeAudit(trx, who, 'journal.update', { id, reference: j.reference, period: j.period });
  });
  return answer(j, ctx);
}

export async function removeJournal(db: Db, who: Who, id: string) {
  const j = await mustRead(db, id);
  editableOrRefuse(j, `Journal ${j.reference} not deleted`);
  await db.transaction().execute(async (trx) => {
    await deleteJournal(trx, id);
    // A reversal deleted before it posted: its journal may be reversed again.
    if (j.reversalOf) await trx.updateTable('consolidation_journals').set({ reversed_by: null }).where('id', '=', j.reversalOf).where('reversed_by', '=', id).execute();
    await writeAudit(trx, who, 'journal.delete', { id, reference: j.reference, period: j.period });
  });
}

/** Posts `j` (and marks what it reverses as reversed), in the caller's transaction. */
async function post(trx: Db, j: StoredJournal, fields: Partial<StoredJournal>): Promise<void> {
  const at = now();
  await updateJournalHead(trx, j.id, { status: 'posted', postedAt: at, ...fields });
  if (j.reversalOf) await updateJournalHead(trx, j.reversalOf, { status: 'reversed', reversedAt: at, reversedBy: j.id });
}

/** The journal checked again as it stands (the chart, mappings and locks may have changed since it was saved). */
async function recheck(db: Db, j: StoredJournal, what: string): Promise<JournalContext & { approvalRequired: boolean }> {
  const ctx = await context(db);
  const scale = journalScale(j.level);
  const input: JournalInput = { reference: j.reference, period: j.period, level: j.level, entity: j.entity, kind: j.kind, recurringTo: j.recurringTo, memo: j.memo, lines: j.lines.map((l) => ({ account: l.account, counterparty: l.counterparty, debit: formatFixed(l.debit, scale), credit: formatFixed(l.credit, scale), memo: l.memo })) };
  const { problems } = checkJournal(input, ctx);
  problems.push(...(await lockFaults(db, j)));
  if (problems.length) refuse(problems, what);
  return ctx;
}

export async function submitJournal(db: Db, who: Who, id: string): Promise<{ journal: ReturnType<typeof answer>; message: string }> {
  const j = await mustRead(db, id);
  if (j.status !== 'draft') throw new ApiError(409, `Journal ${j.reference} not submitted: it is ${j.status.replace('_', ' ')}, not a draft`);
  const ctx = await recheck(db, j, `Journal ${j.reference} not submitted`);
  await db.transaction().execute(async (trx) => {
    if (ctx.approvalRequired) await updateJournalHead(trx, id, { status: 'pending_approval', submittedAt: now(), updatedBy: who.name ?? null, updatedAt: now() });
    else await post(trx, j, { submittedAt: now(), updatedBy: who.name ?? null, updatedAt: now() });
    await writeAudit(trx, who, ctx.approvalRequired ? 'journal.submit' : 'journal.post', { id, reference: j.reference, period: j.period });
  });
  const after = answer((await readJournal(db, id))!, ctx);
  return { journal: after, message: ctx.approvalRequired ? `Journal ${j.reference} submitted for approval by another user` : `Journal ${j.reference} posted: run the consolidation to see it in the figures` };
}

export async function approveJournal(db: Db, who: Who, id: string) {
  const j = await mustRead(db, id);
  if (j.status !== 'pending_approval') throw new ApiError(409, `Journal ${j.reference} not approved: it is ${j.status.replace('_', ' ')}, not waiting for approval`);
  if (j.authorId && who.userId === j.authorId) throw new ApiError(403, `Journal ${j.reference} not approved: the two-person rule needs a user other than its author (${j.authorName ?? 'the author'}) to approve it`);
  const ctx = await recheck(db, j, `Journal ${j.reference} not approved`);
  await db.transaction().execute(async (trx) => {
    await post(trx, j, { approverId: who.userId ?? null, approverName: who.name ?? null, updatedBy: who.name ?? null, updatedAt: now() });
    await writeAudit(trx, who, 'journal.approve', { id, reference: j.reference, period: j.period, author: j.authorName });
  });
  return answer((await readJournal(db, id))!, ctx);
}

export async function rejectJournal(db: Db, who: Who, id: string) {
  const j = await mustRead(db, id);
  if (j.status !== 'pending_approval') throw new ApiError(409, `Journal ${j.reference} not rejected: it is ${j.status.replace('_', ' ')}, not waiting for approval`);
  const ctx = await context(db);
  await db.transaction().execute(async (trx) => {
    await updateJournalHead(trx, id, { status: 'draft', submittedAt: null, updatedBy: who.name ?? null, updatedAt: now() });
    await writeAudit(trx, who, 'journal.reject', { id, reference: j.reference, period: j.period });
  });
  return answer((await readJournal(db, id))!, ctx);
}

/**
 * Reverses a posted journal with a reversing journal: the same lines, debits and credits swapped,
 * posted (or waiting for approval under the two-person rule; the original is marked reversed when
 * it posts). A one-off journal may be reversed in a later month (`period`); a recurring or
 * auto-reversing one in its own month only, with the same schedule, so the pair nets to zero in
 * every month.
 */
export async function reverseJournal(db: Db, dialect: OrgDialect, who: Who, id: string, body: { period?: string }) {
  const j = await mustRead(db, id);
  const what = `Journal ${j.reference} not reversed`;
  if (j.status !== 'posted') throw new ApiError(409, `${what}: it is ${j.status.replace('_', ' ')}; only a posted journal is reversed`);
  if (j.reversedBy) throw new ApiError(409, `${what}: its reversal is already booked and waiting for approval`);
  if (j.reversalOf) throw new ApiError(409, `${what}: it is itself a reversal; book a new journal instead`);
  const at = body.period ?? j.period;
  if (at < j.period) refuse([`the reversal's month ${at} is before the journal's (${j.period})`], what);
  if (at !== j.period && j.kind !== 'one_off') refuse([`a ${j.kind === 'recurring' ? 'recurring' : 'auto-reversing'} journal is reversed in its own month (${j.period}), with its schedule`], what);
  const ctx = await context(db);
  let reference = `REV-${j.reference}`.slice(0, 60);
  const taken = new Set(((await db.selectFrom('consolidation_journals').select('reference').where('reference', 'like', `${reference}%`).execute()) as { reference: string }[]).map((r) => r.reference));
  for (let n = 2; taken.has(reference); n++) reference = `REV-${j.reference}-${n}`.slice(0, 60);
  const faults = await lockFaults(db, { reference, period: at });
  if (faults.length) refuse(faults, what);
  const rev: StoredJournal = {
    ...stored({ reference, period: at, level: j.level, entity: j.entity, kind: j.kind, recurringTo: j.recurringTo, memo: `Reversal of ${j.reference}${j.memo ? `: ${j.memo}` : ''}`, lines: [] }, j.lines.map((l) => ({ ...l, debit: l.credit, credit: l.debit })), who),
    reversalOf: j.id,
    submittedAt: now(),
    status: ctx.approvalRequired ? 'pending_approval' : 'draft',
  };
  await db.transaction().execute(async (trx) => {
    await writeJournals(trx, dialect, [rev]);
    if (ctx.approvalRequired) await updateJournalHead(trx, j.id, { reversedBy: rev.id });
    else await post(trx, rev, {});
    await writeAudit(trx, who, 'journal.reverse', { id, reference: j.reference, reversal: rev.id, reversalReference: rev.reference, period: at, pendingApproval: ctx.approvalRequired });
  });
  return { reversal: answer((await readJournal(db, rev.id))!, ctx), pending: ctx.approvalRequired };
}

// --- CSV ------------------------------------------------------------------------------------------
const CSV_COLUMNS = ['reference', 'period', 'level', 'entity', 'kind', 'recurring_to', 'status', 'memo', 'account', 'counterparty', 'debit', 'credit', 'line_memo', 'author', 'approver'];

export async function journalsCsv(db: Db, q: { period?: string; status?: JournalStatus }): Promise<string> {
  const journals = await readJournals(db, { period: q.period, statuses: q.status ? [q.status] : undefined });
  const rows = journals.flatMap((j) => {
    const scale = journalScale(j.level);
    return j.lines.map((l) => [j.reference, j.period, j.level, j.entity ?? '', j.kind, j.recurringTo ?? '', j.status, j.memo ?? '', l.account, l.counterparty ?? '', l.debit ? formatFixed(l.debit, scale) : '', l.credit ? formatFixed(l.credit, scale) : '', l.memo ?? '', j.authorName ?? '', j.approverName ?? '']);
  });
  return stringify(rows, { header: true, columns: CSV_COLUMNS });
}

/**
 * Journals from a CSV, one row per line, the lines of a journal sharing its reference (its header
 * fields repeated on each row): every journal checked as the JSON form, and all saved as drafts
 * in one transaction, or none.
 */
export async function importJournals(db: Db, dialect: OrgDialect, who: Who, text: string) {
  const what = 'Journals not imported';
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  } catch (e) {
    throw new ApiError(400, `${what}: the file is not a readable CSV (${String((e as Error).message).split('\n')[0]!.slice(0, 200)})`);
  }
  if (!records.length) throw new ApiError(400, `${what}: the file has no rows`);
  if (records.length > MAX_IMPORT_ROWS) throw new ApiError(400, `${what}: at most ${MAX_IMPORT_ROWS.toLocaleString('en')} rows`);
  const required = ['reference', 'period', 'account', 'debit', 'credit'];
  const missing = required.filter((c) => !(c in records[0]!));
  if (missing.length) throw new ApiError(400, `${what}: the header needs the columns ${required.join(', ')} (missing ${missing.join(', ')})`);
  const problems: string[] = [];
  const groups = new Map<string, { input: Record<string, unknown>; row: number; lines: Record<string, unknown>[] }>();
  records.forEach((r, i) => {
    const ref = r.reference ?? '';
    const head = { reference: ref, period: r.period ?? '', level: (r.level || 'group').toLowerCase(), entity: r.entity || null, kind: (r.kind || 'one_off').toLowerCase(), recurringTo: r.recurring_to || null, memo: r.memo || null };
    const g = groups.get(ref);
    if (!g) groups.set(ref, { input: head, row: i + 1, lines: [] });
    else for (const k of ['period', 'level', 'entity', 'kind', 'recurringTo'] as const) if ((g.input[k] ?? null) !== (head[k] ?? null)) problems.push(`Row ${i + 1}: journal "${ref}" has ${k === 'recurringTo' ? 'recurring_to' : k} "${String(head[k] ?? '')}" here and "${String(g.input[k] ?? '')}" on row ${g.row}`);
    groups.get(ref)!.lines.push({ account: r.account ?? '', counterparty: r.counterparty || null, debit: r.debit ?? '', credit: r.credit ?? '', memo: r.line_memo || null });
  });
  if (problems.length) refuse(problems, what);
  const ctx = await context(db);
  const journals: StoredJournal[] = [];
  const locks = ((await db.selectFrom('consolidation_period_locks').select('period').execute()) as { period: string }[]).map((l) => l.period).sort();
  const refs = new Set(((await db.selectFrom('consolidation_journals').select('reference').execute()) as { reference: string }[]).map((r) => r.reference));
  for (const [ref, g] of groups) {
    const parsed = journalBody.safeParse({ ...g.input, lines: g.lines });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      problems.push(`Journal "${ref}" (row ${g.row}${issue.path.length ? `, ${issue.path.join('.')}` : ''}): ${issue.message}`);
      continue;
    }
    const input = parsed.data as JournalInput;
    const checked = checkJournal(input, ctx);
    for (const p of checked.problems) problems.push(`Journal "${ref}" (row ${g.row}): ${p}`);
    if (refs.has(input.reference)) problems.push(`Journal "${ref}" (row ${g.row}): the reference is already used by another journal`);
    const lock = locks.find((l) => l >= input.period);
    if (lock) problems.push(`Journal "${ref}" (row ${g.row}): ${lock === input.period ? `${lock} is locked` : `${lock} is locked, and a journal of ${input.period} would change it`}`);
    journals.push(stored(input, checked.lines, who));
  }
  if (problems.length) refuse(problems, what);
  await db.transaction().execute(async (trx) => {
    await writeJournals(trx, dialect, journals);
    await writeAudit(trx, who, 'journals.import', { journals: journals.length, lines: records.length });
  });
  return { imported: journals.length };
}

// --- the mismatch report's "book an adjustment" ------------------------------------------------
/**
 * A draft that clears one intercompany difference: the difference moved off the line the run put
 * it on (the intercompany suspense line; revenue/expense pairs: the intercompany differences line)
 * onto an account the user picks (cash in transit, say), auto-reversing next month, when the
 * other side books it. Group level, in the presentation currency.
 */
export async function prefill(db: Db, q: { period: string; entityA: string; entityB: string; category: string }) {
  const m = (await db.selectFrom('consolidation_mismatches').selectAll().where('period', '=', q.period).where('entity_a', '=', q.entityA).where('entity_b', '=', q.entityB).where('category', '=', q.category).executeTakeFirst()) as Record<string, unknown> | undefined;
  if (!m) throw new ApiError(404, `No intercompany difference between ${q.entityA} and ${q.entityB} (${q.category}) in ${q.period}: run the consolidation first`);
  const [chart, entities] = await Promise.all([readChart(db), readEntities(db)]);
  const names = new Map(entities.map((e) => [e.entity, e.name]));
  const diff = fromStored(m.difference as number | string, PRESENTATION_SCALE);
  // The account the run posted this difference to: on the side of its sign (counterparty.ts).
  const roles = new Map(chart.filter((a) => a.role).map((a) => [a.role!, a.code]));
  const code = IC_CATEGORIES.includes(q.category as IcCategory) ? differenceAccount(q.category as IcCategory, diff, (r) => roles.get(r) ?? null) : undefined;
  const line = chart.find((a) => a.code === code);
  if (!line) throw new ApiError(409, 'The group chart has no intercompany difference account');
  const text = (v: bigint) => (v ? formatFixed(v < 0n ? -v : v, PRESENTATION_SCALE) : '');
  const a = names.get(q.entityA) ?? q.entityA;
  const b = names.get(q.entityB) ?? q.entityB;
  const cash = q.category === 'receivable_payable' || q.category === 'loan';
  const memo = cash ? `Cash in transit between ${a} and ${b}` : `Intercompany difference between ${a} and ${b}`;
  return {
    reference: `IC-${q.period}-${q.entityA}-${q.entityB}`.slice(0, 60),
    period: q.period,
    level: 'group' as const,
    kind: 'reversing' as const,
    memo,
    origin: `mismatch:${q.period}/${q.entityA}~${q.entityB}/${q.category}`,
    lines: [
      // The run posted `diff` on the line (debit when positive): the journal takes it off.
      { account: line.code, counterparty: q.entityB, debit: diff < 0n ? text(diff) : '', credit: diff > 0n ? text(diff) : '', memo: `Clears the ${q.category.replace('_', '/')} difference` },
      { account: '', counterparty: null, debit: diff > 0n ? text(diff) : '', credit: diff < 0n ? text(diff) : '', memo: cash ? 'Cash in transit' : null },
    ],
  };
}

// --- the routes -------------------------------------------------------------------------------------
export interface JournalRouteDeps {
  orgDb<T>(req: Request, fn: (o: OrgDatabase, orgId: string) => Promise<T>): Promise<T>;
  readDb<T>(req: Request, fn: (o: OrgDatabase, orgId: string) => Promise<T>): Promise<T>;
  who(req: Request): Who;
  any: RequestHandler;
}

/** The journal routes of the consolidation resource (mounted by ./router.ts). */
export function journalRoutes(router: Router, { orgDb, readDb, who, any }: JournalRouteDeps): void {
  const tag = 'consolidation';
  const id = (req: Request) => (req.params as { id: string }).id;
  const bad = { 409: 'The journal is not in a state that allows it (posted journals are never edited, only reversed)' };

  route(router, 'get', '/:orgId/journals', { tag, answer: journalListSchema, summary: 'Consolidation journals, user of the organization or admin (?period=YYYY-MM, ?status=draft | pending_approval | posted | reversed): data { approvalRequired (the two-person rule), presentationCurrency, journals [{ id, reference, period, level (entity | group), entity, entityName, currency, kind (one_off | recurring | reversing), recurringTo, status, memo, origin, reversalOf, reversedBy, author, approver, timestamps, totalDebit, totalCredit, lines [{ account, groupAccount, accountName, counterparty, counterpartyName, debit, credit, memo }] }] }' }, any, validate({ params: orgParams, query: journalsQuery }), async (req, res) => {
    ok(res, 'Journals fetched', await readDb(req, ({ db }) => listJournals(db, res.locals.query)));
  });
  route(router, 'get', '/:orgId/journals/export', { tag, summary: 'Journals as CSV, one row per line (reference, period, level, entity, kind, recurring_to, status, memo, account, counterparty, debit, credit, line_memo, author, approver); ?period, ?status; a failure is JSON' }, any, validate({ params: orgParams, query: journalsQuery }), async (req, res) => {
    const csv = await readDb(req, ({ db }) => journalsCsv(db, res.locals.query));
    res.type('text/csv').attachment('journals.csv').send(csv);
  });
  route(router, 'get', '/:orgId/journals/prefill', { tag, answer: journalPrefillSchema, statuses: { 404: 'No such intercompany difference in that month' }, summary: "The mismatch report's \"book an adjustment\": a draft (not saved) that clears one pair's intercompany difference (?period, ?entityA, ?entityB, ?category): the difference off the intercompany suspense (or differences) line, against an account the user picks (cash in transit), group level, auto-reversing" }, any, validate({ params: orgParams, query: prefillQuery }), async (req, res) => {
    ok(res, 'Adjustment pre-filled', await readDb(req, ({ db }) => prefill(db, res.locals.query)));
  });
  route(router, 'post', '/:orgId/journals/import', { tag, statuses: { 409: 'A month is locked' }, summary: 'Journals from a CSV (text/csv, the export\'s columns; reference, period, account, debit, credit required; level defaults to group, kind to one_off), saved as drafts: every journal checked as the JSON form (balanced, known accounts, open months, unused references); all or nothing', body: { limit: '8mb', why: `${MAX_IMPORT_ROWS.toLocaleString('en')} lines`, csv: true, content: { 'text/csv': { schema: { type: 'string', description: 'reference, period, level, entity, kind, recurring_to, memo, account, counterparty, debit, credit, line_memo' } } } } }, any, validate({ params: orgParams }), async (req, res) => {
    const r = await orgDb(req, ({ db, dialect }) => importJournals(db, dialect, who(req), String(req.body ?? '')));
    ok(res, `Journals imported as drafts: ${r.imported}`, r);
  });
  route(router, 'post', '/:orgId/journals', { tag, answer: journalAnswerSchema, statuses: { 201: 'Saved as a draft: data is the journal' }, summary: 'Book a consolidation journal as a draft: reference (unused), period, level (group: presentation currency, group accounts; entity: the entity\'s currency, its source accounts or group accounts, translated like its lines), entity, kind (one_off | recurring with recurringTo | reversing), memo, lines [{ account, counterparty, debit, credit, memo }]. 400 naming each fault (does not balance, unknown account, a locked month, more decimals than the currency takes); nothing saved then', body: { limit: '1mb', why: `${MAX_JOURNAL_LINES} lines at their longest` } }, any, validate({ params: orgParams, body: journalBody }), async (req, res) => {
    ok(res, 'Journal saved as a draft', await orgDb(req, ({ db, dialect }) => createJournal(db, dialect, who(req), req.body as JournalInput)), 201);
  });
  route(router, 'get', '/:orgId/journals/:id', { tag, answer: journalAnswerSchema, summary: 'One journal with its lines, author and approver' }, any, validate({ params: journalParams }), async (req, res) => {
    ok(res, 'Journal fetched', await readDb(req, ({ db }) => getJournal(db, id(req))));
  });
  route(router, 'put', '/:orgId/journals/:id', { tag, answer: journalAnswerSchema, statuses: bad, summary: 'Change a draft journal (the same body and checks as booking one); 409 for a journal that is posted, reversed or waiting for approval', body: { limit: '1mb', why: `${MAX_JOURNAL_LINES} lines at their longest` } }, any, validate({ params: journalParams, body: journalBody }), async (req, res) => {
    ok(res, 'Journal saved', await orgDb(req, ({ db, dialect }) => updateJournal(db, dialect, who(req), id(req), req.body as JournalInput)));
  });
  route(router, 'delete', '/:orgId/journals/:id', { tag, statuses: bad, summary: 'Delete a draft journal; 409 for one posted, reversed or waiting for approval' }, any, validate({ params: journalParams }), async (req, res) => {
    await orgDb(req, ({ db }) => removeJournal(db, who(req), id(req)));
    ok(res, 'Journal deleted');
  });
  route(router, 'post', '/:orgId/journals/:id/submit', { tag, answer: journalAnswerSchema, statuses: bad, summary: 'Submit a draft: posted at once, or waiting for approval by another user under the two-person rule (group settings journalApproval); checked again first (400 naming the faults)' }, any, validate({ params: journalParams }), async (req, res) => {
    const r = await orgDb(req, ({ db }) => submitJournal(db, who(req), id(req)));
    ok(res, r.message, r.journal);
  });
  route(router, 'post', '/:orgId/journals/:id/approve', { tag, answer: journalAnswerSchema, statuses: { ...bad, 403: 'The approver is the author: the two-person rule needs another user' }, summary: 'Approve a journal waiting for approval: it posts. 403 when the approver is its author' }, any, validate({ params: journalParams }), async (req, res) => {
    const j = await orgDb(req, ({ db }) => approveJournal(db, who(req), id(req)));
    ok(res, `Journal ${j.reference} approved and posted: run the consolidation to see it in the figures`, j);
  });
  route(router, 'post', '/:orgId/journals/:id/reject', { tag, answer: journalAnswerSchema, statuses: bad, summary: 'Send a journal waiting for approval back to draft' }, any, validate({ params: journalParams }), async (req, res) => {
    const j = await orgDb(req, ({ db }) => rejectJournal(db, who(req), id(req)));
    ok(res, `Journal ${j.reference} sent back to draft`, j);
  });
  route(router, 'post', '/:orgId/journals/:id/reverse', { tag, statuses: { ...bad, 201: 'The reversing journal booked: data { reversal, pending }' }, summary: 'Reverse a posted journal: a reversing journal (REV-<reference>, debits and credits swapped) in its month or, for a one-off journal, a later one ({ period }); posted at once, or waiting for approval under the two-person rule (the original is marked reversed when it posts). data { reversal, pending }' }, any, validate({ params: journalParams, body: reverseBody }), async (req, res) => {
    const r = await orgDb(req, ({ db, dialect }) => reverseJournal(db, dialect, who(req), id(req), req.body));
    ok(res, r.pending ? `Reversal ${r.reversal.reference} waiting for approval by another user` : `Journal reversed by ${r.reversal.reference}: run the consolidation to see it in the figures`, r, 201);
  });
}
