// The organization database's bulk writes (warehouse/connection.ts), SQLite: insertEach with
// values the same on every row (bound once per statement of many rows) writes exactly what
// writing them on every row writes, below, at and above a statement's rows; a writer opened with
// checkpointsElsewhere leaves its write-ahead log in place (no automatic checkpoint), and
// walCheckpoints copies it into the database on its own connection, on its ticks and at stop.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openOrgConnection, walCheckpoints, type OrgDatabase } from '../warehouse/connection';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lf-org-writes-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function newFile(name: string): string {
  const file = join(dir, name);
  new Database(file).close();
  return file;
}

async function withOrg<T>(file: string, fn: (o: OrgDatabase) => Promise<T>, checkpointsElsewhere = false): Promise<T> {
  const o = await openOrgConnection({ dialect: 'sqlite', file }, { checkpointsElsewhere });
  try {
    return await fn(o);
  } finally {
    await o.close();
  }
}

describe('insertEach with values the same on every row', () => {
  it.each([1, 31, 32, 33, 100])('writes %i rows as writing every value on every row does', async (count) => {
    const file = newFile(`same-${count}.sqlite`);
    const rows = await withOrg(file, async (o) => {
      await sql`create table a (period text, entity text, account text, amount real, note text)`.execute(o.db);
      await sql`create table b (period text, entity text, account text, amount real, note text)`.execute(o.db);
      const fill = (i: number, row: unknown[]) => {
        row[0] = `A${i}`;
        row[1] = i % 3 === 0 ? null : (i * 1.25) / 100;
        row[2] = i % 2 ? `note ${i}` : null;
      };
      await o.insertEach('a', ['account', 'amount', 'note'], count, fill, { columns: ['period', 'entity'], values: ['2024-03', "O'Brien-Smith"] });
      await o.insertEach('b', ['period', 'entity', 'account', 'amount', 'note'], count, (i, row) => {
        const own: unknown[] = [];
        fill(i, own);
        row[0] = '2024-03';
        row[1] = "O'Brien-Smith";
        for (let j = 0; j < 3; j++) row[2 + j] = own[j];
      });
      const read = async (t: string) => (await sql.raw(`select period, entity, account, amount, note from ${t} order by rowid`).execute(o.db)).rows;
      return { a: await read('a'), b: await read('b') };
    });
    expect(rows.a).toHaveLength(count);
    expect(rows.a).toEqual(rows.b);
    expect(rows.a[0]).toEqual({ period: '2024-03', entity: "O'Brien-Smith", account: 'A0', amount: null, note: null });
  });
});

describe('the page cache', () => {
  it('is bounded as asked (the consolidation\'s connection: 4 MB), and left at the default otherwise', async () => {
    const file = newFile('cache.sqlite');
    const read = async (pageCacheMb?: number) => {
      const o = await openOrgConnection({ dialect: 'sqlite', file }, { pageCacheMb });
      try {
        return (await sql<{ cache_size: number }>`pragma cache_size`.execute(o.db)).rows[0]!.cache_size;
      } finally {
        await o.close();
      }
    };
    const plain = new Database(':memory:');
    const fallback = (plain.pragma('cache_size') as { cache_size: number }[])[0]!.cache_size;
    plain.close();
    expect(await read(4)).toBe(-4096);
    expect(await read()).toBe(fallback);
  });
});

describe('checkpoints on another connection', () => {
  /** Writes about 8 MB (over SQLite's automatic checkpoint of 1,000 pages) in committed batches. */
  async function writeMuch(o: OrgDatabase): Promise<void> {
    await sql`create table big (k text, v text)`.execute(o.db);
    const pad = 'x'.repeat(1000);
    for (let b = 0; b < 8; b++) await o.insertEach('big', ['k', 'v'], 1000, (i, row) => ((row[0] = `${b}-${i}`), (row[1] = pad)));
  }
  const sizeOf = (f: string) => statSync(f).size;

  it('a writer opened with checkpointsElsewhere leaves its log in place; walCheckpoints copies it in at stop', async () => {
    const file = newFile('elsewhere.sqlite');
    await withOrg(
      file,
      async (o) => {
        await writeMuch(o);
        // Nothing copied yet: the database file is as it was, the rows are all in the log.
        expect(sizeOf(file)).toBeLessThan(100_000);
        expect(sizeOf(`${file}-wal`)).toBeGreaterThan(8_000_000);
        const ck = walCheckpoints(file, 60_000);
        expect(ck).toBeDefined();
        const stopped = ck!.stop();
        // (The last copy runs once the caller has gone on.)
        expect(sizeOf(file)).toBeLessThan(100_000);
        await stopped;
        expect(sizeOf(file)).toBeGreaterThan(8_000_000);
      },
      true,
    );
    const db = new Database(file, { readonly: true });
    expect(db.prepare('select count(*) from big').pluck().get()).toBe(8000);
    db.close();
  });

  it('walCheckpoints answers nothing for a file it cannot open (the writer then opens it and says why)', () => {
    expect(walCheckpoints(join(dir, 'missing.sqlite'))).toBeUndefined();
  });

  it('a writer opened as usual checkpoints on its own', async () => {
    const file = newFile('usual.sqlite');
    await withOrg(file, async (o) => {
      await writeMuch(o);
      expect(sizeOf(file)).toBeGreaterThan(4_000_000);
    });
  });

  it('walCheckpoints copies the log on its ticks, the writer still open', async () => {
    const file = newFile('ticks.sqlite');
    await withOrg(
      file,
      async (o) => {
        const ck = walCheckpoints(file, 10);
        expect(ck).toBeDefined();
        try {
          await writeMuch(o);
          const deadline = Date.now() + 20_000;
          while (sizeOf(file) < 8_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          expect(sizeOf(file)).toBeGreaterThan(8_000_000);
        } finally {
          await ck!.stop();
        }
      },
      true,
    );
  });
});
