// The one api client: bearer token, error normalisation (spec section 8), 401 handling.
import { clearSession, getToken, setLoginNotice } from './session';

export const SESSION_EXPIRED = 'Your session has expired. Please login again.';
export const API_BASE = '/api/v1';

export class ApiRequestError extends Error {
  constructor(
    message: string,
    public readonly status: number,
    /** The failure's whole answer, for screens that show more than the first message. */
    public readonly body?: Envelope<unknown>,
    /** A 429's Retry-After, in seconds. */
    public readonly retryAfterSec?: number,
  ) {
    super(message);
  }
}

type Listener = (message: string) => void;
let onUnauthorized: Listener = () => {};
/** The app registers what a 401 does (toast, redirect to /login). */
export function setUnauthorizedHandler(fn: Listener): void {
  onUnauthorized = fn;
}

export interface Envelope<T> {
  status: boolean;
  message?: string;
  data?: T;
  errors?: { msg?: string }[];
}

/** errors[0].msg, else message, else a fallback. */
export function errorMessage(body: unknown, fallback: string): string {
  const b = body as Envelope<unknown> | undefined;
  return b?.errors?.[0]?.msg || b?.message || fallback;
}

/** Retry-After as seconds (the api sends seconds), when there is one. */
function retryAfterSeconds(value: string | null | undefined): number | undefined {
  const s = Number(value);
  return value && Number.isFinite(s) && s > 0 ? Math.ceil(s) : undefined;
}

/** A 401 on an authenticated call ends the session (spec section 4). */
function handleUnauthorized(hadToken: boolean): ApiRequestError | undefined {
  if (!hadToken) return undefined;
  // Only the first 401 of a burst of calls ends the session and redirects.
  if (getToken()) {
    setLoginNotice(SESSION_EXPIRED);
    clearSession();
    onUnauthorized(SESSION_EXPIRED);
  }
  return new ApiRequestError(SESSION_EXPIRED, 401);
}

/** One request with the bearer token; a 401 on an authenticated call ends the session. */
async function send(method: string, path: string, fallback: string, body?: BodyInit, contentType?: string, extra: { accept?: string; signal?: AbortSignal } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (contentType) headers['Content-Type'] = contentType;
  if (extra.accept) headers.Accept = extra.accept;
  let res: Response;
  try {
    res = await fetch(`${API_BASE}${path}`, { method, headers, body, ...(extra.signal ? { signal: extra.signal } : {}) });
  } catch {
    throw new ApiRequestError(fallback, 0);
  }
  if (res.status === 401) {
    const expired = handleUnauthorized(Boolean(token));
    if (expired) throw expired;
  }
  return res;
}

/** The answer's envelope; a failure throws its message. */
async function envelope<T>(res: Response, fallback: string): Promise<Envelope<T>> {
  const json = (await res.json().catch(() => undefined)) as Envelope<T> | undefined;
  if (!res.ok || !json || json.status === false) throw new ApiRequestError(errorMessage(json, fallback), res.status, json, retryAfterSeconds(res.headers?.get('Retry-After')));
  return json;
}

export async function apiRequest<T>(method: string, path: string, body?: unknown, fallback = 'Request failed'): Promise<Envelope<T>> {
  const res =
    body instanceof FormData
      ? await send(method, path, fallback, body)
      : body !== undefined
        ? await send(method, path, fallback, JSON.stringify(body), 'application/json')
        : await send(method, path, fallback);
  return envelope<T>(res, fallback);
}

/** A text body of its own type (e.g. a CSV import as text/csv); the same envelope, errors and 401 rule. */
export async function apiText<T>(method: string, path: string, text: string, contentType: string, fallback = 'Request failed'): Promise<Envelope<T>> {
  return envelope<T>(await send(method, path, fallback, text, contentType), fallback);
}

/** GETs a file answer (e.g. a CSV export) and hands it to the browser as a download named `filename`. */
export async function apiDownload(path: string, filename: string, fallback = 'Download failed'): Promise<void> {
  const res = await send('GET', path, fallback);
  if (!res.ok) await envelope(res, fallback);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Opens a server-sent event stream (GET with the bearer token, Accept: text/event-stream; fetch,
 * since EventSource cannot send the token). Answers the open response; a failure throws its
 * message, and a 401 ends the session as every call does.
 */
export async function apiEventStream(path: string, signal: AbortSignal, fallback = 'Failed to follow changes'): Promise<Response> {
  const res = await send('GET', path, fallback, undefined, undefined, { accept: 'text/event-stream', signal });
  if (!res.ok) await envelope(res, fallback);
  return res;
}

/** SWR fetcher: the key is [path, fallback message]; answers `data`. */
export async function fetchData<T>([path, fallback]: readonly [string, string]): Promise<T> {
  const res = await apiRequest<T>('GET', path, undefined, fallback);
  return res.data as T;
}

/** A query string from the set values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * Multipart POST through XMLHttpRequest, whose upload events give the progress bar
 * (fetch has no upload progress). Same envelope, errors and 401 rule as apiRequest.
 */
export function apiUpload<T>(path: string, form: FormData, opts: { fallback: string; timeoutMs?: number; onProgress?: (fraction: number) => void }): Promise<Envelope<T>> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const token = getToken();
    xhr.open('POST', `${API_BASE}${path}`);
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    if (opts.timeoutMs) xhr.timeout = opts.timeoutMs;
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && opts.onProgress) opts.onProgress(e.total ? e.loaded / e.total : 0);
    };
    xhr.onerror = () => reject(new ApiRequestError(opts.fallback, 0));
    xhr.ontimeout = () => reject(new ApiRequestError(opts.fallback, 0));
    xhr.onload = () => {
      let json: Envelope<T> | undefined;
      try {
        json = JSON.parse(xhr.responseText) as Envelope<T>;
      } catch {
        json = undefined;
      }
      if (xhr.status === 401) {
        const expired = handleUnauthorized(Boolean(token));
        if (expired) return reject(expired);
      }
      if (xhr.status < 200 || xhr.status >= 300 || !json || json.status === false) return reject(new ApiRequestError(errorMessage(json, opts.fallback), xhr.status, json));
      opts.onProgress?.(1);
      resolve(json);
    };
    xhr.send(form);
  });
}
