// CSV in and out of the consolidation: a text/csv body posted, a CSV answer downloaded. The one
// api client (lib/api-client.ts) sends JSON and forms only, so these two requests are made here
// with its base path, bearer token, error reading and 401 rule (the session ends, the login page
// says why).
import { toast } from '../../../components/toaster';
import { API_BASE, ApiRequestError, errorMessage, SESSION_EXPIRED, type Envelope } from '../../../lib/api-client';
import { clearSession, getToken, setLoginNotice } from '../../../lib/session';

async function send(method: string, path: string, fallback: string, body?: string): Promise<Response> {
  const token = getToken();
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'text/csv';
  let res: Response;
  try {
    res = await fetch(`${API_BASE}${path}`, { method, headers, body });
  } catch {
    throw new ApiRequestError(fallback, 0);
  }
  if (res.status === 401 && token) {
    if (getToken()) {
      setLoginNotice(SESSION_EXPIRED);
      clearSession();
      toast(SESSION_EXPIRED, 'danger');
    }
    throw new ApiRequestError(SESSION_EXPIRED, 401);
  }
  return res;
}

/** POSTs CSV text (Content-Type text/csv); answers the api's envelope, throws its message. */
export async function postCsv<T>(path: string, text: string, fallback: string): Promise<Envelope<T>> {
  const res = await send('POST', path, fallback, text);
  const json = (await res.json().catch(() => undefined)) as Envelope<T> | undefined;
  if (!res.ok || !json || json.status === false) throw new ApiRequestError(errorMessage(json, fallback), res.status, json);
  return json;
}

/** GETs a CSV answer and hands it to the browser as a download named `filename`. */
export async function downloadCsv(path: string, filename: string, fallback: string): Promise<void> {
  const res = await send('GET', path, fallback);
  if (!res.ok) {
    const json = (await res.json().catch(() => undefined)) as Envelope<unknown> | undefined;
    throw new ApiRequestError(errorMessage(json, fallback), res.status, json);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
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
