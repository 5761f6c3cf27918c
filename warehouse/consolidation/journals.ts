// Consolidation journals in the organization's database (tables consolidation_journals and
// consolidation_journal_lines, declared with the other settings in ./store.ts CONFIG_TABLES):
// reads for the api and the run, and the writes, each in the caller's transaction. Amounts are
// exact decimal text at the journal's scale (common/consolidation/journals.ts journalScale).
import { sql, type Kysely } from 'kysely';
import { formatFixed, parseDecimal } from '../../common/consolidation/decimal';
import { journalScale, type JournalKind, type JournalLevel, type JournalLine, type JournalStatus, type PostedJournal } from '../../common/consolidation/journals';
import { insertChunked, type OrgDatabase, type OrgDialect } from '../connection';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

export const JOURNALS_TABLE = 'consolidation_journals';
export const JOURNAL_LINES_TABLE = 'consolidation_journal_lines';

export interface StoredJournal {
  id: string;
  reference: string;
  period: string;
  level: JournalLevel;
  entity: string | null;
  kind: JournalKind;
  recurringTo: string | null;
  status: JournalStatus;
  memo: string | null;
  /** Where it came from, e.g. "mismatch:2026-01/P~Q/receivable_payable" (the mismatch report's "book an adjustment"). */
  origin: string | null;
  reversalOf: string | null;
  reversedBy: string | null;
  authorId: string | null;
  authorName: string | null;
  createdAt: string;
  submittedAt: string | null;
  approverId: string | null;
  approverName: string | null;
  postedAt: string | null;
  reversedAt: string | null;
  updatedBy: string | null;
  updatedAt: string | null;
  lines: JournalLine[];
}

type Row = Record<string, unknown>;
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function fromRows(h: Row, lines: Row[]): StoredJournal {
  const level = String(h.level) as JournalLevel;
  const scale = journalScale(level);
  return {
    id: String(h.id),
    reference: String(h.reference),
    period: String(h.period),
    level,
    entity: str(h.entity),
    kind: String(h.kind) as JournalKind,
    recurringTo: str(h.recurring_to),
    status: String(h.status) as JournalStatus,
    memo: str(h.memo),
    origin: str(h.origin),
    reversalOf: str(h.reversal_of),
    reversedBy: str(h.reversed_by),
    authorId: str(h.author_id),
    authorName: str(h.author_name),
    createdAt: String(h.created_at),
    submittedAt: str(h.submitted_at),
    approverId: str(h.approver_id),
    approverName: str(h.approver_name),
    postedAt: str(h.posted_at),
    reversedAt: str(h.reversed_at),
    updatedBy: str(h.updated_by),
    updatedAt: str(h.updated_at),
    lines: lines
      .sort((a, b) => Number(a.line_no) - Number(b.line_no))
      .map((l) => ({ account: String(l.account), counterparty: str(l.counterparty), debit: parseDecimal(String(l.debit), scale) ?? 0n, credit: parseDecimal(String(l.credit), scale) ?? 0n, memo: str(l.memo) })),
  };
}

/** Journals with their lines, filtered by month and status (both optional), in month and reference order. */
export async function readJournals(db: Db, q: { period?: string; after?: string; upTo?: string; statuses?: JournalStatus[]; ids?: string[] } = {}): Promise<StoredJournal[]> {
  if (q.ids && !q.ids.length) return [];
  // Many ids in chunks (T-SQL takes at most 2,100 parameters a statement).
  if (q.ids && q.ids.length > 500) {
    const out: StoredJournal[] = [];
    for (let i = 0; i < q.ids.length; i += 500) out.push(...(await readJournals(db, { ...q, ids: q.ids.slice(i, i + 500) })));
    return out;
  }
  const heads = (await db
    .selectFrom(JOURNALS_TABLE)
    .selectAll()
    .$if(!!q.period, (b) => b.where('period', '=', q.period!))
    .$if(!!q.after, (b) => b.where('period', '>', q.after!))
    .$if(!!q.upTo, (b) => b.where('period', '<=', q.upTo!))
    .$if(!!q.statuses?.length, (b) => b.where('status', 'in', q.statuses!))
    .$if(!!q.ids, (b) => b.where('id', 'in', q.ids!))
    .orderBy('period')
    .orderBy('reference')
    .orderBy('id')
    .execute()) as Row[];
  if (!heads.length) return [];
  const byJournal = new Map<string, Row[]>(heads.map((h) => [String(h.id), []]));
  // The lines of the journals read, in chunks (a parameter list has its bounds).
  const ids = [...byJournal.keys()];
  for (let i = 0; i < ids.length; i += 500) {
    const lines = (await db.selectFrom(JOURNAL_LINES_TABLE).selectAll().where('journal_id', 'in', ids.slice(i, i + 500)).execute()) as Row[];
    for (const l of lines) byJournal.get(String(l.journal_id))?.push(l);
  }
  return heads.map((h) => fromRows(h, byJournal.get(String(h.id))!));
}

export async function readJournal(db: Db, id: string): Promise<StoredJournal | null> {
  return (await readJournals(db, { ids: [id] }))[0] ?? null;
}

/**
 * The journals a run posts (of the months after `after` up to `upTo`): posted ones, and reversed
 * ones (their reversal, posted too, cancels them). One query over lines and headers, read as
 * arrays (a run reads a thousand journals a month).
 */
