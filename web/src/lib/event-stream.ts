// Server-sent events over fetch (EventSource cannot send the bearer token): reads the stream,
// hands each event to its listener, and opens it again after a drop (the server's `retry:`, else
// 1 s, doubling up to 30 s) until closed. A 401 or 403 is not retried.
import { ApiRequestError, apiEventStream } from './api-client';

export interface StreamEvent {
  event: string;
  data: string;
}

/**
 * Splits what arrived so far into whole events (text/event-stream: `event:` and `data:` lines,
 * a blank line ends one; comment lines start with ':'), answering them and the unfinished rest.
 */
export function parseEventStream(text: string): { events: StreamEvent[]; rest: string; retryMs?: number } {
  const events: StreamEvent[] = [];
  let retryMs: number | undefined;
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const at = line.indexOf(':');
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
    }
    if (data.length) events.push({ event, data: data.join('\n') });
  }
  return { events, rest, retryMs };
}

export interface StreamHandlers {
  onEvent(e: StreamEvent): void;
  /** The stream is open (true) or dropped and waiting to open again (false). */
  onConnected?(connected: boolean): void;
}

const MAX_WAIT_MS = 30_000;

/** Follows the stream at `path` until the answered close() is called. */
export function followEventStream(path: string, handlers: StreamHandlers): { close(): void } {
  const abort = new AbortController();
  let wait = 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function once(): Promise<'again' | 'stop'> {
    let res: Response;
    try {
      res = await apiEventStream(path, abort.signal);
    } catch (err) {
      return err instanceof ApiRequestError && (err.status === 401 || err.status === 403) ? 'stop' : 'again';
    }
    const reader = res.body?.getReader();
    if (!reader) return 'again';
    handlers.onConnected?.(true);
    wait = 1000;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const parsed = parseEventStream(buffer + decoder.decode(value, { stream: true }));
        buffer = parsed.rest;
        if (parsed.retryMs !== undefined) wait = Math.min(Math.max(parsed.retryMs, 250), MAX_WAIT_MS);
        for (const e of parsed.events) handlers.onEvent(e);
      }
    } catch {
      // dropped (or closed by us): opened again below unless closed
    }
    return 'again';
  }

  async function loop() {
    while (!abort.signal.aborted) {
      const next = await once();
      if (abort.signal.aborted || next === 'stop') return;
      handlers.onConnected?.(false);
      await new Promise<void>((r) => (timer = setTimeout(r, wait)));
      wait = Math.min(wait * 2, MAX_WAIT_MS);
    }
  }
  void loop();
  return {
    close() {
      abort.abort();
      if (timer) clearTimeout(timer);
    },
  };
}
