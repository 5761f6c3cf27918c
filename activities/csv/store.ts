// Streams an uploaded CSV into the organization's container: checked on the way (bytes,
// sniff, optionally every row), uploaded in blocks (a few 4 MB blocks in flight, never the
// whole file in memory), committed only when every check passed. On any failure the
// partial blob is removed once every block request has settled, so a refused file leaves
// nothing behind (not even a block that was still on its way when the check failed).
import type { BlobServiceClient, BlockBlobClient } from '@azure/storage-blob';
import { pipeline, type Readable } from 'node:stream';
import { CsvInspector, type CsvInspection } from './inspect';
import { CsvByteGuard } from './sniff';

export interface StoreCsvInput {
  blobService: BlobServiceClient;
  containerName: string;
  blobName: string;
  source: Readable;
  maxBytes: number;
  /** Parse every row on the way (file-upload); the CSV save's loader parses them itself. */
  checkRows: boolean;
  metadata?: Record<string, string>;
}

export interface StoredCsv extends CsvInspection {
  blobName: string;
  url: string;
  size: number;
}

const BLOCK_BYTES = 4 * 1024 * 1024;
const CONCURRENCY = 4;

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
  // Blocks being staged: each settles without throwing; the first failure is kept. Their
  // buffers come back to `spare` once sent, so a few 4 MB buffers carry the whole file.
  const ids: string[] = [];
  const inFlight = new Set<Promise<void>>();
  const spare: Buffer[] = [];
  let stageError: unknown;
  const stage = (block: Buffer, size: number) => {
    // Block ids: base64 of strings of one length, in commit order.
    const id = Buffer.from(`block-${String(ids.length).padStart(8, '0')}`).toString('base64');
    ids.push(id);
    const settled: Promise<void> = blob
      .stageBlock(id, block.subarray(0, size), size)
      .then(
        () => void spare.push(block),
        (e: unknown) => void (stageError ??= e),
      )
      .finally(() => inFlight.delete(settled));
    inFlight.add(settled);
  };
  try {
    let block: Buffer = Buffer.allocUnsafe(BLOCK_BYTES);
    let size = 0;
    for await (const chunk of checked as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length; ) {
        const n = Math.min(chunk.length - at, BLOCK_BYTES - size);
        chunk.copy(block, size, at, at + n);
        size += n;
        at += n;
        if (size < BLOCK_BYTES) continue;
        stage(block, size);
        block = spare.pop() ?? Buffer.allocUnsafe(BLOCK_BYTES);
        size = 0;
        while (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
        if (stageError) throw stageError;
      }
    }
    if (size > 0) stage(block, size);
    await Promise.all(inFlight);
    if (streamError) throw streamError;
    if (stageError) throw stageError;
    await blob.commitBlockList(ids, {
      blobHTTPHeaders: { blobContentType: 'text/csv; charset=utf-8' },
      metadata: input.metadata,
    });
  } catch (e) {
    // No block may land after the discard: wait for every request first.
    await Promise.all(inFlight);
    await discardBlob(blob);
    // Storage's own failure as it is; else the check's (leaving the loop early also ends the stream).
    throw e === stageError ? e : (streamError ?? e);
  }
  return { ...inspector.result!, blobName: input.blobName, url: blob.url, size: guard.bytes };
}
