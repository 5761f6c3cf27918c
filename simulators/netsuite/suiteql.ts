// A small SuiteQL interpreter over a seeded company (books.ts), as POST
// /services/rest/query/v1/suiteql runs it: SELECT columns / TO_CHAR, FROM one record or the
// posted lines joined to their transaction and line, WHERE with AND/OR/NOT/IN/comparisons, ORDER
// BY. A query it cannot run is refused with NetSuite's error code and message
// (INVALID_PARAMETER, "Invalid search query. ..."). Paging and the answer's shape are the server's.
import { suiteQlTimestamp, type NetSuiteCompany } from './books';

type Value = number | string | null;
type ColumnType = 'id' | 'text' | 'flag' | 'amount' | 'date' | 'rate';
interface Table {
  record: string;
  size: number;
  columns: Record<string, ColumnType>;
  get(i: number, column: string): Value;
}

export class SuiteQlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
export const invalidQuery = (why: string) => new SuiteQlError(400, 'INVALID_PARAMETER', `Invalid search query. Detailed unprocessed description follows. ${why}`);

// ---- the SuiteQL interpreter -------------------------------------------------------------

type Predicate = (i: number) => boolean;
type Token = { kind: 'num' | 'str' | 'id' | 'op'; text: string };

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  const re = /\s*(?:(\d+(?:\.\d+)?)|('(?:[^']|'')*')|([A-Za-z_][\w.]*)|(>=|<=|<>|!=|=|>|<|\(|\)|,))/y;
  let at = 0;
  while (at < s.length) {
    if (/^\s*$/.test(s.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(s);
    if (!m) throw invalidQuery(`Syntax error near "${s.slice(at, at + 20)}".`);
    at = re.lastIndex;
    if (m[1]) out.push({ kind: 'num', text: m[1] });
    else if (m[2]) out.push({ kind: 'str', text: m[2].slice(1, -1).replace(/''/g, "'") });
    else if (m[3]) out.push({ kind: 'id', text: m[3] });
    else out.push({ kind: 'op', text: m[4]! });
  }
  return out;
}

/** WHERE: comparisons of a column with a literal, IN lists, AND, OR, NOT, parentheses. */
function parseWhere(text: string, column: (name: string) => (i: number) => Value): Predicate {
  const t = tokenize(text);
  let p = 0;
  const peek = () => t[p];
  const kw = (word: string) => peek()?.kind === 'id' && peek()!.text.toUpperCase() === word;
  const expect = (text: string) => {
    if (peek()?.text !== text) throw invalidQuery(`Expected "${text}".`);
    p++;
  };
  const literal = (): Value => {
    // TO_TIMESTAMP('YYYY-MM-DD HH24:MI:SS' text, that format): compared as that text.
    if (peek()?.kind === 'id' && peek()!.text.toUpperCase() === 'TO_TIMESTAMP') {
      p++;
      expect('(');
      const value = t[p++];
      expect(',');
      const format = t[p++];
      expect(')');
      if (value?.kind !== 'str' || format?.kind !== 'str' || format.text !== 'YYYY-MM-DD HH24:MI:SS' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value.text)) throw invalidQuery('TO_TIMESTAMP takes a text and the format YYYY-MM-DD HH24:MI:SS.');
      return value.text;
    }
    const tok = t[p++];
    if (!tok || (tok.kind !== 'num' && tok.kind !== 'str')) throw invalidQuery('Expected a value.');
    return tok.kind === 'num' ? Number(tok.text) : tok.text;
  };
  const compare = (a: Value, b: Value): number => {
    if (a === null || b === null) return NaN;
    if (typeof b === 'number') return Number(a) - b;
    return String(a) < b ? -1 : String(a) > b ? 1 : 0;
  };
  const or = (): Predicate => {
    const parts = [and()];
    while (kw('OR')) {
      p++;
      parts.push(and());
    }
    return parts.length === 1 ? parts[0]! : (i) => parts.some((f) => f(i));
  };
  const and = (): Predicate => {
    const parts = [unary()];
    while (kw('AND')) {
      p++;
      parts.push(unary());
    }
    return parts.length === 1 ? parts[0]! : (i) => parts.every((f) => f(i));
  };
  const unary = (): Predicate => {
    if (kw('NOT')) {
      p++;
      const f = unary();
      return (i) => !f(i);
    }
    if (peek()?.text === '(') {
      p++;
      const f = or();
      expect(')');
      return f;
    }
    const tok = t[p++];
    if (!tok || tok.kind !== 'id') throw invalidQuery('Expected a field.');
    const get = column(tok.text);
    if (kw('IN')) {
      p++;
      expect('(');
      const values = [literal()];
      while (peek()?.text === ',') {
        p++;
        values.push(literal());
      }
      expect(')');
      return (i) => values.some((v) => compare(get(i), v) === 0);
    }
    const op = t[p++];
    if (!op || op.kind !== 'op') throw invalidQuery('Expected a comparison.');
    const v = literal();
    const test: Record<string, (c: number) => boolean> = { '=': (c) => c === 0, '<>': (c) => c !== 0, '!=': (c) => c !== 0, '>': (c) => c > 0, '<': (c) => c < 0, '>=': (c) => c >= 0, '<=': (c) => c <= 0 };
    const f = test[op.text];
    if (!f) throw invalidQuery(`Unknown operator ${op.text}.`);
    return (i) => f(compare(get(i), v));
  };
  const pred = or();
  if (p !== t.length) throw invalidQuery(`Unexpected "${t[p]!.text}".`);
  return pred;
}

