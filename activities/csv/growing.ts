// Reading a CSV blob that may still be arriving. The CSV save's upload commits the blocks
// received so far as they land, with metadata uploadstate=receiving (see ./store.ts), and
// starts its workflow after the first commit; the final commit drops the mark. The loader reads
// what is there, then waits for more (polling the blob's length and mark) until the mark is
// gone and every byte was read. A blob that disappears or shrinks meanwhile was given up by the
// upload (refused or interrupted); one that stops growing for `stallMs` lost its uploader.
import { RestError, type BlobDownloadResponseParsed, type BlockBlobClient } from '@azure/storage-blob';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { CsvInputError } from '../../common/csv/errors';
import { UPLOAD_RECEIVING, UPLOAD_STATE } from '../../common/csv/upload-state';

export { UPLOAD_RECEIVING, UPLOAD_STATE } from '../../common/csv/upload-state';


export const UPLOAD_GIVEN_UP = 'The upload stopped before the whole file arrived: nothing was saved.';
export const uploadStalled = (secs: number) => `No more of the file arrived for ${secs} second${secs === 1 ? '' : 's'}: the upload was given up and nothing was saved.`;

export interface GrowingBlobOptions {
  /** Give up when the blob did not grow for this long while marked as receiving. */
  stallMs: number;
  /** How soon to look for more once caught up (doubling while nothing comes, up to 50 ms). */
  pollMs?: number;
  /** Called while waiting for more (heartbeats, cancellation checks); may throw to stop. */
  onWait?: () => void;
}

export interface BlobSource {
  stream: Readable;
  /** The blob's length as last seen (final once the stream ended). */
  size: () => number;
}

const isReceiving = (metadata: Record<string, string> | undefined) => metadata?.[UPLOAD_STATE] === UPLOAD_RECEIVING;
const isGone = (e: unknown) => e instanceof RestError && (e.statusCode === 404 || e.statusCode === 416);

/**
 * The blob's bytes as one stream, read as they arrive while it is marked as receiving. The end
 * is only taken from the blob's properties (not marked any more, and as long as what was read):
 * a download racing a commit can come with the new version's metadata but the old version's
 * bytes (Azurite does this), so a download's own headers never say the file is complete. For a
 * complete file this costs one properties request after the download.
 */
export async function openBlobSource(blob: BlockBlobClient, options: GrowingBlobOptions): Promise<BlobSource> {
  const first = await blob.download(0);
  let size = first.contentLength ?? 0;
  const firstPollMs = options.pollMs ?? 25;
  async function* tail(): AsyncGenerator<Buffer> {
    let offset = 0;
    let response: BlobDownloadResponseParsed | undefined = first;
    let grewAt = Date.now();
    let pollMs = firstPollMs;
    for (;;) {
      if (response) {
        for await (const chunk of response.readableStreamBody as AsyncIterable<Buffer>) {
          offset += chunk.length;
          yield chunk;
        }
        response = undefined;
        grewAt = Date.now();
        pollMs = firstPollMs;
      }
      let props;
      try {
        props = await blob.getProperties();
      } catch (e) {
        if (isGone(e)) throw new CsvInputError(UPLOAD_GIVEN_UP);
        throw e;
      }
      size = props.contentLength ?? 0;
      if (size < offset) throw new CsvInputError(UPLOAD_GIVEN_UP);
      if (size > offset) {
        try {
          response = await blob.download(offset);
        } catch (e) {
          if (isGone(e)) throw new CsvInputError(UPLOAD_GIVEN_UP);
          throw e;
        }
        continue;
      }
      // Every byte there is was read: the end, unless more is coming.
      if (!isReceiving(props.metadata)) return;
      if (Date.now() - grewAt > options.stallMs) throw new CsvInputError(uploadStalled(Math.round(options.stallMs / 1000)));
      options.onWait?.();
      await sleep(pollMs);
      // Caught up with a slow upload: asked at most 20 times a second, each new commit seen within 50 ms.
      pollMs = Math.min(pollMs * 2, 50);
    }
  }
  return { stream: Readable.from(tail(), { objectMode: false }), size: () => size };
}
