// One table of warehouse failures (SQLite locally, Azure SQL in production): which ones cannot get
// better by retrying, and what the user is told. Everything else (a busy or locked database, a
// network failure) is thrown as it is, and Temporal retries it.
import { ApplicationFailure } from '@temporalio/common';
// Failure type of a database that cannot take writes (read-only, full, cannot be opened, damaged): the file is kept.
import { WAREHOUSE_UNAVAILABLE } from '../common/failures';

export { WAREHOUSE_UNAVAILABLE } from '../common/failures';

export const READ_ONLY_MESSAGE = "The organization's database cannot be written (read-only): nothing was saved. Ask an admin to check its storage.";
export const FULL_MESSAGE = "The organization's database is out of space: nothing was saved. Ask an admin to free or add storage.";
export const CANNOT_OPEN_MESSAGE = "The organization's database cannot be opened: nothing was saved. Ask an admin to check its storage.";
export const DAMAGED_MESSAGE = "The organization's database file is damaged: nothing was saved. Ask an admin to restore it.";

/** Columns a CSV may have: the provider's columns per table less the two every loaded row carries (_upload_id, _loaded_at). */
export const MAX_CSV_COLUMNS = { local: 2000 - 2, azure: 1024 - 2 } as const;

export const tooManyColumns = (columns: number, max: number) =>
  `The file has ${columns.toLocaleString('en-US')} columns; a table can hold at most ${max.toLocaleString('en-US')}.`;

interface ErrorLike {
  code?: unknown;
  number?: unknown;
  message?: unknown;
  originalError?: { info?: { number?: unknown } };
}

type Verdict = { type: 'ValidationError' | typeof WAREHOUSE_UNAVAILABLE; message: string };

/** SQLite (better-sqlite3's extended result codes) and file system errors. */
function sqliteVerdict(code: string, message: string): Verdict | undefined {
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return { type: WAREHOUSE_UNAVAILABLE, message: READ_ONLY_MESSAGE };
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return { type: WAREHOUSE_UNAVAILABLE, message: FULL_MESSAGE };
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PERM' || code.startsWith('SQLITE_AUTH')) return { type: WAREHOUSE_UNAVAILABLE, message: CANNOT_OPEN_MESSAGE };
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return { type: WAREHOUSE_UNAVAILABLE, message: DAMAGED_MESSAGE };
  if (code === 'SQLITE_TOOBIG') return { type: 'ValidationError', message: 'A row or value of the file is larger than the database takes (1 GB).' };
  if (code.startsWith('SQLITE_CONSTRAINT')) return { type: 'ValidationError', message: 'The database refused a row of the file (a constraint failed): nothing was saved.' };
  if (code === 'SQLITE_ERROR' && /^too many columns/i.test(message)) return { type: 'ValidationError', message: `The file has more columns than a table can hold (at most ${MAX_CSV_COLUMNS.local.toLocaleString('en-US')}).` };
  return undefined;
}

/** SQL Server error numbers (mssql puts them on `number`, or on the original error's info). */
function mssqlVerdict(num: number): Verdict | undefined {
  switch (num) {
    case 1702: // CREATE TABLE failed: more than 1024 columns
    case 4922:
      return { type: 'ValidationError', message: `The file has more columns than a table can hold (at most ${MAX_CSV_COLUMNS.azure.toLocaleString('en-US')}).` };
    case 511: // row size exceeds the maximum
    case 1701:
      return { type: 'ValidationError', message: 'A row of the file is larger than the database takes.' };
    case 2627: // unique/primary key
    case 2601:
    case 547: // check / foreign key
    case 515: // NULL into NOT NULL
      return { type: 'ValidationError', message: 'The database refused a row of the file (a constraint failed): nothing was saved.' };
    case 3906: // database is read-only
    case 3908:
      return { type: WAREHOUSE_UNAVAILABLE, message: READ_ONLY_MESSAGE };
    case 1105: // filegroup full
    case 9002: // log full
    case 40544: // size quota reached
      return { type: WAREHOUSE_UNAVAILABLE, message: FULL_MESSAGE };
    case 4060: // cannot open database
    case 18456: // login failed
      return { type: WAREHOUSE_UNAVAILABLE, message: CANNOT_OPEN_MESSAGE };
    case 824: // I/O consistency error
    case 823:
      return { type: WAREHOUSE_UNAVAILABLE, message: DAMAGED_MESSAGE };
    default:
      return undefined; // deadlocks (1205), "not currently available" (40613), throttling (40501) ... are retried
  }
}

/**
 * The warehouse failure `e` as a non-retryable ApplicationFailure with the user's message when
 * retrying cannot help ('ValidationError': the file's own fault; WAREHOUSE_UNAVAILABLE: the
 * database cannot take writes, the file is kept); undefined when it may pass (retry it). The
 * database's own message is never shown: it can name internal staging tables.
 */
export function classifyWarehouseError(e: unknown): ApplicationFailure | undefined {
  // Duck-typed, not `instanceof Error`: a native module's errors can come from another realm
  // (better-sqlite3 keeps the SqliteError class of the first context that loaded it).
  if (!e || typeof e !== 'object' || e instanceof ApplicationFailure || typeof (e as { message?: unknown }).message !== 'string') return undefined;
  const { code, number, originalError } = e as ErrorLike;
  const message = (e as { message: string }).message;
  let verdict: Verdict | undefined;
  if (typeof code === 'string') verdict = sqliteVerdict(code, message);
  const num = typeof number === 'number' ? number : originalError?.info?.number;
  if (!verdict && typeof num === 'number') verdict = mssqlVerdict(num);
  if (!verdict) return undefined;
  return ApplicationFailure.create({ message: verdict.message, type: verdict.type, nonRetryable: true, cause: undefined });
}
