// Mapping suggestions for unmapped source accounts, each with its reason: the same code as a
// group account, else the same name and type, else the closest name within the type.
import type { AccountType, GroupAccount } from './types';

export interface SourceAccount {
  entity: string;
  account: string;
  name: string | null;
  type: AccountType | null;
}
export interface Suggestion {
  entity: string;
  sourceAccount: string;
  groupAccount: string;
  reason: string;
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

export function suggestMappings(sources: SourceAccount[], chart: GroupAccount[]): Suggestion[] {
  const postable = chart.filter((a) => a.role === null || a.role === 'retained_earnings');
  const byCode = new Map(postable.map((a) => [a.code, a]));
  const out: Suggestion[] = [];
  for (const s of sources) {
    const same = byCode.get(s.account);
    if (same) {
      out.push({ entity: s.entity, sourceAccount: s.account, groupAccount: same.code, reason: 'same code' });
      continue;
    }
    if (!s.name) continue;
    const candidates = s.type ? postable.filter((a) => a.type === s.type) : postable;
    const exact = candidates.find((a) => norm(a.name) === norm(s.name!));
    if (exact) {
      out.push({ entity: s.entity, sourceAccount: s.account, groupAccount: exact.code, reason: s.type ? 'same name and type' : 'same name' });
      continue;
    }
    let best: { a: GroupAccount; score: number } | null = null;
    for (const a of candidates) {
      const score = similarity(s.name, a.name);
      if (!best || score > best.score) best = { a, score };
    }
    if (best && best.score >= MIN_SIMILARITY) out.push({ entity: s.entity, sourceAccount: s.account, groupAccount: best.a.code, reason: `closest name${s.type ? ` within ${s.type}` : ''} (${Math.round(best.score * 100)} % alike)` });
  }
  return out;
}
