// The local pipeline engine's view of the storage container: what "data factory" means on the
// embedded provider reads the container's CSV blobs (Azurite) and loads each into the table its
// name gives, through the warehouse (../../warehouse).
import type { BlobServiceClient } from '@azure/storage-blob';
import { createHash } from 'node:crypto';
import { TABLE_NAME_RE } from '../../common/validation';

/** The table a CSV blob loads into when no upload record says otherwise: its normalised base name. */
export function tableNameForBlob(blobName: string): string {
  const base = (blobName.split('/').pop() ?? blobName).replace(/\.[^.]*$/, '');
  let name = base
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  // Nothing usable left (e.g. only non-ASCII letters): a stable name from the blob's own name.
  if (!name) return `csv_${createHash('sha256').update(blobName).digest('hex').slice(0, 8)}`;
  if (!/^[a-z]/.test(name)) name = `t_${name}`;
  name = name.slice(0, 100).replace(/_+$/, '');
  return TABLE_NAME_RE.test(name) ? name : `csv_${createHash('sha256').update(blobName).digest('hex').slice(0, 8)}`;
}

/** A load's id: the same blob content always gets the same id, so a retried load replaces its rows. */
export function pipelineUploadId(blobName: string, etag: string | undefined): string {
  return `pl-${createHash('sha256').update(`${blobName}\n${etag ?? ''}`).digest('hex').slice(0, 24)}`;
}

export interface ContainerFile {
  name: string;
  etag?: string;
  size?: number;
  lastModified?: Date;
  metadata?: Record<string, string>;
}

/** Every blob of the container, by name (a flat listing: uploads may sit under folders), with its metadata. */
export async function listContainerFiles(blobService: BlobServiceClient, containerName: string, limit = Infinity): Promise<ContainerFile[]> {
  const out: ContainerFile[] = [];
  for await (const b of blobService.getContainerClient(containerName).listBlobsFlat({ includeMetadata: true })) {
    out.push({ name: b.name, etag: b.properties.etag, size: b.properties.contentLength, lastModified: b.properties.lastModified, metadata: b.metadata });
    if (out.length >= limit) break;
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
