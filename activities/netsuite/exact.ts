// Exact numbers from NetSuite's answers: JSON read with every number kept as its own text (an
// amount never passes through a double), and decimal text parsed to and from integer units.

/**
 * JSON.parse, except that every number becomes the string of its exact digits. Numbers appear in
 * JSON only outside strings, so quoting them there changes nothing else; a malformed document
 * still fails JSON.parse.
 */
export function parseJsonExact(text: string): unknown {
  const parts: string[] = [];
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else if (d === 34) {
          i++;
          break;
        } else i++;
      }
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        // digits . e E + -
        if ((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) j++;
        else break;
      }
      parts.push(text.slice(last, i), '"', text.slice(i, j), '"');
      last = i = j;
      continue;
    }
    i++;
  }
  parts.push(text.slice(last));
  return JSON.parse(parts.join(''));
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Decimal text ("-1234.5") as integer units of 10^-scale; null when it is not a plain decimal or has more places than `scale`. */
export function toUnits(text: string, scale: number): bigint | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const frac = m[3] ?? '';
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) return null;
  const units = BigInt(m[2]! + frac.slice(0, scale).padEnd(scale, '0'));
  return m[1] ? -units : units;
}

/** Integer units back to decimal text, at least `minPlaces` places, trailing zeros beyond them dropped. */
export function fromUnits(units: bigint, scale: number, minPlaces = 2): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  let frac = digits.slice(digits.length - scale);
  while (frac.length > minPlaces && frac.endsWith('0')) frac = frac.slice(0, -1);
  return `${negative && /[1-9]/.test(digits) ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** Decimal text rounded half-even to `scale` places (rates: NetSuite may carry more places than the consolidation keeps); null when not a decimal. */
export function roundDecimal(text: string, scale: number): string | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const frac = m[3] ?? '';
  if (frac.length <= scale) return fromUnits(toUnits(text, scale)!, scale, 0);
  let units = BigInt(m[2]! + frac.slice(0, scale));
  const rest = frac.slice(scale);
  const first = Number(rest[0]);
  const beyond = /[1-9]/.test(rest.slice(1));
  if (first > 5 || (first === 5 && (beyond || units % 2n === 1n))) units += 1n;
  return fromUnits(m[1] ? -units : units, scale, 0);
}
