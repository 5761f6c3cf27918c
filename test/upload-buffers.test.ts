// The api's upload block buffers are one pool for the whole process (issue 15 item 13): many
// uploads at once wait for a buffer instead of each holding its own four, and never deadlock.
import { BlobServiceClient } from '@azure/storage-blob';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { BlockBufferPool, storeCsvBlob, uploadBuffers } from '../api/resources/files/store';

describe('BlockBufferPool', () => {
  it('hands out at most max buffers, queues the rest in order and reuses what comes back', async () => {
    const pool = new BlockBufferPool(2, 16, 1);
    const a = await pool.acquire();
    const b = await pool.acquire();
    const got: string[] = [];
    const c = pool.acquire().then((x) => (got.push('c'), x));
    const d = pool.acquire().then((x) => (got.push('d'), x));
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual([]);
    expect(pool.inUse).toBe(2);
    pool.release(a);
    expect(await c).toBe(a);
    pool.release(b);
    expect(await d).toBe(b);
    expect(got).toEqual(['c', 'd']);
    pool.release(a);
    pool.release(b);
    expect(pool.inUse).toBe(0);
  });
});

describe('storeCsvBlob under many uploads at once', () => {
  const conn = process.env.AZURE_STORAGE_CONNECTION_STRING;
  const service = conn ? BlobServiceClient.fromConnectionString(conn) : undefined;
  const container = `bufpool-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    if (!service) throw new Error('Run tests through `npm test`: it starts Azurite.');
    await service.getContainerClient(container).create();
  });
  afterAll(() => service?.getContainerClient(container).deleteIfExists());

  /** A CSV of about `mb` MB, sent in 64 KB chunks as a request would arrive. */
  function csv(mb: number): Readable {
    const row = 'a,b,c,some text here,12345.67\n';
    const chunk = Buffer.from('x,y,z,w,v\n' + row.repeat(Math.floor((64 * 1024 - 10) / row.length)));
    const n = Math.ceil((mb * 1024 * 1024) / chunk.length);
    return Readable.from((function* () {
      for (let i = 0; i < n; i++) yield i === 0 ? chunk : chunk.subarray(10);
    })());
  }

  it('stores 12 files of 9 MB at once with at most the pool buffers in use, each whole', async () => {
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, uploadBuffers.inUse)), 1);
    try {
      const stored = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          storeCsvBlob({ blobService: service!, containerName: container, blobName: `f${i}.csv`, source: csv(9), maxBytes: 50 * 1024 * 1024, checkRows: false }),
        ),
      );
      for (const s of stored) {
        const props = await service!.getContainerClient(container).getBlockBlobClient(s.blobName).getProperties();
        expect(props.contentLength).toBe(s.size);
        expect(s.size).toBeGreaterThan(9 * 1024 * 1024 - 64 * 1024);
      }
    } finally {
      clearInterval(sampler);
    }
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(uploadBuffers.max);
    expect(uploadBuffers.inUse).toBe(0);
  });
});
