// The Sage Intacct trigger call's pure parts (common/connectors/sage-webhook.ts): the proof of the
// connection's secret (HMAC signature or the body's token), the month and instant read from
// Intacct's date texts, and the event id a redelivery repeats. The route itself, end to end, is in
// test/organization-changes.test.ts ("Sage Intacct platform trigger").
import { createHmac } from 'node:crypto';
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
