// The consolidation's read of posted journals (warehouse/consolidation/journals.ts
// readPostedJournals) from a real SQLite organization database: a month's posted and reversed
// journals (not drafts, not another month's), each whole, its lines in their order, amounts
// exact at the journal's scale. The read asks the database for no order (the engine orders the
// journals itself), so the same answer must come whatever order the rows arrive in: the rows are
// also handed over reversed.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PostedJournal } from '../../common/consolidation/journals';
import { openOrgConnection, type OrgDatabase } from '../../warehouse/connection';
import { readPostedJournals, writeJournals, type StoredJournal } from '../../warehouse/consolidation/journals';
import { ensureConsolidationSchema } from '../../warehouse/consolidation/store';

let dir: string;
let org: OrgDatabase;

const journal = (id: string, period: string, status: StoredJournal['status'], lines: [string, bigint, bigint][], level: StoredJournal['level'] = 'group'): StoredJournal => ({
  id,
  reference: `REF-${id}`,
  period,
  level,
  entity: level === 'entity' ? 'S' : null,
  kind: 'one_off',
  recurringTo: null,
  status,
  memo: `memo ${id}`,
  origin: null,
  reversalOf: null,
  reversedBy: null,
  authorId: 'u1',
  authorName: 'Ann Author',
  createdAt: '2026-01-01T00:00:00Z',
  submittedAt: null,
  approverId: null,
  approverName: null,
  postedAt: '2026-01-02T00:00:00Z',
  reversedAt: null,
  updatedBy: null,
  updatedAt: null,
  lines: lines.map(([account, debit, credit], i) => ({ account, counterparty: null, debit, credit, memo: i === 0 ? 'first line' : null })),
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lf-journals-read-'));
  const file = join(dir, 'org.sqlite');
  new Database(file).close();
  org = await openOrgConnection({ dialect: 'sqlite', file });
  await ensureConsolidationSchema(org.db, 'sqlite');
  await writeJournals(org.db, 'sqlite', [
    // Three lines, written in the order 3, 1, 2 below would not change their numbers: line_no is their place.
    journal('j-b', '2026-02', 'posted', [
      ['6500', 10000n, 0n],
      ['1500', 0n, 2500n],
      ['2100', 0n, 7500n],
    ]),
    // Entity level: amounts in units of 1/10,000 of the entity's currency.
    journal('j-a', '2026-02', 'reversed', [['6000', 1234567n, 0n], ['2000', 0n, 1234567n]], 'entity'),
    journal('j-draft', '2026-02', 'draft', [['6500', 100n, 0n], ['1500', 0n, 100n]]),
    journal('j-jan', '2026-01', 'posted', [['6500', 500n, 0n], ['1500', 0n, 500n]]),
  ]);
});
afterAll(async () => {
  await org.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The answer as the engine takes it: journals by id (it orders them itself), lines as read. */
const byId = (js: PostedJournal[]) => [...js].sort((a, b) => (a.id < b.id ? -1 : 1));

const february: PostedJournal[] = [
  {
    id: 'j-a',
    reference: 'REF-j-a',
    period: '2026-02',
    level: 'entity',
    entity: 'S',
    kind: 'one_off',
    recurringTo: null,
    memo: 'memo j-a',
    lines: [
      { account: '6000', counterparty: null, debit: 1234567n, credit: 0n, memo: 'first line' },
      { account: '2000', counterparty: null, debit: 0n, credit: 1234567n, memo: null },
    ],
  },
  {
    id: 'j-b',
    reference: 'REF-j-b',
    period: '2026-02',
    level: 'group',
    entity: null,
    kind: 'one_off',
    recurringTo: null,
    memo: 'memo j-b',
    lines: [
      { account: '6500', counterparty: null, debit: 10000n, credit: 0n, memo: 'first line' },
      { account: '1500', counterparty: null, debit: 0n, credit: 2500n, memo: null },
      { account: '2100', counterparty: null, debit: 0n, credit: 7500n, memo: null },
    ],
  },
];

test("a month's posted and reversed journals, whole, lines in their order", async () => {
  expect(byId(await readPostedJournals(org, { after: '2026-01', upTo: '2026-02' }))).toEqual(february);
  // Up to January only: January's.
  expect((await readPostedJournals(org, { upTo: '2026-01' })).map((j) => j.id)).toEqual(['j-jan']);
});

test('the same answer whatever order the database hands the rows in', async () => {
  const reversed: Pick<OrgDatabase, 'db' | 'selectRows'> = { db: org.db, selectRows: async (q) => [...(await org.selectRows(q))].reverse() };
  expect(byId(await readPostedJournals(reversed, { after: '2026-01', upTo: '2026-02' }))).toEqual(february);
});