export async function readPostedJournals(org: Pick<OrgDatabase, 'db' | 'selectRows'>, range: { after?: string; upTo?: string } = {}): Promise<PostedJournal[]> {
  // No order asked of the database (a sort of every line read, about a third of the read): the
  // engine orders the journals itself (createAdjustments), and each journal's lines are put in
  // their order here.
  const query = org.db
    .selectFrom(`${JOURNAL_LINES_TABLE} as l`)
    .innerJoin(`${JOURNALS_TABLE} as j`, 'j.id', 'l.journal_id')
    .select(['j.id', 'j.reference', 'j.period', 'j.level', 'j.entity', 'j.kind', 'j.recurring_to', 'j.memo', 'l.account', 'l.counterparty', 'l.debit', 'l.credit', 'l.memo as line_memo', 'l.line_no'])
    // The status through an expression, so the month's index chooses the rows: by the status's
    // index (every posted journal of every month) a big group's run read 36,000 journals a month.
    .where(sql<string>`coalesce(j.status, '')`, 'in', ['posted', 'reversed'])
    .$if(!!range.after, (b) => b.where('j.period', '>', range.after!))
    .$if(!!range.upTo, (b) => b.where('j.period', '<=', range.upTo!))
    .compile();
  const byId = new Map<string, { journal: PostedJournal; lineNos: number[]; scale: number; zero: string }>();
  // A line is a debit or a credit: the other side is stored as zero (formatFixed), read without parsing.
  const amount = (v: unknown, scale: number, zero: string): bigint => {
    const t = String(v);
    return t === zero ? 0n : (parseDecimal(t, scale) ?? 0n);
  };
  let ordered = true;
  for (const r of await org.selectRows(query)) {
    const id = String(r[0]);
    let j = byId.get(id);
    if (!j) {
      const journal: PostedJournal = { id, reference: String(r[1]), period: String(r[2]), level: String(r[3]) as JournalLevel, entity: str(r[4]), kind: String(r[5]) as JournalKind, recurringTo: str(r[6]), memo: str(r[7]), lines: [] };
      const scale = journalScale(journal.level);
      byId.set(id, (j = { journal, lineNos: [], scale, zero: formatFixed(0n, scale) }));
    }
    const lineNo = Number(r[13]);
    if (j.lineNos.length && lineNo < j.lineNos.at(-1)!) ordered = false;
    j.lineNos.push(lineNo);
    j.journal.lines.push({ account: String(r[8]), counterparty: str(r[9]), debit: amount(r[10], j.scale, j.zero), credit: amount(r[11], j.scale, j.zero), memo: str(r[12]) });
  }
  const out: PostedJournal[] = [];
  for (const { journal, lineNos } of byId.values()) {
    if (!ordered) {
      const at = lineNos.map((n, i) => [n, i] as const).sort((a, b) => a[0] - b[0]);
      journal.lines = at.map(([, i]) => journal.lines[i]!);
    }
    out.push(journal);
  }
  return out;
}

function headRow(j: StoredJournal): Row {
  return {
    id: j.id,
    reference: j.reference,
    period: j.period,
    level: j.level,
    entity: j.entity,
    kind: j.kind,
    recurring_to: j.recurringTo,
    status: j.status,
    memo: j.memo,
    origin: j.origin,
    reversal_of: j.reversalOf,
    reversed_by: j.reversedBy,
    author_id: j.authorId,
    author_name: j.authorName,
    created_at: j.createdAt,
    submitted_at: j.submittedAt,
    approver_id: j.approverId,
    approver_name: j.approverName,
    posted_at: j.postedAt,
    reversed_at: j.reversedAt,
    updated_by: j.updatedBy,
    updated_at: j.updatedAt,
  };
}

/** Writes journals whole (header and lines), replacing any of the same id; in the caller's transaction. */
export async function writeJournals(trx: Db, dialect: OrgDialect, journals: StoredJournal[]): Promise<void> {
  if (!journals.length) return;
  const ids = journals.map((j) => j.id);
  for (let i = 0; i < ids.length; i += 500) {
    await trx.deleteFrom(JOURNAL_LINES_TABLE).where('journal_id', 'in', ids.slice(i, i + 500)).execute();
    await trx.deleteFrom(JOURNALS_TABLE).where('id', 'in', ids.slice(i, i + 500)).execute();
  }
  await insertChunked(trx, dialect, JOURNALS_TABLE, journals.map(headRow));
  const lines = journals.flatMap((j) => {
    const scale = journalScale(j.level);
    return j.lines.map((l, i) => ({ journal_id: j.id, line_no: i + 1, account: l.account, counterparty: l.counterparty, debit: formatFixed(l.debit, scale), credit: formatFixed(l.credit, scale), memo: l.memo }));
  });
  await insertChunked(trx, dialect, JOURNAL_LINES_TABLE, lines);
}

/** Changes a journal's header fields (status, approver, reversal) only; in the caller's transaction. */
export async function updateJournalHead(trx: Db, id: string, fields: Partial<StoredJournal>): Promise<void> {
  const row = headRow({ ...({} as StoredJournal), ...fields });
  const set = Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
  delete set.id;
  await trx.updateTable(JOURNALS_TABLE).set(set).where('id', '=', id).execute();
}

export async function deleteJournal(trx: Db, id: string): Promise<void> {
  await trx.deleteFrom(JOURNAL_LINES_TABLE).where('journal_id', '=', id).execute();
  await trx.deleteFrom(JOURNALS_TABLE).where('id', '=', id).execute();
}