/** Splits on commas outside parentheses and quotes. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
    else if (!quoted && depth === 0 && c === ',') {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

export interface CompiledQuery {
  record: string;
  /** Matching rows, in the answer's order. */
  rows: Int32Array;
  project(i: number): Record<string, unknown>;
  ordered: boolean;
}

/** The company's records as tables a query reads. */
function tableOf(company: NetSuiteCompany, record: string, alias: string | undefined, joins: string): Table {
    const simple = <T extends Record<string, unknown>>(rows: T[], columns: Record<string, ColumnType>): Table => ({
      record,
      size: rows.length,
      columns,
      get: (i, c) => (rows[i]![c] as Value) ?? null,
    });
    if (joins && record !== 'transactionaccountingline') throw invalidQuery(`Joins of ${record} are not supported here.`);
    switch (record) {
      case 'currency':
        return simple(company.currencies, { id: 'id', symbol: 'text', name: 'text' });
      case 'subsidiary':
        return simple(company.subsidiaries, { id: 'id', name: 'text', parent: 'id', currency: 'id', iselimination: 'flag', isinactive: 'flag' });
      case 'account':
        return simple(
          company.accounts.map((a) => ({ ...a, accountsearchdisplaynamecopy: a.name, fullname: a.name, parent: null, isinactive: 'F', lastmodifieddate: suiteQlTimestamp(company.accountModifiedAt.get(a.id) ?? company.seededAt) })),
          { id: 'id', acctnumber: 'text', accountsearchdisplaynamecopy: 'text', fullname: 'text', accttype: 'text', parent: 'id', isinactive: 'flag', lastmodifieddate: 'date' },
        );
      case 'accountingperiod':
        return simple(company.periods, { id: 'id', periodname: 'text', startdate: 'date', enddate: 'date', isquarter: 'flag', isyear: 'flag', isadjust: 'flag', closed: 'flag' });
      case 'transaction':
        return simple(company.transactions(), { id: 'id', postingperiod: 'id', trandate: 'date', lastmodifieddate: 'date', posting: 'flag' });
      case 'accountingbook':
        return simple(company.accountingBooks, { id: 'id', name: 'text', isprimary: 'flag' });
      case 'consolidatedexchangerate':
        return simple(company.rates, { id: 'id', postingperiod: 'id', fromsubsidiary: 'id', tosubsidiary: 'id', fromcurrency: 'id', tocurrency: 'id', currentrate: 'rate', averagerate: 'rate', historicalrate: 'rate', accountingbook: 'id' });
      case 'transactionaccountingline': {
        const want = `INNER JOIN transaction t ON t.id = ${alias}.transaction INNER JOIN transactionline tl ON tl.transaction = ${alias}.transaction AND tl.id = ${alias}.transactionline`;
        if (joins && joins.replace(/\s+/g, ' ').trim().toLowerCase() !== want.toLowerCase()) throw invalidQuery(`Unsupported join: ${joins}`);
        const L = company.lines;
        const a = alias ?? 'transactionaccountingline';
        const cols: Record<string, [ColumnType, (i: number) => Value]> = {
          [`${a}.transaction`]: ['id', (i) => L.tx[i]!],
          [`${a}.transactionline`]: ['id', (i) => L.line[i]!],
          [`${a}.posting`]: ['flag', (i) => (L.posting[i] ? 'T' : 'F')],
          [`${a}.accountingbook`]: ['id', (i) => L.book[i]!],
          [`${a}.account`]: ['id', (i) => L.account[i]!],
          [`${a}.debit`]: ['amount', (i) => (L.credit[i] ? null : L.cents[i]!)],
          [`${a}.credit`]: ['amount', (i) => (L.credit[i] ? L.cents[i]! : null)],
          [`${a}.amount`]: ['amount', (i) => (L.credit[i] ? -L.cents[i]! : L.cents[i]!)],
        };
        if (joins) {
          Object.assign(cols, {
            't.id': ['id', (i: number) => L.tx[i]!],
            't.postingperiod': ['id', (i: number) => L.period[i]!],
            't.posting': ['flag', (i: number) => (L.posting[i] ? 'T' : 'F')],
            'tl.transaction': ['id', (i: number) => L.tx[i]!],
            'tl.id': ['id', (i: number) => L.line[i]!],
            'tl.subsidiary': ['id', (i: number) => L.sub[i]!],
            // Intercompany lines: the paired subsidiary, and the Eliminate box NetSuite ticks with it.
            'tl.duetofromsubsidiary': ['id', (i: number) => L.duefrom[i] || null],
            'tl.eliminate': ['flag', (i: number) => (L.duefrom[i] ? 'T' : 'F')],
          });
        }
        return {
          record,
          size: L.size,
          columns: Object.fromEntries(Object.entries(cols).map(([k, [t]]) => [k, t])),
          get: (i, c) => cols[c]![1](i),
        };
      }
      default:
        throw invalidQuery(`Record '${record}' was not found.`);
    }
  }


