// A better-sqlite3 connection on its own thread, so that a CSV load parses on the activity's
// thread while the inserts of the previous batch run here (about twice the rows/s of doing
// both on one thread). The thread's code is plain JS (no TypeScript loader is needed in a
// worker thread, under tsx or jest alike); the SQL it runs is built by the caller.
import { Worker } from 'node:worker_threads';

const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db; let insertJson; let insertParams = [];
const handlers = {
  // Loads the lf_rows extension too when given a path: answers whether it loaded, and why not.
  open({ file, pragmas, extension }) {
    db = new Database(file);
    for (const p of pragmas) db.pragma(p);
    if (!extension) return { rowsVtab: false };
    try { db.loadExtension(extension); return { rowsVtab: true }; } catch (e) { return { rowsVtab: false, extensionError: String(e && e.message || e) }; }
  },
  exec({ sql }) {
    try { db.exec(sql); } catch (e) { if (db.inTransaction) db.exec('ROLLBACK'); throw e; }
  },
  all({ sql, params }) { return db.prepare(sql).all(...(params || [])); },
  // The statement's last parameter is the batch (read by lf_rows, or by jsonb_each when the
  // extension is not there); params are bound before it.
  prepareInsertJson({ sql, params }) { insertJson = db.prepare(sql); insertParams = params || []; },
  // One JSON array of rows (a transferred buffer): SQLite splits it, in C. The bytes are bound
  // as a blob (lf_rows reads them as they are; jsonb_each's statement casts them to text): no
  // JS string is made of them here, nor UTF-8 again of that string by the driver.
  // The buffer goes back to the caller, for its next batch.
  insertJson({ buffer, length }) {
    insertJson.run(...insertParams, Buffer.from(buffer, 0, length));
    return buffer;
  },
  close() { if (db && db.open) db.close(); db = undefined; },
};
parentPort.on('message', (m) => {
  try {
    const result = handlers[m.op](m);
    parentPort.postMessage({ id: m.id, result }, result instanceof ArrayBuffer ? [result] : []);
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: { message: String(e && e.message || e), code: e && e.code } });
  }
});
`;

export class SqliteThreadError extends Error {
  constructor(
    message: string,
    public readonly code?: string,
  ) {
    super(message);
  }
}

/** One SQLite connection served by a worker thread; calls resolve in order. */
export class SqliteThread {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private failed: Error | undefined;

  constructor() {
    this.worker = new Worker(THREAD_CODE, { eval: true, workerData: { driver: require.resolve('better-sqlite3') } });
    this.worker.on('message', (m: { id: number; result?: unknown; error?: { message: string; code?: string } }) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) p?.reject(new SqliteThreadError(m.error.message, m.error.code));
      else p?.resolve(m.result);
    });
    const fail = (e: Error) => {
      this.failed = e;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`SQLite thread exited (${code})`)));
  }

  call<T = unknown>(op: 'open' | 'exec' | 'all' | 'prepareInsertJson' | 'insertJson' | 'close', args: Record<string, unknown> = {}, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.failed) return Promise.reject(this.failed);
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...args, op, id }, transfer);
    });
  }

  async terminate(): Promise<void> {
    try {
      await this.call('close');
    } catch {
      // already closed or failed
    }
    await this.worker.terminate();
  }
}
