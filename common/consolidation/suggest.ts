// Mapping suggestions for unmapped source accounts, each with its reason and its confidence.
// A suggestion never crosses account types: a source account of a known type is only ever
// suggested a group account of that type (an asset "Net assets" whose code happens to be the
// group's "Property, plant and equipment" gets no suggestion from the code). In order:
//   same code and type                 high    (the charts share their numbering)
//   same name and type                 high
//   closest name within the type       medium when at least STRONG_SIMILARITY alike, else low
//                                      (nothing below MIN_SIMILARITY)
//   a source account without a type    the same steps over every account, one level lower at
//                                      most medium: its type cannot be checked
// Accepting in bulk takes the BULK_CONFIDENCE ones only; the rest are left for review.
import type { AccountType, GroupAccount } from './types';

export interface SourceAccount {
  entity: string;
  account: string;
  name: string | null;
  type: AccountType | null;
}
export const CONFIDENCES = ['high', 'medium', 'low'] as const;
export type Confidence = (typeof CONFIDENCES)[number];
/** What accepting every suggestion at once takes. */
export const BULK_CONFIDENCE: readonly Confidence[] = ['high'];

export interface Suggestion {
  entity: string;
  sourceAccount: string;
  groupAccount: string;
  reason: string;
  confidence: Confidence;
}

const norm = (s: string) => s.toLowerCase().normalize('NFKD').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const grams = (s: string): Set<string> => {
  const t = ` ${norm(s)} `;
  const out = new Set<string>();
  for (let i = 0; i < t.length - 2; i++) out.add(t.slice(i, i + 3));
  return out;
};
/** Dice coefficient over character trigrams: 1 for the same name, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  const x = grams(a);
  const y = grams(b);
  if (!x.size || !y.size) return 0;
  let both = 0;
  for (const g of x) if (y.has(g)) both++;
  return (2 * both) / (x.size + y.size);
}

/** Below this the closest name is no suggestion at all. */
const MIN_SIMILARITY = 0.3;
/** From this the closest name is a medium-confidence suggestion (below it, low). */
export const STRONG_SIMILARITY = 0.6;

const lower = (c: Confidence): Confidence => (c === 'high' ? 'medium' : 'low');

export function suggestMappings(sources: SourceAccount[], chart: GroupAccount[]): Suggestion[] {
  const postable = chart.filter((a) => a.role === null || a.role === 'retained_earnings');
  const out: Suggestion[] = [];
  for (const s of sources) {
    // Only the source's own type (every account when the source says none).
    const candidates = s.type ? postable.filter((a) => a.type === s.type) : postable;
    const typed = (c: Confidence) => (s.type ? c : lower(c));
    const within = s.type ? ` within ${s.type}` : ' (the source account has no type)';
    const suggest = (groupAccount: string, reason: string, confidence: Confidence) => out.push({ entity: s.entity, sourceAccount: s.account, groupAccount, reason, confidence: typed(confidence) });
    const same = candidates.find((a) => a.code === s.account);
    if (same) {
      suggest(same.code, s.type ? 'same code and type' : 'same code (the source account has no type)', 'high');
      continue;
    }
    if (!s.name) continue;
    const exact = candidates.find((a) => norm(a.name) === norm(s.name!));
    if (exact) {
      suggest(exact.code, s.type ? 'same name and type' : 'same name (the source account has no type)', 'high');
      continue;
    }
    let best: { a: GroupAccount; score: number } | null = null;
    for (const a of candidates) {
      const score = similarity(s.name, a.name);
      if (!best || score > best.score) best = { a, score };
    }
    if (best && best.score >= MIN_SIMILARITY) suggest(best.a.code, `closest name${within} (${Math.round(best.score * 100)} % alike)`, best.score >= STRONG_SIMILARITY ? 'medium' : 'low');
  }
  return out;
}
