// "At most 40 characters" means 40 characters: a length rule counts code points, as a person
// counts them and as JSON Schema's minLength/maxLength do (the OpenAPI document shows zod's
// bounds as those), not UTF-16 units as zod's string checks do (an emoji is 2 of them, so 30
// emoji would exceed 40). Imported once by common/validation.ts, which the api and the web app
// load before they parse anything: every zod string's min, max and length checks (api requests,
// forms, the shared contract) then count characters. A check's message and place in the chain
// stay as written.
import { z } from 'zod';

/** The number of characters (code points) of a text. */
export function charCount(v: string): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < v.length) {
      const d = v.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

type Check = { kind: string; value?: number; message?: string };
type Parse = (this: z.ZodString, input: z.ParseInput) => z.ParseReturnType<string>;

const MARK = Symbol.for('ledgerflow.zod-string-counts-characters');
const proto = z.ZodString.prototype as unknown as { _parse: Parse; [MARK]?: true };

if (!proto[MARK]) {
  const original = proto._parse;
  proto._parse = function (this: z.ZodString, input: z.ParseInput) {
    const checks = this._def.checks as Check[];
    if (typeof input.data !== 'string' || !checks.some((c) => c.kind === 'min' || c.kind === 'max' || c.kind === 'length') || !/[\ud800-\udfff]/.test(input.data)) return original.call(this, input);
    // zod runs the checks in order, a trim changing the value the later ones see: the same here.
    let v = input.data as string;
    const counted = checks.map((c) => {
      if (c.kind === 'trim') v = v.trim();
      else if (c.kind === 'min' || c.kind === 'max' || c.kind === 'length') {
        const n = charCount(v);
        // Decided on characters: a passing check is made one that passes whatever the units
        // say; a failing max fails anyway (there are at least as many units as characters); a
        // failing min or length is made one that fails, with the message it would have given.
        const tooShort = (m: string) => ({ ...c, kind: 'min', value: Number.POSITIVE_INFINITY, message: c.message ?? m });
        if (c.kind === 'length') return n === c.value ? { ...c, kind: 'min', value: 0 } : tooShort(`String must contain exactly ${c.value} character(s)`);
        if (c.kind === 'max') return n <= c.value! ? { ...c, value: Number.POSITIVE_INFINITY } : c;
        return n >= c.value! ? { ...c, value: 0 } : tooShort(`String must contain at least ${c.value} character(s)`);
      }
      return c;
    });
    const counting = Object.create(this, { _def: { value: { ...this._def, checks: counted } } }) as z.ZodString;
    return original.call(counting, input);
  };
  proto[MARK] = true;
}
