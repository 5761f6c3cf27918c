// The one api client: bearer token, error normalisation (spec section 8), 401 handling.
import { clearSession, getToken } from './session';

export const SESSION_EXPIRED = 'Your session has expired. Please login again.';

export class ApiRequestError extends Error {
  constructor(
    message: string,
    public readonly status: number,
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

interface Envelope<T> {
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

export async function apiRequest<T>(method: string, path: string, body?: unknown, fallback = 'Request failed'): Promise<Envelope<T>> {
  const headers: Record<string, string> = {};
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`/api/v1${path}`, { method, headers, body: payload });
  const json = (await res.json().catch(() => undefined)) as Envelope<T> | undefined;
  if (res.status === 401 && token) {
    clearSession();
    onUnauthorized(SESSION_EXPIRED);
    throw new ApiRequestError(SESSION_EXPIRED, 401);
  }
  if (!res.ok || !json || json.status === false) throw new ApiRequestError(errorMessage(json, fallback), res.status);
  return json;
}
