// Streams an uploaded CSV into the organization's container: checked on the way (bytes,
// sniff, optionally every row), uploaded in blocks (a few 4 MB blocks in flight, never the
// whole file in memory), committed only when every check passed. On any failure the
// partial blob is removed once every block request has settled, so a refused file leaves
// nothing behind (not even a block that was still on its way when the check failed).
//
// A growing upload (the CSV save) also commits the blocks received so far as they land, marked
// as still arriving (metadata uploadstate=receiving, see activities/csv/growing.ts), so that the save's
// workflow reads the file while the rest of it arrives.
import type { BlobServiceClient, BlockBlobClient } from '@azure/storage-blob';
import { pipeline, type Readable } from 'node:stream';
import { CsvInspector, type CsvInspection } from '../../../common/csv/inspect';
import { UPLOAD_RECEIVING, UPLOAD_STATE } from '../../../common/csv/upload-state';
import { CsvByteGuard } from '../../../common/csv/sniff';

export interface StoreCsvInput {
  blobService: BlobServiceClient;
  containerName: string;
  blobName: string;
  source: Readable;
  maxBytes: number;
  /** Parse every row on the way (file-upload); the CSV save's loader parses them itself. */
  checkRows: boolean;
  metadata?: Record<string, string>;
  /**
   * Make the file readable while it arrives: the blocks received so far are committed as they
   * land (after the first block, then every few blocks and at least every GROWING_COMMIT_MS
   * while bytes come), marked uploadstate=receiving until the final commit; `onReceiving`
   * runs once, after the first such commit (the CSV save starts its workflow there). Every
   * commit is conditional on the blob being the one this upload committed last: when the
   * reader discarded it (bad content), the upload stops instead of bringing it back.
   * onReceiving's failure fails the upload.
   */
  growing?: { onReceiving: () => Promise<void> };
}

export interface StoredCsv extends CsvInspection {
  blobName: string;
  url: string;
  size: number;
}

const BLOCK_BYTES = 4 * 1024 * 1024;
/** Block buffers all uploads of the process share at most (64 MB), and how many it keeps when idle. */
const POOL_BUFFERS = 16;
const POOL_KEEP = 4;

/**
 * The process's block buffers, shared by every upload: when all are in use an upload waits for
 * one (its request is read no further meanwhile), so 32 uploads at once cost no more memory
 * than a few. An upload waits only while holding no buffer but blocks on their way, which
 * always come back, so the waits always end.
 */
export class BlockBufferPool {
  private readonly free: Buffer[] = [];
  private readonly waiting: ((b: Buffer) => void)[] = [];
  private out = 0;

  constructor(
    readonly max: number,
    readonly bytes: number,
    private readonly keep: number,
  ) {}

