// Columns that hold codes, not quantities: an account, a budget's or a ledger's code ("4000"), an
// account number, a reference. A CSV loader types "4000" as a number; the data explorer reads such
// a column as text (warehouse/catalog/tables.ts columnKind) and shows its values as written, never
// "4,000" (web/src/features/explorer/cell-format.ts). Pure.

/** The words a code column's name ends with ("account", "gl_account", "account_code", "AccountNumber", "cost_center_code"). */
const CODE_WORDS = new Set(['account', 'acct', 'code', 'codes', 'gl', 'no', 'num', 'number', 'ref', 'reference', 'sku', 'zip', 'postcode', 'realm']);

/** The words of a column name: snake_case, kebab-case, spaces and camelCase split, lower-cased. */
const words = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** Whether a column's name says it holds codes (its last word is one of CODE_WORDS). */
export function isCodeColumn(name: string): boolean {
  return CODE_WORDS.has(words(name).at(-1) ?? '');
}
