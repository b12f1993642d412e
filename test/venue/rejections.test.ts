// The venue's `order_version_mismatch` (orders signed for exchanges the venue no longer takes) has a
// code of its own, so the engine counts and logs it as what it is instead of UNKNOWN. The body is
// the real venue's, as a public report captured it after the V2 migration: 400
// {"error":"order_version_mismatch"}; the official client matches the text anywhere in the error
// (clob-client-v2 client.js _isOrderVersionMismatch, constants.js ORDER_VERSION_MISMATCH_ERROR).
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../src/api/envelope.js';
import { refusalOf, rejectCodeOf } from '../../src/venue/rejections.js';

function refusedWith(status: number, text: string): unknown {
  try {
    decodeBody(status, text, 'POST', '/order');
  } catch (e) {
    return e;
  }
  throw new Error('decodeBody accepted a refusal');
}

describe('venue refusals: order version mismatch', () => {
  it('a 400 {"error":"order_version_mismatch"} is ORDER_VERSION_MISMATCH, its text kept', () => {
    expect(refusalOf(refusedWith(400, '{"error":"order_version_mismatch"}'))).toEqual({ code: 'ORDER_VERSION_MISMATCH', message: 'order_version_mismatch' });
  });

  it('found anywhere in the text, in either case, as the official client finds it; a batch entry too', () => {
    expect(rejectCodeOf('order_version_mismatch')).toBe('ORDER_VERSION_MISMATCH');
    expect(rejectCodeOf('ORDER_VERSION_MISMATCH')).toBe('ORDER_VERSION_MISMATCH');
    expect(rejectCodeOf('order 0xab is invalid: order_version_mismatch')).toBe('ORDER_VERSION_MISMATCH');
    // an error object the envelope cannot read a message from: the body text is the message
    expect(refusalOf(refusedWith(400, '{"error":{"reason":"order_version_mismatch"}}'))?.code).toBe('ORDER_VERSION_MISMATCH');
  });

  it('leaves the other codes as they were', () => {
    expect(rejectCodeOf('INVALID_ORDER_MIN_TICK_SIZE')).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(rejectCodeOf('order 0xab crosses the book')).toBe('INVALID_POST_ONLY_ORDER');
    expect(rejectCodeOf('invalid signature')).toBe('UNKNOWN');
  });
});

describe('venue refusals: a huge message', () => {
  it('is cut to 500 characters before it reaches an error, a log line or the store (bare, envelope and code alike)', () => {
    const big = 'x'.repeat(20_000);
    for (const text of [JSON.stringify({ error: big }), JSON.stringify({ success: false, error: { code: big, message: big } }), JSON.stringify({ error: { message: big } })]) {
      const e = refusedWith(400, text) as { apiMessage: string; code: string; message: string };
      expect(e.apiMessage.length).toBeLessThanOrEqual(503);
      expect(e.code.length).toBeLessThanOrEqual(503);
      expect(e.message.length).toBeLessThan(1200);
      // the parsed body rides on the error only while small: it is logged with it
      expect(JSON.stringify((e as { body?: unknown }).body ?? null).length).toBeLessThan(5000);
    }
    // a small one is kept (a heartbeat refusal names the id to go on with)
    expect((refusedWith(400, JSON.stringify({ error: 'Invalid Heartbeat ID', heartbeat_id: 'h2' })) as { body?: unknown }).body).toEqual({ error: 'Invalid Heartbeat ID', heartbeat_id: 'h2' });
  });
});
