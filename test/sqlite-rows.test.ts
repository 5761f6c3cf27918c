// The lf_rows SQLite extension (warehouse/csv/native/lf_rows.c, compiled by npm test's
// bootstrap) against SQLite's own JSON functions, the reference: every generated batch must
// come out of the virtual table exactly as jsonb_each + json_extract read it (text, NULL,
// escapes, any UTF-8), including batches the fast CSV reader wrote; a batch that is not the
// loader's JSON fails the statement, it never crashes or reads past the batch.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { FastCsvReader } from '../activities/csv/fast-reader';
import { SQLITE_ROWS_EXTENSION } from '../warehouse/csv/sqlite-table';
import { generator, type Random } from './helpers/random';

const ATOMS = ['a', 'Z', '0', '-1.5', 'true', '2024-01-31', ' ', '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f', 'é', '✓', '😀', '\u2028', 'null', '[', ']', ',', 'x y'];

function randomBatch(rnd: Random, columns: number): (string | null)[][] {
  const rows: (string | null)[][] = [];
  const count = 1 + Math.floor(rnd.next() * 20);
  for (let r = 0; r < count; r++) {
    const row: (string | null)[] = [];
    for (let c = 0; c < columns; c++) {
      if (rnd.next() < 0.15) {
        row.push(null);
        continue;
      }
      let v = '';
      const parts = Math.floor(rnd.next() * 5);
      for (let p = 0; p < parts; p++) v += rnd.pick(ATOMS);
      row.push(v);
    }
    rows.push(row);
  }
  return rows;
}

describe('lf_rows, the CSV loader\'s SQLite extension', () => {
  let db: Database.Database;

  beforeAll(() => {
    if (!existsSync(SQLITE_ROWS_EXTENSION)) throw new Error(`${SQLITE_ROWS_EXTENSION} is missing: npm test compiles it (npm run build:native)`);
    db = new Database(':memory:');
    db.loadExtension(SQLITE_ROWS_EXTENSION);
  });
  afterAll(() => db.close());

  /** The batch as both read it: [typeof, value] per field, row by row. */
  function readBoth(batch: Buffer, columns: number) {
    db.exec(`DROP TABLE IF EXISTS temp.b; CREATE VIRTUAL TABLE temp.b USING lf_rows(${columns})`);
    const cols = Array.from({ length: columns }, (_, i) => i);
    const ours = db
      .prepare(`SELECT ${cols.map((i) => `typeof(c${i}), c${i}`).join(', ')} FROM temp.b WHERE batch = ?`)
      .raw()
      .all(batch) as unknown[][];
    const reference = db
      .prepare(`SELECT ${cols.map((i) => `typeof(json_extract(value, '$[${i}]')), json_extract(value, '$[${i}]')`).join(', ')} FROM jsonb_each(CAST(? AS TEXT))`)
      .raw()
      .all(batch) as unknown[][];
    return { ours, reference };
  }

  it('reads 3,000 generated batches exactly as jsonb_each + json_extract do', () => {
    let fields = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const rnd = generator(seed);
      const columns = 1 + Math.floor(rnd.next() * 6);
      const rows = randomBatch(rnd, columns);
      const { ours, reference } = readBoth(Buffer.from(JSON.stringify(rows)), columns);
      if (JSON.stringify(ours) !== JSON.stringify(reference)) {
        throw new Error(`seed ${seed}: ${JSON.stringify(rows)}\nlf_rows:   ${JSON.stringify(ours)}\nreference: ${JSON.stringify(reference)}`);
      }
      // And as JavaScript wrote them: the strings come back as they were.
      expect(ours.map((r) => r.filter((_, i) => i % 2 === 1))).toEqual(rows);
      fields += rows.length * columns;
    }
    expect(fields).toBeGreaterThan(50_000);
  });

  it('reads the fast CSV reader\'s batches (its own escapes) as jsonb_each does', () => {
    const csv = ['id,memo,note', '1,"a ""quoted"" word","tab\there"', '2,,"line\nbreak"', '3,back\\slash,"ctrl \u0001 char"', '4,é ✓ 😀,"x,y"', ''].join('\n');
    const reader = new FastCsvReader(',');
    reader.push(Buffer.from(csv));
    reader.end();
    const { json, rows } = reader.take();
    expect(rows).toBe(4);
    const batch = Buffer.concat([Buffer.from('['), json, Buffer.from(']')]);
    const { ours, reference } = readBoth(batch, 3);
    expect(ours).toEqual(reference);
    expect(ours.map((r) => r.filter((_, i) => i % 2 === 1))).toEqual([
      ['1', 'a "quoted" word', 'tab\there'],
      ['2', null, 'line\nbreak'],
      ['3', 'back\\slash', 'ctrl \u0001 char'],
      ['4', 'é ✓ 😀', 'x,y'],
    ]);
  });

  it('fails the statement on anything but the loader\'s JSON', () => {
    db.exec('DROP TABLE IF EXISTS temp.b; CREATE VIRTUAL TABLE temp.b USING lf_rows(2)');
    const read = (batch: string | Buffer) => db.prepare('SELECT c0, c1 FROM temp.b WHERE batch = ?').raw().all(typeof batch === 'string' ? Buffer.from(batch) : batch);
    expect(read('[["a","b"],[null,"c"]]')).toEqual([['a', 'b'], [null, 'c']]);
    expect(read('[]')).toEqual([]);
    const bad = [
      '', '[', '["a","b"]', '[["a","b"]', '[["a"]]', '[["a","b","c"]]', '[["a",1]]', '[["a", "b"]]', '[ ["a","b"]]',
      '[["a","b"]] ', '[["a","b"]][', '[["a","b"],]', '[["a","b"];["c","d"]]', '[["a\\x","b"]]', '[["a\\u12","b"]]',
      '[["\\ud800","b"]]', '[["\\udc00x","b"]]', '[["a\n","b"]]', '[["a","b', '[["a","b\\', '[[nul,"b"]]', '{"a":"b"}',
    ];
    for (const batch of bad) expect(() => read(batch)).toThrow(/lf_rows/);
    // Every cut of a good batch is refused, never read past its end.
    const good = Buffer.from(JSON.stringify([['x\\"y', null], ['é', '\u0001']]));
    for (let cut = 0; cut < good.length; cut++) expect(() => read(good.subarray(0, cut))).toThrow(/lf_rows/);
    expect(read(good)).toEqual([['x\\"y', null], ['é', '\u0001']]);
  });

  it('takes 1 to 2000 columns and needs its batch', () => {
    expect(() => db.exec('CREATE VIRTUAL TABLE temp.z0 USING lf_rows(0)')).toThrow(/1 to 2000 columns/);
    expect(() => db.exec('CREATE VIRTUAL TABLE temp.z1 USING lf_rows(2001)')).toThrow(/1 to 2000 columns/);
    expect(() => db.exec('CREATE VIRTUAL TABLE temp.z2 USING lf_rows')).toThrow(/one argument/);
    db.exec('DROP TABLE IF EXISTS temp.b; CREATE VIRTUAL TABLE temp.b USING lf_rows(2)');
    expect(() => db.prepare('SELECT * FROM temp.b').all()).toThrow();
  });
});
