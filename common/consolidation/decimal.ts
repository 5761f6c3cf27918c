// Exact money for the consolidation: fixed-point BigInt, never binary floating point.
//   local amounts      units of 1/10,000 (AMOUNT_SCALE 4, as trial_balance sums them)
//   presentation       cents (PRESENTATION_SCALE 2), rounded once, half-even, at the line
//   rates, shares      units of 1e-12 (RATE_SCALE 12; ../shared/DOMAIN.md asks for at least 6
//                      decimals, issue 29 for 12: NetSuite's consolidated rates carry 12)
// Pure: no imports, so the api, the worker and the web app can all use it.

export const AMOUNT_SCALE = 4;
export const PRESENTATION_SCALE = 2;
export const RATE_SCALE = 12;

/** 10^n, made once per n (no BigInt made per call: the checks run on every line of a consolidation). */
const POW10: bigint[] = [];
const pow10 = (n: number): bigint => (POW10[n] ??= 10n ** BigInt(n));
export const ONE_RATE = pow10(RATE_SCALE);

/**
 * The bounds of what the consolidation takes and stores. An amount is below 10^15 in its currency
 * (Azure SQL's decimal(19,4) has 15 integer digits; SQLite's REAL would turn more into an
 * inexact or infinite figure, and a cents view over it into a wrapped 64-bit integer). A rate is
 * below 10^9 (the widest real pairs are about 10^5) with at most RATE_SCALE decimals.
 */
export const AMOUNT_DIGITS = 15;
export const AMOUNT_LIMIT_TEXT = '1,000,000,000,000,000';
export const RATE_LIMIT = pow10(9) * ONE_RATE;
export const RATE_LIMIT_TEXT = '1,000,000,000';
/** True when |value| (units of 10^-scale) is below the amount bound. */
export const withinAmountLimit = (value: bigint, scale: number): boolean => {
  const bound = pow10(AMOUNT_DIGITS + scale);
  return value < bound && (NEGATIVE[scale] ??= -bound) < value;
};
/** -10^(AMOUNT_DIGITS + scale) by scale (comparing with it makes no BigInt, as negating the value would). */
const NEGATIVE: bigint[] = [];

/** A plain decimal: sign, integer digits, decimals (no exponent, no thousands separator). */
export const DECIMAL_RE = /^([+-])?(\d+)(?:\.(\d+))?$/;

/** Parses a decimal text ("1,234.5" is refused; "1234.5", "-0.25", "+3" are fine) into units of 10^-scale; null when it is not a number or has more decimals than the scale holds. */
export function parseDecimal(text: string, scale: number): bigint | null {
  const m = DECIMAL_RE.exec(text.trim());
  if (!m) return null;
  const frac = m[3] ?? '';
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) return null;
  const digits = BigInt(m[2]! + frac.slice(0, scale).padEnd(scale, '0'));
  return m[1] === '-' ? -digits : digits;
}

/**
 * A stored amount (SQLite REAL holding an exact 4-decimal figure, as trial_balance writes it;
 * or a decimal text from Azure SQL) into units of 10^-scale. Doubles are rounded at the scale,
 * which gives back the exact figure for |x| below about 9e11.
 */
export function fromStored(value: number | string | bigint | null | undefined, scale = AMOUNT_SCALE): bigint {
  if (value === null || value === undefined || value === '') return 0n;
  if (typeof value === 'bigint') return value * pow10(scale);
  if (typeof value === 'string') {
    const p = parseDecimal(value, scale);
    if (p === null) throw new Error(`not a decimal amount: ${value}`);
    return p;
  }
  if (!Number.isFinite(value)) throw new Error(`not a finite amount: ${value}`);
  return BigInt(Math.round(value * 10 ** scale));
}

/**
 * n / d rounded half to even, for an even d whose half is given (a constant divisor's, made
 * once): divHalfEven's figure with one division instead of two, for the engine's line by line
 * rounding (756,000 lines at 21 entities). Half to even is symmetric, so |n| is rounded half up
 * (one division) and the tie, when the sum divides exactly, goes back to the even neighbour.
 */
export function divHalfEvenByEven(n: bigint, d: bigint, half: bigint): bigint {
  const negative = n < 0n;
  const s = (negative ? -n : n) + half;
  let q = s / d;
  if ((q & 1n) === 1n && q * d === s) q -= 1n;
  return negative ? -q : q;
}

/** n / d rounded half to even (banker's rounding); d > 0. */
export function divHalfEven(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new Error('divHalfEven: divisor must be positive');
  let q = n / d;
  let r = n % d;
  if (r < 0n) {
    // BigInt division truncates toward zero: normalise to floor division first.
    q -= 1n;
    r += d;
  }
  const twice = 2n * r;
  if (twice > d || (twice === d && q % 2n !== 0n)) q += 1n;
  return q;
}

/** Fixed-point to text with all its decimals ("-12.3400" for scale 4). */
export function formatFixed(value: bigint, scale: number): string {
  const neg = value < 0n;
  const digits = (neg ? -value : value).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale);
  return `${neg ? '-' : ''}${int}${scale > 0 ? `.${frac}` : ''}`;
}

/** Fixed-point to the shortest exact text ("-12.34", "5", "0.000125"). */
export function formatTrim(value: bigint, scale: number): string {
  const s = formatFixed(value, scale);
  return scale > 0 ? s.replace(/\.?0+$/, '') || '0' : s;
}

/** A rate applied at a translated line, as stored and shown: "1.1", or "1/0.909090909091" for an indirect quote (the line was divided by it). */
export const rateText = (value: bigint, indirect = false): string => `${indirect ? '1/' : ''}${formatTrim(value, RATE_SCALE)}`;

/**
 * Fixed-point to a JS number for storage in a REAL/decimal column: the double nearest the decimal
 * figure (the integer is exact below 2^53, and IEEE division rounds the exact quotient once, as
 * parsing the decimal text would), without formatting a string per amount.
 */
export function toStored(value: bigint, scale: number): number {
  if (value > MAX_EXACT || value < -MAX_EXACT) return Number(formatFixed(value, scale));
  return Number(value) / 10 ** scale;
}
const MAX_EXACT = 2n ** 53n;

export const abs = (v: bigint): bigint => (v < 0n ? -v : v);
/** The greatest common divisor, non-negative (the exact fractions' reductions: the flows take one per figure). */
export function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  // (No [a, b] = [b, a % b]: that makes an array a step.)
  while (b) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}
export const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
