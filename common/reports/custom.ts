// Custom report layouts: lines made of group accounts or statement groups, subtotals of lines
// above, and formula lines over lines above (gross margin = revenue - cost_of_sales, gross
// margin % = gross_margin / revenue). Evaluated exactly (fractions of BigInts), rounded
// half-even at the end: amounts to the cent, percentages to 0.1. A formula dividing by zero
// leaves its figure empty with a message naming the line; a layout naming an unknown line,
// account or group is refused with a message.
import { divHalfEven, formatFixed, gcd } from '../consolidation/decimal';
import type { GroupAccount } from '../consolidation/types';
import { displaySign, type ReportColumn, type ReportRow, type Statement, type ValueColumn, variancePct, centsText } from './statements';

export const LINE_KINDS = ['accounts', 'subtotal', 'formula'] as const;
export interface CustomLine {
  /** Formulas name lines by id: a-z, digits, underscore. */
  id: string;
  label: string;
  kind: (typeof LINE_KINDS)[number];
  /** accounts: group account codes and statement groups (a line path or its start, e.g. "Income > Revenue"). */
  accounts?: string[];
  groups?: string[];
  /** subtotal: ids of lines above. */
  of?: string[];
  /** formula: over ids of lines above, numbers, + - * / and parentheses. */
  formula?: string;
  format?: 'amount' | 'percent';
}
export interface CustomLayout {
  name: string;
  lines: CustomLine[];
}

export const LINE_ID_RE = /^[a-z][a-z0-9_]{0,39}$/;

// --- formulas -------------------------------------------------------------------------------
type Ast = { num: Frac } | { ref: string } | { neg: Ast } | { op: '+' | '-' | '*' | '/'; a: Ast; b: Ast; text: string };
interface Frac {
  n: bigint;
  d: bigint;
}

export class FormulaError extends Error {}

const TOKEN_RE = /\s*(?:(\d+(?:\.\d+)?)|([a-z][a-z0-9_]*)|([-+*/()]))/y;

/** Parses a formula; throws FormulaError with a message for people. */
export function parseFormula(text: string): Ast {
  const tokens: string[] = [];
  TOKEN_RE.lastIndex = 0;
  const src = text.trim();
  while (TOKEN_RE.lastIndex < src.length) {
    const at = TOKEN_RE.lastIndex;
    const m = TOKEN_RE.exec(src);
    if (!m) throw new FormulaError(`"${src.slice(at).trim().slice(0, 20)}" is not a line id, a number or one of + - * / ( )`);
    tokens.push(m[0].trim());
  }
  if (!tokens.length) throw new FormulaError('The formula is empty');
  let i = 0;
  const peek = () => tokens[i];
  const expr = (): Ast => {
    let a = term();
    while (peek() === '+' || peek() === '-') {
      const start = i;
      const op = tokens[i++] as '+' | '-';
      const b = term();
      a = { op, a, b, text: tokens.slice(start + 1, i).join(' ') };
    }
    return a;
  };
  const term = (): Ast => {
    let a = factor();
    while (peek() === '*' || peek() === '/') {
      const start = i;
      const op = tokens[i++] as '*' | '/';
      const b = factor();
      a = { op, a, b, text: tokens.slice(start + 1, i).join(' ') };
    }
    return a;
  };
  const factor = (): Ast => {
    const t = tokens[i++];
    if (t === undefined) throw new FormulaError('The formula ends too early');
    if (t === '-') return { neg: factor() };
    if (t === '(') {
      const a = expr();
      if (tokens[i++] !== ')') throw new FormulaError('A "(" is not closed');
      return a;
    }
    if (/^\d/.test(t)) {
      const [w, f = ''] = t.split('.');
      return { num: { n: BigInt(w! + f), d: 10n ** BigInt(f.length) } };
    }
    if (/^[a-z]/.test(t)) return { ref: t };
    throw new FormulaError(`"${t}" is out of place`);
  };
  const ast = expr();
  if (i < tokens.length) throw new FormulaError(`"${tokens[i]}" is out of place`);
  return ast;
}

