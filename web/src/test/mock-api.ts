// A fetch stand-in for component tests: answers by "METHOD /path" (query string ignored
// unless the key has one), records every call.
export type Answer = { status?: number; body: unknown } | ((req: { method: string; path: string; body: unknown }) => { status?: number; body: unknown });

export interface ApiCall {
  method: string;
  path: string;
  body: unknown;
  headers: Record<string, string>;
}

export function mockApi(routes: Record<string, Answer>): { calls: ApiCall[] } {
  const calls: ApiCall[] = [];
  global.fetch = jest.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input).replace(/^\/api\/v1/, '');
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body;
    calls.push({ method, path: url, body, headers: (init?.headers ?? {}) as Record<string, string> });
    const answer = routes[`${method} ${url}`] ?? routes[`${method} ${url.split('?')[0]}`];
    const res = typeof answer === 'function' ? answer({ method, path: url, body }) : (answer ?? { status: 404, body: { status: false, message: 'Not found', errors: [{ msg: 'Not found' }] } });
    const status = res.status ?? 200;
    return { ok: status >= 200 && status < 300, status, json: async () => res.body } as Response;
  }) as jest.Mock;
  return { calls };
}

export const ok = (data: unknown, message = 'ok') => ({ status: 200, body: { status: true, message, data } });
export const fail = (status: number, msg: string) => ({ status, body: { status: false, message: msg, errors: [{ msg }] } });
