// CSV in and out of the consolidation, through the one api client (lib/api-client.ts).
import { apiDownload, apiText, type Envelope } from '../../../lib/api-client';

/** POSTs CSV text (Content-Type text/csv); answers the api's envelope, throws its message. */
export function postCsv<T>(path: string, text: string, fallback: string): Promise<Envelope<T>> {
  return apiText<T>('POST', path, text, 'text/csv', fallback);
}

/** GETs a CSV answer and hands it to the browser as a download named `filename`. */
export function downloadCsv(path: string, filename: string, fallback: string): Promise<void> {
  return apiDownload(path, filename, fallback);
}

/** A chosen file's text (FileReader: also where Blob.text is missing). */
export function readFileText(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(new Error('The file could not be read'));
    reader.readAsText(file);
  });
}