function refs(a: Ast, into: Set<string> = new Set()): Set<string> {
  if ('ref' in a) into.add(a.ref);
  else if ('neg' in a) refs(a.neg, into);
  else if ('op' in a) {
    refs(a.a, into);
    refs(a.b, into);
  }
  return into;
}

const norm = (n: bigint, d: bigint): Frac => {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
};

class DivisionByZero extends Error {
  constructor(readonly divisor: string) {
    super(divisor);
  }
}

function evaluate(a: Ast, value: (id: string) => Frac | null): Frac | null {
  if ('num' in a) return a.num;
  if ('ref' in a) return value(a.ref);
  if ('neg' in a) {
    const v = evaluate(a.neg, value);
    return v && { n: -v.n, d: v.d };
  }
  const x = evaluate(a.a, value);
  const y = evaluate(a.b, value);
  if (!x || !y) return null;
  switch (a.op) {
    case '+':
      return norm(x.n * y.d + y.n * x.d, x.d * y.d);
    case '-':
      return norm(x.n * y.d - y.n * x.d, x.d * y.d);
    case '*':
      return norm(x.n * y.n, x.d * y.d);
    case '/':
      if (y.n === 0n) throw new DivisionByZero(a.text);
      return norm(x.n * y.d, x.d * y.n);
  }
}

/** n/d scaled by 10^scale, rounded half-even (a fraction's denominator is positive: norm() keeps it so). */
const roundFrac = (f: Frac, scale: bigint): bigint => divHalfEven(f.n * scale, f.d);

// --- layouts --------------------------------------------------------------------------------
const inGroup = (line: string, group: string) => {
  const l = line.split('>').map((s) => s.trim()).join(' > ');
  const g = group.split('>').map((s) => s.trim()).join(' > ');
  return l === g || l.startsWith(`${g} > `);
};

