import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, REDACTED, scrub } from '../src/core/log.js';
import { strictParse, StrictJsonError } from './strict-json.js';

const KEY = 'pk_live_7f3a9c1e55d04b2a';
let saved: string | undefined;
beforeEach(() => {
  saved = process.env.MAKERD_API_KEY;
  process.env.MAKERD_API_KEY = KEY;
});
afterEach(() => {
  if (saved === undefined) delete process.env.MAKERD_API_KEY;
  else process.env.MAKERD_API_KEY = saved;
});

function capture() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'trace', destination: { write: (s: string) => void lines.push(s) } });
  return { logger, lines, text: () => lines.join('') };
}

describe('logger redaction', () => {
  it('removes the API key from headers, nested fields and the message', () => {
    const { logger, lines, text } = capture();
    logger.info({ req: { headers: { authorization: `Bearer ${KEY}`, 'x-other': 'fine' } } }, 'sending');
    logger.info({ deep: { a: { b: { note: `the key is ${KEY}!` } } } }, 'nested');
    logger.warn(`request failed for key ${KEY}`);
    logger.error({ token: [KEY, 'x'] }, 'formatted %s and %j', KEY, { k: KEY });
    expect(lines).toHaveLength(4);
    expect(text()).not.toContain(KEY);
    const first = JSON.parse(lines[0]) as { req: { headers: Record<string, string> }; msg: string };
    expect(first.req.headers.authorization).toBe(REDACTED);
    expect(first.req.headers['x-other']).toBe('fine'); // other fields survive
    expect(JSON.parse(lines[2]).msg).toBe(`request failed for key ${REDACTED}`);
  });
  it('removes it from errors, child bindings, secret-named keys and deep nesting', () => {
    const { logger, text, lines } = capture();
    logger.error({ err: new Error(`boom ${KEY}`) }, 'with err');
    logger.error(new Error(`bare error ${KEY}`));
    logger.child({ apiKey: 'another-secret-value', who: KEY }).info('child');
    logger.info({ password: 'hunter22', nested: { api_key: 'abc123456' } }, 'names');
    let deep: Record<string, unknown> = { leaf: KEY };
    for (let i = 0; i < 15; i++) deep = { d: deep };
    logger.info(deep, 'deep');
    const out = text();
    expect(lines).toHaveLength(5);
    for (const s of [KEY, 'another-secret-value', 'hunter22', 'abc123456']) expect(out).not.toContain(s);
    expect(out).toContain('boom');
  });
  it('scrubs any Bearer token even when it is not the configured key', () => {
    expect(scrub('Authorization: Bearer abc.def-ghi', [])).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(scrub({ Authorization: 'x' }, [])).toEqual({ Authorization: REDACTED });
  });
  it('the polymarket secrets: L2 header names, and the private key and secret values from the environment', () => {
    expect(scrub({ POLY_API_KEY: 'k', POLY_PASSPHRASE: 'p', privateKey: 'x', POLY_ADDRESS: '0xabc' }, [])).toEqual({
      POLY_API_KEY: REDACTED,
      POLY_PASSPHRASE: REDACTED,
      privateKey: REDACTED,
      POLY_ADDRESS: '0xabc',
    });
    const pk = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
    const saved = { pk: process.env.MAKERD_PRIVATE_KEY, s: process.env.MAKERD_API_SECRET };
    process.env.MAKERD_PRIVATE_KEY = pk;
    process.env.MAKERD_API_SECRET = 'c2VjcmV0LXZhbHVl';
    try {
      const { logger, text } = capture();
      logger.error({ err: new Error(`signing with ${pk} failed`), note: 'secret c2VjcmV0LXZhbHVl here' }, 'x');
      expect(text()).not.toContain(pk);
      expect(text()).not.toContain('c2VjcmV0LXZhbHVl');
    } finally {
      if (saved.pk === undefined) delete process.env.MAKERD_PRIVATE_KEY;
      else process.env.MAKERD_PRIVATE_KEY = saved.pk;
      if (saved.s === undefined) delete process.env.MAKERD_API_SECRET;
      else process.env.MAKERD_API_SECRET = saved.s;
    }
  });
});

describe('log lines are strict JSON: no key twice', () => {
  it('the strict parser refuses a duplicated key at any depth and takes good lines', () => {
    expect(() => strictParse('{"part":"a","part":"b"}')).toThrow(StrictJsonError);
    expect(() => strictParse('{"x":{"k":1,"k":2}}')).toThrow(/duplicate key "k"/);
    expect(() => strictParse('[{"a":1},{"b":{"c":[{"d":1,"d":1}]}}]')).toThrow(/duplicate key "d"/);
    expect(() => strictParse('{"a":1,}')).toThrow(StrictJsonError);
    expect(strictParse('{"a":[1,-2.5e3,"x\\"y",true,null,{}],"b":{"a":1}}')).toEqual({ a: [1, -2500, 'x"y', true, null, {}], b: { a: 1 } });
  });

  it('a child of a child joins their parts ("engine/risk") instead of writing "part" twice', () => {
    const { logger, lines } = capture();
    const risk = logger.child({ part: 'engine' }).child({ part: 'risk' });
    risk.warn({ reason: 'x' }, 'risk: blocked');
    risk.child({ part: 'gate', other: 1 }).info('deeper');
    logger.child({ part: 'engine' }).child({ market: 'm1' }).child({ market: 'm2' }).info('rebound');
    logger.child({ name: 'other', msg: 'x', level: 'y' }).child({ market: 'm1' }).child({ market: 'm1' }).info('renamed');
    const parsed = lines.map((l) => strictParse(l) as Record<string, unknown>);
    expect(parsed[0].part).toBe('engine/risk');
    expect(parsed[1].part).toBe('engine/risk/gate');
    expect(parsed[1].other).toBe(1);
    expect(parsed[2]).toMatchObject({ part: 'engine', market: 'm2' });
    // the root has no name here: a child may bind one; msg and level are pino's own
    expect(parsed[3]).toMatchObject({ name: 'other', msg2: 'x', level2: 'y', level: 30, msg: 'renamed', market: 'm1' });
  });

  it("a line's fields never repeat a binding or one of pino's own keys (level, time, msg, pid, name)", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'trace', name: 'makerd-test', destination: { write: (s: string) => void lines.push(s) } });
    const eng = logger.child({ part: 'engine', market: 'm1' });
    eng.info({ part: 'engine', market: 'm2', level: 'high', time: 5, msg: 'inner', pid: 1, name: 'n', x: 1 }, 'outer');
    eng.info({ market: 'm1' }, 'same value');
    eng.error(new Error('boom'));
    const parsed = lines.map((l) => strictParse(l) as Record<string, unknown>);
    // the binding keeps its key; a different value of the line's own is kept under another name
    expect(parsed[0]).toMatchObject({ level: 30, msg: 'outer', name: 'makerd-test', part: 'engine', market: 'm1', market2: 'm2', level2: 'high', time2: 5, msg2: 'inner', pid2: 1, name2: 'n', x: 1 });
    expect(parsed[0].part2).toBeUndefined(); // the same value is written once
    expect(parsed[1]).toMatchObject({ market: 'm1', msg: 'same value' });
    expect(parsed[1].market2).toBeUndefined();
    expect(parsed[2].message).toBe('boom');
  });
});
