// Streams an uploaded CSV into the organization's container: checked on the way (bytes,
// sniff, optionally every row), uploaded in blocks (BlockBlobClient.uploadStream, never the
// whole file in memory), committed only when every check passed. On any failure the
// partial blob is removed, so a refused file leaves nothing behind.
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
  try {
    await blob.uploadStream(checked, BLOCK_BYTES, CONCURRENCY, {
      blobHTTPHeaders: { blobContentType: 'text/csv; charset=utf-8' },
      metadata: input.metadata,
    });
    if (streamError) throw streamError;
  } catch (e) {
    await discardBlob(blob);
    throw streamError ?? e;
  }
  return { ...inspector.result!, blobName: input.blobName, url: blob.url, size: guard.bytes };
}
