// Bad CSV input: a message the user can act on. The api answers it with 400; the loader
// turns it into a non-retryable ApplicationFailure (type 'ValidationError').
import { ApplicationFailure } from '@temporalio/common';
import { fail } from '../failures';

export class CsvInputError extends Error {
  override readonly name = 'CsvInputError';
  constructor(
    message: string,
    /** 413 for a file over the size limit, 400 otherwise. */
    public readonly httpStatus = 400,
  ) {
    super(message);
  }
}

export const MB = 1024 * 1024;
export const formatLimit = (bytes: number) => (bytes % MB === 0 ? `${bytes / MB} MB` : bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${bytes} bytes`);

export const fileTooLarge = (maxBytes: number) => new CsvInputError(`The file is larger than the ${formatLimit(maxBytes)} limit.`, 413);

interface CsvParseError extends Error {
  code?: string;
  lines?: number;
  record?: unknown[];
}

/** csv-parse's errors, in the user's words, with the line they happened on. */
export function csvParseErrorToInput(e: unknown, headerLength?: number): CsvInputError | undefined {
  if (!(e instanceof Error)) return undefined;
  const { code, lines, record } = e as CsvParseError;
  switch (code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
    case 'CSV_RECORD_INCONSISTENT_COLUMNS':
      return new CsvInputError(`Line ${lines}: the row has ${Array.isArray(record) ? record.length : 'a different number of'} fields, but the header has ${headerLength ?? 'a different number'}.`);
    case 'CSV_QUOTE_NOT_CLOSED':
      return new CsvInputError(`Line ${lines}: a quoted field is never closed (unbalanced quotes).`);
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return new CsvInputError(`Line ${lines}: unexpected text after a closing quote (unbalanced quotes).`);
    case 'INVALID_OPENING_QUOTE':
    case 'CSV_INVALID_OPENING_QUOTE':
      return new CsvInputError(`Line ${lines}: a quote inside an unquoted field (unbalanced quotes): quote the whole field and double the quote inside.`);
    case 'CSV_MAX_RECORD_SIZE':
      return new CsvInputError(`Line ${lines}: a row is longer than 1 MB (is a quote left open?).`);
    default:
      return code?.startsWith('CSV_') ? new CsvInputError(`The file is not valid CSV: ${e.message}`) : undefined;
  }
}

/** For activities: bad input fails once, with its message, and is never retried. */
export function asValidationFailure(e: CsvInputError): ApplicationFailure {
  return fail.validation(e.message);
}
