// The contract of the consolidation journals' answers (api/resources/consolidation/journals.ts)
// as the web app reads them: zod schemas and their inferred types. Pure: zod only. The word lists
// repeat common/consolidation/journals.ts (test/consolidation/journals-api.test.ts compares them).
import { z } from 'zod';

export const JOURNAL_LEVELS = ['entity', 'group'] as const;
export const JOURNAL_KINDS = ['one_off', 'recurring', 'reversing'] as const;
export const JOURNAL_STATUSES = ['draft', 'pending_approval', 'posted', 'reversed'] as const;

const period = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/);
/** Decimal text ("1250.00"; entity-level journals carry 4 decimals of the entity's currency). */
const amount = z.string().regex(/^-?\d+(\.\d+)?$/);

export const journalLineAnswerSchema = z.object({
  /** As booked: a group account, or at entity level a source account of the entity. */
  account: z.string(),
  /** The group account it lands on, and its name (null: not in the chart any more; the run puts it on the unmapped line). */
  groupAccount: z.string().nullable(),
  accountName: z.string().nullable(),
  counterparty: z.string().nullable(),
  counterpartyName: z.string().nullable(),
  debit: amount,
  credit: amount,
  memo: z.string().nullable(),
});

export const journalAnswerSchema = z.object({
  id: z.string(),
  reference: z.string(),
  period,
  level: z.enum(JOURNAL_LEVELS),
  entity: z.string().nullable(),
  entityName: z.string().nullable(),
  /** The currency its amounts are in: the entity's (entity level) or the presentation currency. */
  currency: z.string().nullable(),
  kind: z.enum(JOURNAL_KINDS),
  recurringTo: period.nullable(),
  status: z.enum(JOURNAL_STATUSES),
  memo: z.string().nullable(),
  origin: z.string().nullable(),
  reversalOf: z.string().nullable(),
  reversedBy: z.string().nullable(),
  authorId: z.string().nullable(),
  author: z.string().nullable(),
  approver: z.string().nullable(),
  createdAt: z.string(),
  submittedAt: z.string().nullable(),
  postedAt: z.string().nullable(),
  reversedAt: z.string().nullable(),
  totalDebit: amount,
  totalCredit: amount,
  lines: z.array(journalLineAnswerSchema),
});

/** GET /consolidation/{orgId}/journals */
export const journalListSchema = z.object({
  /** The two-person rule (group settings): posting needs a different user's approval. */
  approvalRequired: z.boolean(),
  presentationCurrency: z.string(),
  journals: z.array(journalAnswerSchema),
});

/** GET /consolidation/{orgId}/journals/prefill: a draft the mismatch report offers ("book an adjustment"). */
export const journalPrefillSchema = z.object({
  reference: z.string(),
  period,
  level: z.literal('group'),
  kind: z.enum(JOURNAL_KINDS),
  memo: z.string(),
  origin: z.string(),
  lines: z.array(z.object({ account: z.string(), counterparty: z.string().nullable(), debit: z.string(), credit: z.string(), memo: z.string().nullable() })),
});

export type JournalAnswer = z.infer<typeof journalAnswerSchema>;
export type JournalLineAnswer = z.infer<typeof journalLineAnswerSchema>;
export type JournalListAnswer = z.infer<typeof journalListSchema>;
export type JournalPrefillAnswer = z.infer<typeof journalPrefillSchema>;
export type JournalLevel = (typeof JOURNAL_LEVELS)[number];
export type JournalKind = (typeof JOURNAL_KINDS)[number];
export type JournalStatus = (typeof JOURNAL_STATUSES)[number];
