// The table a CSV is saved to: checked by the api before anything is stored and by the loader.
import { messages, tableName as tableNameRule } from '../validation';
import { CsvInputError } from './errors';

/** Table names: the spec's rule, and never a name the product (or SQLite) keeps for its own tables. */
export function checkTableName(name: string): string {
  const parsed = tableNameRule.safeParse(name);
  if (!parsed.success) throw new CsvInputError(parsed.error.issues[0]?.message ?? messages.tableName);
  return parsed.data;
}
