// A batch of CSV rows as one JSON array written straight into an off-heap buffer. Each row's
// strings die as soon as they are written, so the activity's heap stays small and flat however
// big the file (arrays of strings held per batch would be promoted and pile up until a major
// GC); the buffer moves to the database thread without a copy.
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]

export interface RowBatchPayload {
  /** A JSON array of rows, each an array of strings or nulls, UTF-8. */
  json: Buffer;
  rows: number;
}

export class JsonRowBatch {
  rows = 0;
  private buf: Buffer;
  private len = 1;

  /** `reuse`: the buffer of an earlier batch, given back by the database (it must be one of its own, as below). */
  constructor(initialBytes = 4 * 1024 * 1024, reuse?: Buffer) {
    // allocUnsafeSlow: a buffer of its own (not a slice of the shared pool), so it can be transferred.
    this.buf = reuse && reuse.byteOffset === 0 && reuse.length >= initialBytes ? reuse : Buffer.allocUnsafeSlow(initialBytes);
    this.buf[0] = OPEN;
  }

  get bytes(): number {
    return this.len;
  }

  add(row: (string | null)[]): void {
    this.addJson(JSON.stringify(row), 1);
  }

  /** Rows already written as JSON arrays (text or UTF-8 bytes): one, or several joined by commas. */
  addJson(json: string | Buffer, rows: number): void {
    if (this.rows > 0) this.append(',');
    if (typeof json === 'string') this.append(json);
    else {
      this.reserve(json.length);
      this.len += json.copy(this.buf, this.len);
    }
    this.rows += rows;
  }

  private append(text: string): void {
    // A write stops short only when the next character does not fit (less than 4 bytes left);
    // with 4 bytes to spare it surely wrote everything, and take() has room for its bracket.
    const written = this.buf.write(text, this.len, 'utf8');
    if (this.buf.length - (this.len + written) >= 4) {
      this.len += written;
      return;
    }
    this.reserve(Buffer.byteLength(text));
    this.len += this.buf.write(text, this.len, 'utf8');
  }

  /** Room for `bytes` more and the closing bracket (4 bytes to spare, as append() needs). */
  private reserve(bytes: number): void {
    if (this.buf.length - this.len >= bytes + 4) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.len + bytes + 4, this.buf.length * 2));
    this.buf.copy(bigger, 0, 0, this.len);
    this.buf = bigger;
  }

  /** The finished batch; this object must not be used afterwards. */
  take(): RowBatchPayload {
    this.buf[this.len++] = CLOSE;
    return { json: this.buf.subarray(0, this.len), rows: this.rows };
  }
}

/** The rows back as arrays (for providers that bulk-load arrays, e.g. mssql). */
export function batchRows(batch: RowBatchPayload): (string | null)[][] {
  return JSON.parse(batch.json.toString('utf8')) as (string | null)[][];
}
