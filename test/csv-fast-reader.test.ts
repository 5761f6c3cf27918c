// The fast CSV reader against csv-parse, the reference: on generated files (well formed and
// broken, every delimiter, LF and CRLF, quotes, blanks, split into chunks at random points)
// whatever the fast reader accepts must be exactly csv-parse's records, with the same column
// profiles; what it does not take it must refuse (the loader then reads with csv-parse).
import { parse } from 'csv-parse/sync';
import { ColumnProfile, normalizeHeader } from '../common/csv/columns';
import { CsvInputError } from '../common/csv/errors';
import { FastCsvReader, FastPathUnsupported } from '../activities/csv/fast-reader';
import { csvParserOptions } from '../common/csv/inspect';
import type { CsvDelimiter } from '../common/csv/sniff';
import { generator, type Random } from './helpers/random';

const DELIMITERS: CsvDelimiter[] = [',', ';', '\t'];

/** A CSV text: mostly well formed records (quoted when they must be), sometimes broken on purpose. */
function generateCsv(rnd: Random): { text: string; delimiter: CsvDelimiter } {
  const delimiter = rnd.pick(DELIMITERS);
  const atoms = ['a', 'B', '1', '2.50', '-3', '007', '1e3', 'true', 'FALSE', '2024-01-31', '2024-02-30', '2024-01-31T10:15:00Z', ' ', '', '"', '""', delimiter, '\n', '\r\n', '\r', 'é', '✓', '\\', '\t', ',', ';', 'x y', '\u00a0', '\u0001'];
  const columns = 1 + Math.floor(rnd.next() * 5);
  const eol = rnd.next() < 0.3 ? '\r\n' : '\n';
  const records = Math.floor(rnd.next() * 8);
  let text = '';
  for (let r = 0; r <= records; r++) {
    const count = rnd.next() < 0.9 ? columns : 1 + Math.floor(rnd.next() * 5);
    const fields: string[] = [];
    for (let f = 0; f < count; f++) {
      let v = '';
      const parts = Math.floor(rnd.next() * 4);
      for (let p = 0; p < parts; p++) v += rnd.pick(atoms);
      if (r === 0 && rnd.next() < 0.85) v = `col ${f} ${v.replace(/[^a-z]/gi, '')}`;
      const mustQuote = /["\r\n]/.test(v) || v.includes(delimiter);
      if ((mustQuote && rnd.next() < 0.9) || rnd.next() < 0.25) v = `"${v.replaceAll('"', '""')}"`;
      fields.push(v);
    }
    text += fields.join(delimiter) + (r < records || rnd.next() < 0.5 ? eol : '');
    if (rnd.next() < 0.1) text += rnd.pick([eol, `${delimiter}${eol}`, ` ${eol}`]);
  }
  if (rnd.next() < 0.15) {
    const at = Math.floor(rnd.next() * text.length);
    text = text.slice(0, at) + rnd.pick(atoms) + text.slice(at);
  }
  return { text, delimiter };
}

/** What the loader's csv-parse path makes of a text: header, rows (null for empty) and profiles, or an error. */
function reference(text: string, delimiter: CsvDelimiter) {
  let records: string[][];
  try {
    records = parse(text, csvParserOptions(delimiter)) as string[][];
  } catch (e) {
    // The header's own error comes first when csv-parse gets that far.
    let first: string[][] = [];
    try {
      first = parse(text, { ...csvParserOptions(delimiter), to: 1 }) as string[][];
    } catch {
      // the header itself is broken
    }
    try {
      if (first[0]) normalizeHeader(first[0]);
    } catch (headerError) {
      return { error: headerError as Error };
    }
    return { error: e as Error };
  }
  if (records.length === 0) return { rows: [], profiles: [] as ColumnProfile[] };
  let names: string[];
  try {
    names = normalizeHeader(records[0]!);
  } catch (e) {
    return { error: e as Error };
  }
  const profiles = names.map(() => new ColumnProfile());
  const rows = records.slice(1).map((record) => record.map((v, i) => (v === '' ? null : (profiles[i]!.observe(v), v))));
  return { names, rows, profiles };
}

/** Reads text in chunks of 1 to maxChunk characters (a record cut anywhere must read the same). */
function fastRead(text: string, delimiter: CsvDelimiter, rnd: Random, maxChunk = 12) {
  const rows: unknown[] = [];
  const reader = new FastCsvReader(delimiter);
  const take = () => {
    const { json, rows: n } = reader.take();
    if (n > 0) rows.push(...(JSON.parse(`[${json.toString('utf8')}]`) as unknown[]));
  };
  try {
    for (let i = 0; i < text.length; ) {
      const size = 1 + Math.floor(rnd.next() * maxChunk);
      reader.push(Buffer.from(text.slice(i, i + size)));
      take();
      i += size;
    }
    reader.end();
    take();
  } catch (e) {
    return { error: e as Error };
  }
  return { names: reader.names, rows, profiles: reader.profiles };
}

const summary = (profiles: ColumnProfile[]) => profiles.map((p) => ({ type: p.type, maxLength: p.maxLength, intDigits: p.intDigits, scale: p.scale, exponent: p.exponent, time: p.time, zone: p.zone }));

describe('FastCsvReader', () => {
  it('agrees with csv-parse on 20,000 generated files, or refuses them', () => {
    const rnd = generator(20261123);
    const outcomes = { same: 0, sameHeaderError: 0, refused: 0 };
    for (let n = 0; n < 20000; n++) {
      const { text, delimiter } = generateCsv(rnd);
      const expected = reference(text, delimiter);
      const actual = fastRead(text, delimiter, rnd);
      const at = `case ${n}: ${JSON.stringify(text)} (delimiter ${JSON.stringify(delimiter)})`;
      if (actual.error instanceof FastPathUnsupported) {
        outcomes.refused++;
        continue;
      }
      if (actual.error) {
        // Its only own errors are the header's, as the loader reports them for csv-parse too.
        expect({ at, error: actual.error instanceof CsvInputError && actual.error.message }).toEqual({ at, error: expected.error?.message });
        outcomes.sameHeaderError++;
        continue;
      }
      expect({ at, error: expected.error?.message }).toEqual({ at, error: undefined });
      expect({ at, names: actual.names, rows: actual.rows }).toEqual({ at, names: expected.names, rows: expected.rows });
      expect({ at, profiles: summary(actual.profiles) }).toEqual({ at, profiles: summary(expected.profiles!) });
      outcomes.same++;
    }
    // The generator keeps every outcome frequent, so none of them goes untested.
    expect(outcomes.same).toBeGreaterThan(5000);
    expect(outcomes.refused).toBeGreaterThan(2000);
    expect(outcomes.sameHeaderError).toBeGreaterThan(500);
  });

  it.each([
    ['LF, a quoted header, quotes, escaped quotes, a line end inside quotes, empty values', 'Name,"Amount, USD",Note\nalpha,1.50,"said ""hi"""\nbeta,,"two\nlines"\n\n', ','],
    ['CRLF, no line end at the end', 'a;b\r\n1;x\r\n2;"y;z"', ';'],
    ['tabs, blank records, unicode', 'a\tb\n\t\n \t \nCafé\t✓\n', '\t'],
    ['backslashes and control characters are escaped in JSON', 'a,b\nC:\\temp,x\u0001y\n', ','],
  ])('takes a common file: %s', (_what, text, delimiter) => {
    const rnd = generator(1);
    const actual = fastRead(text, delimiter as CsvDelimiter, rnd);
    expect(actual.error).toBeUndefined();
    const expected = reference(text, delimiter as CsvDelimiter);
    expect(actual.rows).toEqual(expected.rows);
    expect(actual.rows?.length).toBeGreaterThan(0);
  });

  it.each([
    ['a ragged row', 'a,b\n1,2\n3\n'],
    ['a quote inside an unquoted field', 'a,b\n1,x"y\n'],
    ['a quote never closed', 'a,b\n1,"x\n'],
    ['text after a closing quote', 'a,b\n1,"x"y\n'],
    ['bare CR line ends', 'a,b\r1,2\r'],
    ['LF lines in a CRLF file', 'a,b\r\n1,2\n3,4\r\n'],
    ['a row longer than the row limit', `a,b\n1,${'x'.repeat(400_000)}\n`],
  ])('refuses %s (csv-parse decides)', (_what, text) => {
    expect(fastRead(text, ',', generator(2), 64 * 1024).error).toBeInstanceOf(FastPathUnsupported);
  });
});