/** What is wrong with a layout against the group chart (empty when it is fine). */
export function checkLayout(layout: CustomLayout, chart: GroupAccount[]): string[] {
  const problems: string[] = [];
  const codes = new Set(chart.map((a) => a.code));
  const seen = new Map<string, string>();
  if (!layout.lines.length) problems.push('A report needs at least one line');
  for (const [i, l] of layout.lines.entries()) {
    const where = `Line ${i + 1} (${l.label || l.id})`;
    if (!LINE_ID_RE.test(l.id)) problems.push(`${where}: its id "${l.id}" must start with a letter and use only a-z, digits and _`);
    else if (seen.has(l.id)) problems.push(`${where}: the id "${l.id}" is already used by "${seen.get(l.id)}"`);
    const above = new Set(seen.keys());
    if (l.kind === 'accounts') {
      const unknown = (l.accounts ?? []).filter((c) => !codes.has(c));
      if (unknown.length) problems.push(`${where}: unknown group account${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
      const empty = (l.groups ?? []).filter((g) => !chart.some((a) => inGroup(a.line, g)));
      if (empty.length) problems.push(`${where}: no group account is in ${empty.map((g) => `"${g}"`).join(', ')}`);
      if (!(l.accounts?.length || l.groups?.length)) problems.push(`${where}: choose group accounts or statement groups`);
    } else if (l.kind === 'subtotal') {
      if (!l.of?.length) problems.push(`${where}: choose the lines it adds up`);
      const bad = (l.of ?? []).filter((id) => !above.has(id));
      if (bad.length) problems.push(`${where}: adds up ${bad.map((b) => `"${b}"`).join(', ')}, which ${bad.length > 1 ? 'are not lines' : 'is not a line'} above it`);
    } else {
      try {
        const bad = [...refs(parseFormula(l.formula ?? ''))].filter((id) => !above.has(id));
        if (bad.length) problems.push(`${where}: the formula names ${bad.map((b) => `"${b}"`).join(', ')}, which ${bad.length > 1 ? 'are not lines' : 'is not a line'} above it`);
      } catch (e) {
        problems.push(`${where}: ${(e as Error).message}`);
      }
    }
    if (LINE_ID_RE.test(l.id) && !seen.has(l.id)) seen.set(l.id, l.label || l.id);
  }
  return problems;
}

/** A checked layout's figures over the value columns (and variance columns like the statements). */
export function buildCustom(layout: CustomLayout, chart: GroupAccount[], columns: ValueColumn[], opts: { variance?: { current: number; base: number } } = {}): Statement {
  const labels = new Map(layout.lines.map((l) => [l.id, l.label || l.id]));
  // Per line, per column: the exact value in currency units (amount lines are cents / 100).
  const values = new Map<string, (Frac | null)[]>();
  const rows: ReportRow[] = [];
  const cols: ReportColumn[] = columns.map((c) => ({ key: c.key, label: c.label, format: 'amount' }));
  const v = opts.variance;
  if (v) cols.push({ key: 'variance', label: 'Variance', format: 'amount' }, { key: 'variancePct', label: 'Variance %', format: 'percent' });
  for (const l of layout.lines) {
    const notes: string[] = [];
    let vals: (Frac | null)[];
    if (l.kind === 'accounts') {
      const chosen = chart.filter((a) => (l.accounts ?? []).includes(a.code) || (l.groups ?? []).some((g) => inGroup(a.line, g)));
      vals = columns.map((c) => ({ n: chosen.reduce((s, a) => s + (c.nets.get(a.code) ?? 0n) * displaySign(a.type), 0n), d: 100n }));
    } else if (l.kind === 'subtotal') {
      vals = columns.map((_, i) => (l.of ?? []).reduce<Frac | null>((s, id) => {
        const x = values.get(id)?.[i] ?? null;
        return s && x ? norm(s.n * x.d + x.n * s.d, s.d * x.d) : null;
      }, { n: 0n, d: 1n }));
    } else {
      const ast = parseFormula(l.formula ?? '');
      vals = columns.map((c, i) => {
        try {
          return evaluate(ast, (id) => values.get(id)?.[i] ?? null);
        } catch (e) {
          if (!(e instanceof DivisionByZero)) throw e;
          const by = labels.get(e.divisor) ?? e.divisor;
          notes.push(`${c.label}: ${l.label || l.id} divides by ${labels.has(e.divisor) ? `"${by}"` : `(${by})`}, which is zero`);
          return null;
        }
      });
    }
    values.set(l.id, vals);
    const percent = l.format === 'percent';
    const text = (f: Frac | null) => (f === null ? null : percent ? formatFixed(roundFrac(f, 1000n), 1) : formatFixed(roundFrac(f, 100n), 2));
    const out = vals.map(text);
    if (v) {
      const cur = vals[v.current];
      const base = vals[v.base];
      if (percent) {
        // Percentage points between the two percentages; a variance % of a percentage means little.
        out.push(cur && base ? formatFixed(roundFrac(norm(cur.n * base.d - base.n * cur.d, cur.d * base.d), 1000n), 1) : null, null);
      } else {
        const cc = cur ? roundFrac(cur, 100n) : null;
        const bc = base ? roundFrac(base, 100n) : null;
        out.push(cc !== null && bc !== null ? centsText(cc - bc) : null, cc !== null && bc !== null ? variancePct(cc, bc) : null);
      }
    }
    rows.push({ kind: l.kind === 'accounts' ? 'account' : l.kind, label: l.label || l.id, depth: l.kind === 'accounts' ? 1 : 0, values: out, ...(notes.length ? { notes } : {}), ...(percent ? { format: 'percent' as const } : {}) });
  }
  return { columns: cols, rows };
}
