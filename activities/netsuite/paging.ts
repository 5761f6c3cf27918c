// Reading a whole SuiteQL query, every row exactly once. A query is always ordered by a unique key.
// Within SuiteQL's cap of 100,000 rows a query pages by limit (1,000) and offset: the first page
// says how many rows there are, so the other pages are asked for at once (through the account's
// concurrency limiter) and taken in order. Past the cap the same query starts again after the last
// key read (WHERE key > last ORDER BY key), and so on until the rows end: ceil(rows / 1000)
// requests when nothing changes. A page that does not fit (totals moving, keys out of order) means
// the data changed under the paging: the activity fails and Temporal retries it.
import { setMaxListeners } from 'node:events';
import type { NetSuiteClient, SuiteQlItem } from './client';

export const PAGE_SIZE = 1000;
/** The most rows one SuiteQL query answers (offset + limit may not pass it). */
export const SUITEQL_ROW_CAP = 100_000;

/** Paging met rows that moved: retried (a plain error is retryable), never written. */
export class NetSuiteDataChanged extends Error {}

export interface KeyedQuery<K> {
  /** The query ordered by its unique key; only rows after `after` when given. */
  text(after: K | null): string;
  /** The key of a row (throws MalformedNetSuiteAnswer when it has none). */
  key(item: SuiteQlItem): K;
  /** Whether key a comes strictly after key b in the query's order. */
  follows(a: K, b: K): boolean;
}

export interface ReadOptions<K> {
  /** Go on after this key (a resumed attempt). */
  after?: K | null;
  signal?: AbortSignal;
  /** Each page's rows, in key order, with the last key taken so far. */
  onPage(items: SuiteQlItem[], last: K): void | Promise<void>;
}

/** Reads every row of the query; answers rows and requests. */
export async function readKeyed<K>(client: NetSuiteClient, query: KeyedQuery<K>, options: ReadOptions<K>): Promise<{ rows: number; requests: number }> {
  let after: K | null = options.after ?? null;
  let rows = 0;
  let requests = 0;
  for (;;) {
    const q = query.text(after);
    const first = await client.suiteql(q, PAGE_SIZE, 0, options.signal);
    requests++;
    const total = first.totalResults;
    const inQuery = Math.min(total, SUITEQL_ROW_CAP);
    const pages = Math.max(1, Math.ceil(inQuery / PAGE_SIZE));
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    // Every waiting page listens on it (up to 99 per query).
    setMaxListeners(0, stop.signal, signal);
    const rest: Promise<Awaited<ReturnType<NetSuiteClient['suiteql']>>>[] = [];
    for (let p = 1; p < pages; p++) {
      const page = client.suiteql(q, PAGE_SIZE, p * PAGE_SIZE, signal);
      page.catch(() => undefined); // awaited in order below; a failure there stops the others
      rest.push(page);
    }
    requests += rest.length;
    let last: K | null = after;
    try {
      for (let p = 0; p < pages; p++) {
        const page = p === 0 ? first : await rest[p - 1]!;
        const expected = Math.min(PAGE_SIZE, inQuery - p * PAGE_SIZE);
        if (page.totalResults !== total || page.items.length !== Math.max(0, expected)) {
          throw new NetSuiteDataChanged(`NetSuite's rows changed while they were read (page at ${p * PAGE_SIZE}: ${page.items.length} of ${page.totalResults} rows, expected ${expected} of ${total})`);
        }
        for (const item of page.items) {
          const k = query.key(item);
          if (last !== null && !query.follows(k, last)) throw new NetSuiteDataChanged('NetSuite answered rows out of key order (the rows changed while they were read)');
          last = k;
        }
        rows += page.items.length;
        if (page.items.length) await options.onPage(page.items, last!);
        if (p === pages - 1 && total <= SUITEQL_ROW_CAP && page.hasMore) throw new NetSuiteDataChanged('NetSuite says more rows follow the last page of the query');
      }
    } finally {
      stop.abort();
    }
    if (total <= SUITEQL_ROW_CAP) return { rows, requests };
    after = last;
  }
}

/** A key of whole numbers (internal IDs), compared as numbers. */
export type NumericKey = string[];

/** "digits" -> comparable; the key parts of SuiteQL's internal IDs. */
export function followsNumeric(a: NumericKey, b: NumericKey): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = BigInt(a[i]!);
    const y = BigInt(b[i]!);
    if (x !== y) return x > y;
  }
  return false;
}

/**
 * The condition "key after `after`" for a key of columns (a > x OR (a = x AND b > y) ...), with
 * the values (digits only, checked by the key extractor) written in.
 */
export function afterCondition(columns: string[], after: NumericKey): string {
  const terms: string[] = [];
  for (let i = 0; i < columns.length; i++) {
    const equal = columns.slice(0, i).map((c, j) => `${c} = ${after[j]}`);
    terms.push([...equal, `${columns[i]} > ${after[i]}`].join(' AND '));
  }
  return terms.length === 1 ? terms[0]! : `(${terms.map((t) => `(${t})`).join(' OR ')})`;
}
