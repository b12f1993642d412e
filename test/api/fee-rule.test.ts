// feeRuleOf: the fee rule of a GET /clob-markets/{condition_id} body, read as the official client
// reads it (fd.r, fd.e; a missing fd or field is 0), refusing what is not a finite non-negative number.
import { describe, expect, it } from 'vitest';
import { feeRuleOf } from '../../src/api/fee-rule.js';

const body = (extra: Record<string, unknown>) => ({
  c: '0xabc',
  t: [
    { t: '1', o: 'Yes' },
    { t: '2', o: 'No' },
  ],
  mts: 0.01,
  nr: false,
  ...extra,
});

describe('feeRuleOf', () => {
  it('reads fd.r as the rate and fd.e as the exponent', () => {
    expect(feeRuleOf(body({ fd: { r: 0.25, e: 2, to: true } }))).toEqual({ rate: 0.25, exponent: 2 });
    expect(feeRuleOf(body({ fd: { r: 0.07, e: 1 } }))).toEqual({ rate: 0.07, exponent: 1 });
  });

  it('counts a missing fd, or a missing field of it, as 0, as the client does', () => {
    expect(feeRuleOf(body({}))).toEqual({ rate: 0, exponent: 0 });
    expect(feeRuleOf(body({ fd: null }))).toEqual({ rate: 0, exponent: 0 });
    expect(feeRuleOf(body({ fd: {} }))).toEqual({ rate: 0, exponent: 0 });
    expect(feeRuleOf(body({ fd: { r: 0.03 } }))).toEqual({ rate: 0.03, exponent: 0 });
  });

  it('refuses NaN, Infinity, negatives, strings and a body that is not market info', () => {
    for (const fd of [{ r: NaN, e: 1 }, { r: Infinity, e: 1 }, { r: 0.1, e: -Infinity }, { r: -0.01, e: 1 }, { r: 0.1, e: -2 }, { r: '0.25', e: 2 }, { r: 0.25, e: '2' }, [0.25, 2], 'x', 3]) {
      expect(feeRuleOf(body({ fd }))).toBeUndefined();
    }
    for (const json of [undefined, null, 'x', 1, [], {}, { fd: { r: 0.25, e: 2 } }, { t: 'x', fd: { r: 0.25, e: 2 } }]) expect(feeRuleOf(json)).toBeUndefined();
  });

  it('takes a body parsed from JSON text', () => {
    expect(feeRuleOf(JSON.parse('{"c":"0x1","t":[{"t":"1","o":"Up"},{"t":"2","o":"Down"}],"mts":0.01,"fd":{"r":0.072,"e":1,"to":true}}'))).toEqual({ rate: 0.072, exponent: 1 });
  });
});
