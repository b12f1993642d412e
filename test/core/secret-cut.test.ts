// A secret cut in half is no longer the whole value the logger scrubs (found in review): a rejected
// user-channel frame carries our API key (`owner`), and its sample was cut to 160 characters before
// the logger saw it, so a key crossing character 160 was logged in part, in clear. Likewise a venue's
// error text, cut before it reaches an error, a log line or the store.
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { DecodeStats } from '../../src/feed/decode-stats.js';
import { decodeBody } from '../../src/api/envelope.js';

const KEY = '3e2c94ca-8d1f-4b7e-9a61-0c5d2e7f8b13';
const before = process.env.MAKERD_API_KEY;
afterEach(() => {
  if (before === undefined) delete process.env.MAKERD_API_KEY;
  else process.env.MAKERD_API_KEY = before;
});

describe('a secret across the cut', () => {
  it('a rejected frame whose sample cut falls inside the API key logs none of it', () => {
    process.env.MAKERD_API_KEY = KEY;
    const lines: string[] = [];
    const stats = new DecodeStats('user', createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } }));
    const frame = `{"event_type":"order","id":"0x${'a'.repeat(100)}","owner":"${KEY}","price":"bad"}`;
    expect(frame.indexOf(KEY)).toBeLessThan(160);
    expect(frame.indexOf(KEY) + KEY.length).toBeGreaterThan(160);
    stats.reject('bad_field:price', frame);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(KEY.slice(0, 8));
  });

  it("a venue's error text cut inside the API key keeps none of it", () => {
    process.env.MAKERD_API_KEY = KEY;
    const text = JSON.stringify({ error: `${'x'.repeat(480)} owner ${KEY} not allowed` });
    let message = '';
    try {
      decodeBody(400, text, 'POST', '/orders');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/POST \/orders -> 400/);
    expect(message).not.toContain(KEY.slice(0, 8));
  });
});
