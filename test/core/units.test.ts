// The exact size of a venue amount finer than our 0.01-share grid (sizeMicrosIfFiner), beside the
// size parser it shares its rules with (parseFixed): the venue's real fills carry up to 6 decimals
// ("8.771927", polytrader user_ws_messages capture).
import { describe, expect, it } from 'vitest';
import { parseSize, sizeMicrosIfFiner } from '../../src/core/units.js';

describe('sizeMicrosIfFiner', () => {
  it('gives millionths for 3 to 6 decimals finer than the grid, nothing for a grid size', () => {
    expect(sizeMicrosIfFiner('8.771927')).toBe(8_771_927);
    expect(sizeMicrosIfFiner('9.996')).toBe(9_996_000);
    expect(sizeMicrosIfFiner('0.003')).toBe(3_000);
    for (const s of ['9.99', '9.990', '10', '10.000000', '0.01']) expect(sizeMicrosIfFiner(s)).toBeUndefined();
  });
  it('refuses what parseSize refuses, and more than 6 decimals that are not zeros', () => {
    for (const s of ['', '-0.003', '1e-3', '0x1', ' 0.003', '0.003 ', '1.2.3', 'NaN', '0.0000001', '1.2345678']) {
      expect(sizeMicrosIfFiner(s), s).toBeUndefined();
    }
    expect(parseSize('-0.003')).toBe(-1);
    // trailing zeros past the sixth decimal change nothing
    expect(sizeMicrosIfFiner('1.2345670')).toBe(1_234_567);
  });
});
