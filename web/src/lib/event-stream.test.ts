// The server-sent events parser the Operations page's stream reads with: whole events only (the
// unfinished rest kept for the next chunk), named events, several data lines, comments, CRLF, and
// the server's retry.
import { parseEventStream } from './event-stream';

it('answers whole events and keeps the unfinished rest', () => {
  const first = parseEventStream('retry: 3000\n\nevent: version\ndata: {"version":"v1"}\n\n: ping\n\nevent: version\ndata: {"vers');
  expect(first.events).toEqual([{ event: 'version', data: '{"version":"v1"}' }]);
  expect(first.retryMs).toBe(3000);
  expect(first.rest).toBe('event: version\ndata: {"vers');
  const second = parseEventStream(`${first.rest}ion":"v2"}\n\n`);
  expect(second.events).toEqual([{ event: 'version', data: '{"version":"v2"}' }]);
  expect(second.rest).toBe('');
});

it('joins data lines, names an unnamed event "message", and reads CRLF line ends', () => {
  expect(parseEventStream('data: a\r\ndata: b\r\n\r\ndata:c\n\n').events).toEqual([
    { event: 'message', data: 'a\nb' },
    { event: 'message', data: 'c' },
  ]);
  expect(parseEventStream(': just a comment\n\n').events).toEqual([]);
});
