// openBlobSource (activities/csv/growing.ts) against a blob whose answers can be staged: the
// races of a file read while it uploads, beyond what a live Azurite shows on demand. The end
// of the file must come from the blob's properties, never from a download's own headers.
import { RestError, type BlockBlobClient } from '@azure/storage-blob';
import { Readable } from 'node:stream';
import { CsvInputError } from '../common/csv/errors';
import { openBlobSource, UPLOAD_GIVEN_UP } from '../activities/csv/growing';

const RECEIVING = { uploadstate: 'receiving' };

/** A blob of `bytes` so far; `download` may answer stale bytes with the newest metadata. */
class StagedBlob {
  bytes: Buffer = Buffer.alloc(0);
  metadata: Record<string, string> = RECEIVING;
  gone = false;
  /** Bytes the next download(0) answers (a download racing a commit), once. */
  staleFirst: Buffer | undefined = undefined;
  calls: string[] = [];

  async download(offset: number) {
    this.calls.push(`download ${offset}`);
    if (this.gone) throw new RestError('gone', { statusCode: 404 });
    let body = this.bytes.subarray(offset);
    if (offset === 0 && this.staleFirst) {
      body = this.staleFirst;
      this.staleFirst = undefined;
    }
    if (offset > 0 && offset >= this.bytes.length) throw new RestError('range', { statusCode: 416 });
    return { contentLength: body.length, metadata: { ...this.metadata }, readableStreamBody: Readable.from([Buffer.from(body)]) };
  }

  async getProperties() {
    this.calls.push('properties');
    if (this.gone) throw new RestError('gone', { statusCode: 404 });
    return { contentLength: this.bytes.length, metadata: { ...this.metadata } };
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of stream) parts.push(p as Buffer);
  return Buffer.concat(parts);
}

const open = (blob: StagedBlob, stallMs = 5000) => openBlobSource(blob as unknown as BlockBlobClient, { stallMs, pollMs: 5 });

describe('openBlobSource: a CSV blob that may still be arriving', () => {
  it('a complete blob: one download, then one properties request confirms its end', async () => {
    const blob = new StagedBlob();
    blob.bytes = Buffer.from('a,b\n1,2\n');
    blob.metadata = {};
    const source = await open(blob);
    expect((await readAll(source.stream)).toString()).toBe('a,b\n1,2\n');
    expect(blob.calls).toEqual(['download 0', 'properties']);
  });

  it('a download with the final metadata but an older version\'s bytes: the rest is read too', async () => {
    const blob = new StagedBlob();
    blob.bytes = Buffer.from('id\n1\n2\n3\n4\n');
    blob.metadata = {}; // committed in full...
    blob.staleFirst = Buffer.from('id\n1\n'); // ...but the first download raced the final commit
    const source = await open(blob);
    expect((await readAll(source.stream)).toString()).toBe('id\n1\n2\n3\n4\n');
    expect(source.size()).toBe(blob.bytes.length);
  });

  it('reads the blob as it grows and ends when the mark is gone', async () => {
    const blob = new StagedBlob();
    blob.bytes = Buffer.from('id\n1\n');
    const grow = (async () => {
      for (let i = 2; i <= 50; i++) {
        await new Promise((r) => setTimeout(r, 2));
        blob.bytes = Buffer.concat([blob.bytes, Buffer.from(`${i}\n`)]);
      }
      blob.metadata = {};
    })();
    let waits = 0;
    const source = await openBlobSource(blob as unknown as BlockBlobClient, { stallMs: 5000, pollMs: 1, onWait: () => waits++ });
    const text = (await readAll(source.stream)).toString();
    await grow;
    expect(text).toBe(`id\n${Array.from({ length: 50 }, (_, i) => `${i + 1}\n`).join('')}`);
    expect(waits).toBeGreaterThan(0);
  });

  it('a blob removed, emptied or cut while it arrives was given up by the upload', async () => {
    for (const giveUp of [(b: StagedBlob) => (b.gone = true), (b: StagedBlob) => ((b.bytes = Buffer.alloc(0)), (b.metadata = {})), (b: StagedBlob) => (b.bytes = b.bytes.subarray(0, 3))]) {
      const blob = new StagedBlob();
      blob.bytes = Buffer.from('id\n1\n2\n');
      const source = await open(blob);
      setTimeout(() => giveUp(blob), 20);
      await expect(readAll(source.stream)).rejects.toThrow(new CsvInputError(UPLOAD_GIVEN_UP));
    }
  });

  it('a blob that stops growing is given up after the stall time, with a message', async () => {
    const blob = new StagedBlob();
    blob.bytes = Buffer.from('id\n1\n');
    const source = await open(blob, 1000);
    const t0 = Date.now();
    await expect(readAll(source.stream)).rejects.toThrow('No more of the file arrived for 1 second: the upload was given up and nothing was saved.');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
  });
});
