// The demo's calls to this api over loopback, as the browser makes them: JSON in and out, the
// user's bearer token, and the answer's message when a call fails.

export class DemoCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Answer {
  status: number;
  body: { message?: string; error?: string; data?: Record<string, unknown> } & Record<string, unknown>;
}

export class DemoClient {
  constructor(
    readonly baseUrl: string,
    private token = '',
  ) {}

  as(token: string): DemoClient {
    return new DemoClient(this.baseUrl, token);
  }

  async call(method: string, path: string, body?: unknown, { ok = [200, 201, 202], contentType }: { ok?: number[]; contentType?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (typeof body === 'string') {
      payload = body;
      headers['Content-Type'] = contentType ?? 'text/plain';
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(`${this.baseUrl}/api/v1${path}`, { method, headers, body: payload, signal: AbortSignal.timeout(180_000) });
    const text = await res.text();
    let parsed: Answer['body'] = {};
    try {
      parsed = text ? (JSON.parse(text) as Answer['body']) : {};
    } catch {
      parsed = { message: text.slice(0, 200) };
    }
    if (!ok.includes(res.status)) {
      const why = [parsed.message, parsed.error].filter((x) => typeof x === 'string' && x).join(': ');
      throw new DemoCallError(res.status, `${method} ${path} answered ${res.status}${why ? ` (${why})` : ''}`);
    }
    return { status: res.status, body: parsed };
  }

  get = (path: string) => this.call('GET', path);
  post = (path: string, body?: unknown) => this.call('POST', path, body ?? {});
  put = (path: string, body: unknown) => this.call('PUT', path, body);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` answers a value (not undefined) or the time is up. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 1000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not finish within ${Math.round(timeoutMs / 1000)} s`);
    await sleep(everyMs);
  }
}
