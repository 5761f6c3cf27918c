// The fixed-point helpers the consolidation's money rests on.
import { divHalfEven, divHalfEvenByEven, formatFixed, fromStored, gcd, parseDecimal, toStored } from '../../common/consolidation/decimal';

it('rounds half to even, for positive and negative values', () => {
  expect([5n, 15n, 25n, -5n, -15n, -25n, 14n, 16n, -14n, -16n].map((n) => divHalfEven(n, 10n))).toEqual([0n, 2n, 2n, 0n, -2n, -2n, 1n, 2n, -1n, -2n]);
});

it('rounds half to even with one division by an even divisor (the engine\'s cents), as divHalfEven does', () => {
  // By hand, by 10 (half 5): 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, their negatives alike, 1.4 -> 1, 1.6 -> 2.
  expect([5n, 15n, 25n, -5n, -15n, -25n, 14n, 16n, -14n, -16n, 0n].map((n) => divHalfEvenByEven(n, 10n, 5n))).toEqual([0n, 2n, 2n, 0n, -2n, -2n, 1n, 2n, -1n, -2n, 0n]);
  // The engine's own divisor (10^26: exact figures at 28 decimals to cents), at and beside each tie, and the products of random lines.
  const d = 10n ** 26n;
  const values: bigint[] = [];
  for (const k of [0n, 1n, 2n, 3n, 12345n, -1n, -2n, -3n, -12345n]) values.push(k * d + d / 2n, k * d + d / 2n - 1n, k * d + d / 2n + 1n, k * d - d / 2n, k * d);
  for (let i = 0; i < 2000; i++) values.push(BigInt(Math.floor((Math.random() * 2 - 1) * 2 ** 40)) * 1234567890123n * 10n ** 12n);
  for (const n of values) expect({ n, q: divHalfEvenByEven(n, d, d / 2n) }).toEqual({ n, q: divHalfEven(n, d) });
});

it('parses decimals exactly and refuses what is not one', () => {
  expect(parseDecimal('1234.5', 4)).toBe(12345000n);
  expect(parseDecimal('-0.0001', 4)).toBe(-1n);
  expect(parseDecimal('1.23450', 4)).toBe(12345n);
  expect([parseDecimal('1.23456', 4), parseDecimal('1,234', 4), parseDecimal('1e3', 4), parseDecimal('', 4)]).toEqual([null, null, null, null]);
});

it('stores a fixed-point value as the double nearest its decimal figure, and reads it back exactly', () => {
  const values = [0n, 1n, -1n, 5n, 10n, 123456789n, -987654321012n, 2n ** 53n - 1n, -(2n ** 53n) + 1n, 2n ** 60n];
  for (let i = 0; i < 2000; i++) values.push(BigInt(Math.floor((Math.random() * 2 - 1) * 2 ** 52)));
  for (const v of values) {
    for (const scale of [2, 4]) {
      expect({ v, scale, stored: toStored(v, scale) }).toEqual({ v, scale, stored: Number(formatFixed(v, scale)) });
      if (v < 2n ** 49n && v > -(2n ** 49n)) expect(fromStored(toStored(v, scale), scale)).toBe(v);
    }
  }
});

test('gcd: non-negative whatever the signs, and gcd(x, 0) is |x| (the exact fractions reduce by it)', () => {
  // By hand: 84 = 2^2 x 3 x 7, 36 = 2^2 x 3^2: gcd 12; 10^12 and 10^14 x 3: 10^12.
  expect(gcd(84n, 36n)).toBe(12n);
  expect(gcd(-84n, 36n)).toBe(12n);
  expect(gcd(84n, -36n)).toBe(12n);
  expect(gcd(-84n, -36n)).toBe(12n);
  expect(gcd(10n ** 12n, 3n * 10n ** 14n)).toBe(10n ** 12n);
  expect(gcd(-7n, 0n)).toBe(7n);
  expect(gcd(0n, 0n)).toBe(0n);
});