/** Runs SuiteQL queries against one company, each parsed once (cached by its text: a page request runs it once). */
export class SuiteQl {
  private readonly cache = new Map<string, CompiledQuery>();
  constructor(private readonly company: NetSuiteCompany) {}

  /** Forgets the compiled queries (the company's lines changed). */
  clear(): void {
    this.cache.clear();
  }

  /** Parses and runs a query. */
  compile(q: string): CompiledQuery {
    const text = q.replace(/\s+/g, ' ').trim();
    const cached = this.cache.get(text);
    if (cached) return cached;
    const m = /^SELECT (.+?) FROM (.+?)(?: WHERE (.+?))?(?: ORDER BY (.+?))?$/i.exec(text);
    if (!m) throw invalidQuery('The query must be SELECT ... FROM ... [WHERE ...] [ORDER BY ...].');
    const [, selectList, fromPart, where, orderBy] = m as unknown as [string, string, string, string | undefined, string | undefined];
    const from = /^(\w+)(?: (?!INNER\b|LEFT\b|JOIN\b)(\w+))?(.*)$/i.exec(fromPart.trim())!;
    const record = from[1]!.toLowerCase();
    const alias = from[2]?.toLowerCase();
    const table = tableOf(this.company, record, alias, from[3]!.trim());
    const column = (name: string): ((i: number) => Value) => {
      let n = name.toLowerCase();
      if (!(n in table.columns) && alias && n.startsWith(`${alias}.`) && n.slice(alias.length + 1) in table.columns) n = n.slice(alias.length + 1);
      if (!(n in table.columns) && alias && `${alias}.${n}` in table.columns) n = `${alias}.${n}`;
      if (!(n in table.columns)) throw invalidQuery(`Search error occurred: Field '${name}' for record '${record}' was not found.`);
      return (i) => table.get(i, n);
    };
    const typeOf = (name: string): ColumnType => {
      const n = name.toLowerCase();
      return table.columns[n] ?? table.columns[`${alias}.${n}`] ?? table.columns[n.slice((alias?.length ?? -1) + 1)] ?? 'text';
    };
    const outputs = splitTop(selectList).map((item) => {
      const as = /^(.+?)\s+AS\s+(\w+)$/i.exec(item);
      const expr = (as ? as[1]! : item).trim();
      const toChar = /^TO_CHAR\(\s*([\w.]+)\s*,\s*'([^']+)'\s*\)$/i.exec(expr);
      if (toChar) {
        if (toChar[2] !== 'YYYY-MM-DD' && toChar[2] !== 'YYYY-MM') throw invalidQuery(`Unsupported format ${toChar[2]}.`);
        const get = column(toChar[1]!);
        const len = toChar[2]!.length;
        return { name: (as?.[2] ?? toChar[1]!.split('.').pop()!).toLowerCase(), get: (i: number) => (get(i) === null ? null : String(get(i)).slice(0, len)), type: 'text' as ColumnType };
      }
      if (!/^[\w.]+$/.test(expr)) throw invalidQuery(`Unsupported expression ${expr}.`);
      const get = column(expr);
      return { name: (as?.[2] ?? expr.split('.').pop()!).toLowerCase(), get, type: typeOf(expr) };
    });
    let predicate: Predicate = () => true;
    if (where) predicate = parseWhere(where, column);
    const matches: number[] = [];
    for (let i = 0; i < table.size; i++) if (predicate(i)) matches.push(i);
    if (orderBy) {
      const keys = splitTop(orderBy).map((k) => {
        const [name, dir] = k.split(/\s+/);
        const get = column(name!);
        return { get, sign: dir?.toUpperCase() === 'DESC' ? -1 : 1 };
      });
      matches.sort((x, y) => {
        for (const k of keys) {
          const a = k.get(x);
          const b = k.get(y);
          const c = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
          if (c) return c * k.sign;
        }
        return 0;
      });
    }
    const project = (i: number): Record<string, unknown> => {
      const item: Record<string, unknown> = { links: [] };
      for (const o of outputs) {
        const v = o.get(i);
        if (v === null) continue; // NetSuite leaves empty fields out
        if (o.type === 'amount') item[o.name] = Number(v) / 100;
        else item[o.name] = String(v);
      }
      return item;
    };
    const compiled: CompiledQuery = { record, rows: Int32Array.from(matches), project, ordered: !!orderBy };
    if (this.cache.size > 16) this.cache.clear();
    this.cache.set(text, compiled);
    return compiled;
  }
}
