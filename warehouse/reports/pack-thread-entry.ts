// The pack's own thread (started by ./pack-thread.ts for one pack, then ended): opens the
// organization's database read-only, lays the pack out and answers the plan; asked to draw, writes
// the PDF and then the XLSX as chunks to the side that started it, holding while more than a window
// of bytes is not yet taken there.
import { Writable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import { openOrgConnection, type OrgDatabase } from '../connection';
import { readingAsProvisioned } from '../org-schema';
import { PackError, packPdf, packSource, packXlsx, planPack, type PackPlan, type PackSource } from './pack';
import { WINDOW, type FromPackThread, type PackFile, type ToPackThread } from './pack-thread';

const post = (m: FromPackThread) => parentPort!.postMessage(m);

/** One file's bytes to the other side: coalesced into chunks of up to 64 KB, held while the window is full. */
class ToParent extends Writable {
  private unacked = 0;
  private held: (() => void) | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private flushing = false;
  constructor(private readonly file: PackFile) {
    super({ highWaterMark: 64 * 1024 });
  }
  private flush(): void {
    this.flushing = false;
    if (!this.pendingBytes) return;
    const data = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.unacked += data.byteLength;
    post({ type: 'chunk', file: this.file, data });
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (e?: Error | null) => void): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.byteLength;
    if (this.pendingBytes >= 64 * 1024) this.flush();
    else if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => this.flush());
    }
    if (this.unacked < WINDOW) done();
    else this.held = done;
  }
  override _final(done: (e?: Error | null) => void): void {
    this.flush();
    post({ type: 'end', file: this.file });
    done();
  }
  ack(bytes: number): void {
    this.unacked -= bytes;
    if (this.held && this.unacked < WINDOW) {
      const go = this.held;
      this.held = undefined;
      go();
    }
  }
}

let org: OrgDatabase | undefined;
let source: PackSource | undefined;
let plan: PackPlan | null = null;
const outs = new Map<PackFile, ToParent>();

function failed(e: unknown): void {
  post({ type: 'error', message: String((e as Error)?.message ?? e), pack: e instanceof PackError });
}

async function start(m: Extract<ToPackThread, { type: 'job' }>): Promise<void> {
  const { conn, items, range, period } = m.job;
  org = await openOrgConnection(conn, { readOnly: true });
  const ro = await readingAsProvisioned(org);
  source = await packSource(ro.db, ro.dialect, items, range, period);
  plan = m.job.plan ? await planPack(source) : null;
  post({ type: 'plan', plan });
}

async function draw(m: Extract<ToPackThread, { type: 'draw' }>): Promise<void> {
  let pages: number | null = null;
  for (const file of m.files) {
    const out = new ToParent(file);
    outs.set(file, out);
    if (file === 'pdf') {
      if (!plan) throw new Error('A PDF is drawn from its plan: the job asked for none');
      pages = (await packPdf(plan, source!, m.meta, out)).pages;
    } else {
      await packXlsx(source!, out);
    }
  }
  await org?.close();
  post({ type: 'done', pages });
}

parentPort!.on('message', (m: ToPackThread) => {
  if (m.type === 'ack') return outs.get(m.file)?.ack(m.bytes);
  const work = m.type === 'job' ? start(m) : draw(m);
  work.catch(failed);
});