  acquire(): Promise<Buffer> {
    const b = this.free.pop();
    if (b) {
      this.out += 1;
      return Promise.resolve(b);
    }
    if (this.out < this.max) {
      this.out += 1;
      return Promise.resolve(Buffer.allocUnsafe(this.bytes));
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(b: Buffer): void {
    const next = this.waiting.shift();
    if (next) return next(b); // handed on: still out
    this.out -= 1;
    if (this.free.length < this.keep) this.free.push(b);
  }

  /** Buffers in use (for tests). */
  get inUse(): number {
    return this.out;
  }
}

export const uploadBuffers = new BlockBufferPool(POOL_BUFFERS, BLOCK_BYTES, POOL_KEEP);
const CONCURRENCY = 4;
/** A growing upload commits what arrived at least this often (staging a short block if need be)... */
const GROWING_COMMIT_MS = 1000;
/** ...and every this many blocks (each commit waits for the blocks on their way: not every block). */
const GROWING_COMMIT_BLOCKS = 4;

/** A blob name for an upload: uploads/<uploadId>/<the file's name, made safe>. */
export function uploadBlobName(uploadId: string, fileName: string): string {
  const base = (fileName.split(/[\\/]/).pop() ?? '').normalize('NFKD').replace(/[^A-Za-z0-9._ -]+/g, '_').replace(/^[._ ]+/, '').slice(0, 120) || 'upload';
  return `uploads/${uploadId}/${/\.csv$/i.test(base) ? base : `${base}.csv`}`;
}

/**
 * Removes a blob and any blocks an interrupted upload staged: committing an empty block list
 * drops the uncommitted blocks (they would otherwise linger until storage collects them).
 */
export async function discardBlob(blob: BlockBlobClient): Promise<void> {
  await blob.commitBlockList([]).catch(() => undefined);
  await blob.deleteIfExists().catch(() => undefined);
}

export async function storeCsvBlob(input: StoreCsvInput): Promise<StoredCsv> {
  const blob = input.blobService.getContainerClient(input.containerName).getBlockBlobClient(input.blobName);
  const guard = new CsvByteGuard({ maxBytes: input.maxBytes });
  const inspector = new CsvInspector({ rows: input.checkRows });
  let streamError: Error | undefined;
  const checked = pipeline(input.source, guard, inspector, (e) => {
    if (e) streamError = e;
  });
  const blobHTTPHeaders = { blobContentType: 'text/csv; charset=utf-8' };
  // Blocks being staged: each settles without throwing; the first failure is kept. Their
  // buffers go back to the process's pool once sent, so a few 4 MB buffers carry the whole file.
  const ids: string[] = [];
  const inFlight = new Set<Promise<void>>();
  let stageError: unknown;

  // A growing upload commits what landed, each commit conditional on the last one's ETag.
  // Storage drops the uncommitted blocks a commit leaves out, so a commit waits until no block
  // is on its way (a block landing while the commit runs would be lost).
  let committedBlocks = 0;
  let committedAt = Date.now();
  let etag: string | undefined;
  const conditions = () => (etag ? { ifMatch: etag } : { ifNoneMatch: '*' });
  const commitReceived = async () => {
    await Promise.all(inFlight);
    if (stageError) throw stageError;
    const res = await blob.commitBlockList(ids, { blobHTTPHeaders, metadata: { ...input.metadata, [UPLOAD_STATE]: UPLOAD_RECEIVING }, conditions: conditions() });
    etag = res.etag;
    committedAt = Date.now();
    const first = committedBlocks === 0;
    committedBlocks = ids.length;
    if (first) await input.growing!.onReceiving();
  };
  /** A growing upload's second has passed since its last commit. */
  const commitDue = () => Date.now() - committedAt >= GROWING_COMMIT_MS;

  const stage = (block: Buffer, size: number) => {
    // Block ids: base64 of strings of one length, in commit order.
    const id = Buffer.from(`block-${String(ids.length).padStart(8, '0')}`).toString('base64');
    ids.push(id);
    const settled: Promise<void> = blob
      .stageBlock(id, block.subarray(0, size), size)
      .then(
        () => undefined,
        (e: unknown) => void (stageError ??= e),
      )
      .finally(() => {
        inFlight.delete(settled);
        uploadBuffers.release(block);
      });
    inFlight.add(settled);
  };
  // The buffer being filled (null once handed to a block request, until the next one is had).
  let block: Buffer | null = null;
  try {
    block = await uploadBuffers.acquire();
    let size = 0;
    for await (const chunk of checked as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length; ) {
        const n = Math.min(chunk.length - at, BLOCK_BYTES - size);
        chunk.copy(block, size, at, at + n);
        size += n;
        at += n;
        // A growing upload also sends a short block when a commit is due (the file comes slowly).
        if (size < BLOCK_BYTES && !(input.growing && at === chunk.length && commitDue())) continue;
        stage(block, size);
        block = null;
        block = await uploadBuffers.acquire();
        size = 0;
        while (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
        if (stageError) throw stageError;
        // A growing upload: after the first block, then every few blocks or every second.
        if (input.growing && (committedBlocks === 0 || ids.length - committedBlocks >= GROWING_COMMIT_BLOCKS || commitDue())) await commitReceived();
      }
    }
    if (size > 0) stage(block, size);
    else uploadBuffers.release(block);
    block = null;
    await Promise.all(inFlight);
    if (streamError) throw streamError;
    if (stageError) throw stageError;
    await blob.commitBlockList(ids, { blobHTTPHeaders, metadata: input.metadata, conditions: input.growing ? conditions() : undefined });
  } catch (e) {
    if (block) uploadBuffers.release(block);
    block = null;
    // No block may land after the discard: wait for every request first (a commit is awaited where it starts).
    await Promise.all(inFlight);
    await discardBlob(blob);
    // Storage's own failure as it is; else the check's (leaving the loop early also ends the stream).
    throw e === stageError ? e : (streamError ?? e);
  }
  return { ...inspector.result!, blobName: input.blobName, url: blob.url, size: guard.bytes };
}
