// Figures of the Dashboard overview for people. The api answers exact decimal text; these keep
// it exact (no floating point) for the tables and the charts' labels.
import type { OverviewAnswer } from './api/overview';

const DECIMAL_RE = /^(-?)(\d+)(?:\.(\d+))?$/;

/** "1234.5" -> "1,234.50"; `decimals` 0 rounds half away from zero ("-1234.5" -> "-1,235"). Text that is not a number comes back as it is. */
export function amountText(value: string | null | undefined, decimals = 2): string {
  if (value === null || value === undefined) return '—';
  const m = DECIMAL_RE.exec(value.trim());
  if (!m) return value;
  const [, sign, int, frac = ''] = m;
  let whole = BigInt(int!);
  let digits = frac.padEnd(decimals, '0');
  if (digits.length > decimals) {
    const up = Number(digits[decimals]) >= 5;
    let kept = BigInt(`${whole}${digits.slice(0, decimals)}`) + (up ? 1n : 0n);
    const scale = 10n ** BigInt(decimals);
    whole = kept / scale;
    kept %= scale;
    digits = decimals ? kept.toString().padStart(decimals, '0') : '';
  }
  const zero = whole === 0n && /^0*$/.test(digits);
  const grouped = whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${zero ? '' : sign}${grouped}${decimals ? `.${digits}` : ''}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "2026-01" -> "Jan 2026". */
export const shortMonth = (period: string): string => `${MONTHS[Number(period.slice(5, 7)) - 1] ?? period.slice(5, 7)} ${period.slice(0, 4)}`;

const isZero = (v: string) => /^-?0*(\.0*)?$/.test(v);

/** What the contribution is made of, by name: each entity, then eliminations and the NCI share where they are not zero. */
export function contributionRows(c: OverviewAnswer['contribution']): { label: string; value: string }[] {
  return [
    ...c.entities.map((e) => ({ label: e.entityName, value: e.profit })),
    ...(isZero(c.eliminations) ? [] : [{ label: 'Eliminations', value: c.eliminations }]),
    ...(isZero(c.nci) ? [] : [{ label: 'Non-controlling interests', value: c.nci }]),
    ...(!c.adjustments || isZero(c.adjustments) ? [] : [{ label: 'Adjustments', value: c.adjustments }]),
  ];
}
