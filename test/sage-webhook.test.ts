// The Sage Intacct trigger call's pure parts (common/connectors/sage-webhook.ts): the proof of the
// connection's secret (HMAC signature or the body's token), the month and instant read from
// Intacct's date texts, and the event id a redelivery repeats; and the Sage simulator's trigger
// (its control endpoints, signed calls, Sage's retries with one idempotency key) against a local
// receiver. The route itself, end to end, is in test/organization-changes.test.ts ("Sage Intacct
// platform trigger").
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeIntacct } from '../simulators/intacct';
import { instantOfIntacctTime, monthOfIntacctDate, sageCallVerified, sageEventId, sageSignature, sageTriggerBodySchema } from '../common/connectors/sage-webhook';

const SECRET = `sagewh_${'ab'.repeat(32)}`;
const BODY = Buffer.from('{"object":"GLBATCH","recordNo":"12","batchDate":"11/30/2026"}');

describe('proof of the secret', () => {
  it('accepts the HMAC-SHA256 of the exact bytes, hex, under the secret', () => {
    const sig = `sha256=${createHmac('sha256', SECRET).update(BODY).digest('hex')}`;
    expect(sageSignature(BODY, SECRET)).toBe(sig);
    expect(sageCallVerified(BODY, sig, SECRET, undefined)).toBe(true);
    expect(sageCallVerified(BODY, sig.toUpperCase().replace('SHA256=', 'sha256='), SECRET, undefined)).toBe(true);
  });

  it('refuses another key, other bytes, a malformed header, and never falls back to the token when a signature is given', () => {
    expect(sageCallVerified(BODY, sageSignature(BODY, `${SECRET}x`), SECRET, undefined)).toBe(false);
    expect(sageCallVerified(Buffer.from(`${BODY.toString()} `), sageSignature(BODY, SECRET), SECRET, undefined)).toBe(false);
    for (const bad of ['sha256=', 'sha256=zz', `sha1=${'0'.repeat(40)}`, sageSignature(BODY, SECRET).slice(0, -2)]) expect(sageCallVerified(BODY, bad, SECRET, undefined)).toBe(false);
    expect(sageCallVerified(BODY, 'sha256=00', SECRET, SECRET)).toBe(false);
  });

  it('without a signature, accepts the secret itself as the token, nothing else', () => {
    expect(sageCallVerified(BODY, undefined, SECRET, SECRET)).toBe(true);
    expect(sageCallVerified(BODY, undefined, SECRET, SECRET.slice(0, -1))).toBe(false);
    expect(sageCallVerified(BODY, undefined, SECRET, '')).toBe(false);
    expect(sageCallVerified(BODY, undefined, SECRET, undefined)).toBe(false);
  });
});

describe("Intacct's dates", () => {
  it('reads the month of MM/DD/YYYY (with or without a time) and of ISO dates; nothing else', () => {
    expect(monthOfIntacctDate('11/30/2026')).toBe('2026-11');
    expect(monthOfIntacctDate('01/01/2027 00:00:00')).toBe('2027-01');
    expect(monthOfIntacctDate('2026-02-28')).toBe('2026-02');
    for (const bad of [undefined, '', '13/01/2026', '2026-13-01', 'next week', '30.11.2026']) expect(monthOfIntacctDate(bad)).toBeNull();
  });

  it('reads WHENMODIFIED (MM/DD/YYYY HH:MM:SS, UTC) and ISO instants', () => {
    expect(instantOfIntacctTime('11/27/2026 07:05:09')).toBe('2026-11-27T07:05:09.000Z');
    expect(instantOfIntacctTime('2026-11-27T07:05:09.250Z')).toBe('2026-11-27T07:05:09.250Z');
    expect(instantOfIntacctTime('yesterday')).toBeNull();
    expect(instantOfIntacctTime(undefined)).toBeNull();
  });
});

describe('event ids', () => {
  const e = sageTriggerBodySchema.parse({ object: 'glbatch', recordNo: 12, event: 'set', whenModified: '11/27/2026 07:05:09' });
  it("are Sage's idempotency key when given (one per event of a batched call), else what a redelivery repeats", () => {
    if (Array.isArray(e)) throw new Error('one event expected');
    expect(sageEventId(e, 'k-1', 0)).toBe('sage:k-1');
    expect(sageEventId(e, 'k-1', 2)).toBe('sage:k-1#2');
    expect(sageEventId(e, undefined, 0)).toBe('sage:GLBATCH:12:set:11/27/2026 07:05:09');
    expect(sageEventId({ ...e, whenModified: '11/27/2026 07:05:10' }, undefined, 0)).not.toBe(sageEventId(e, undefined, 0));
  });
});

describe("the simulator's platform trigger", () => {
  it('posts a journal to the trigger URL, signed, and retries a 503 with the same idempotency key', async () => {
    const calls: { headers: IncomingMessage['headers']; body: Buffer }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        calls.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(calls.length === 1 ? 503 : 200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const fake = await new FakeIntacct({ triggerRetryDelaysMs: [20, 20, 20] }).start();
    try {
      fake.addCompany('P', 'u', 'p', 2);
      const control = fake.url.replace('/ia/xml/xmlgw.phtml', '/simulator/v1');
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/v1/sage/webhooks/abc`;
      expect((await fetch(`${control}/trigger`, { method: 'PUT', body: JSON.stringify({ companyId: 'P', url }) })).status).toBe(400);
      expect((await fetch(`${control}/trigger`, { method: 'PUT', body: JSON.stringify({ companyId: 'P', url, secret: SECRET }) })).status).toBe(200);
      const posted = await fetch(`${control}/journal`, { method: 'POST', body: JSON.stringify({ companyId: 'P', amount: '12.34', month: '2026-11' }) });
      const answer = (await posted.json()) as { journal: { batchNo: string }; delivered: { ok: boolean; status: number; attempts: number; retrying: boolean } };
      expect(answer.delivered).toMatchObject({ ok: false, status: 503, attempts: 1, retrying: true });
      await fake.triggersSettled();
      expect(calls).toHaveLength(2);
      const [first, second] = calls;
      expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
      expect(second!.body.equals(first!.body)).toBe(true);
      expect(sageCallVerified(second!.body, String(second!.headers['x-ledgerflow-signature']), SECRET, undefined)).toBe(true);
      const event = JSON.parse(second!.body.toString()) as Record<string, string>;
      expect(event).toMatchObject({ object: 'GLBATCH', event: 'add', recordNo: answer.journal.batchNo, batchDate: '11/30/2026', companyId: 'P' });
      expect(monthOfIntacctDate(event.batchDate)).toBe('2026-11');
      expect(fake.triggerDeliveries.at(-1)).toMatchObject({ ok: true, attempts: 2, done: true });
      // Removed: a journal posts nothing.
      expect((await fetch(`${control}/trigger`, { method: 'PUT', body: JSON.stringify({ companyId: 'P', url: null }) })).status).toBe(200);
      expect(await fake.postJournal('P', { month: '2026-11', lines: [{ account: '1000', debit: 100n, credit: 0n }, { account: '1010', debit: 0n, credit: 100n }] }).delivery).toBeNull();
      expect(calls).toHaveLength(2);
    } finally {
      await fake.stop();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });
});
