// The simulated venue's log of level decreases no print has explained yet (venue/recent-decreases.ts):
// the window, what a print explains (oldest first, the rest held for its update), and the ring's bound.
import { describe, expect, it } from 'vitest';
import { RecentDecreases } from '../../src/venue/recent-decreases.js';
import { PAIR_WINDOW_MS } from '../../src/venue/queue-model.js';

describe('RecentDecreases', () => {
  it('sums the decreases of one level shown by a time, within the window of another', () => {
    const d = new RecentDecreases();
    d.add('BUY', 5000, 300, 100);
    d.add('BUY', 5000, 200, 150);
    d.add('SELL', 5000, 999, 100); // the other side
    d.add('BUY', 4900, 999, 100); // another price
    expect(d.amountAt('BUY', 5000, 160)).toBe(500);
    // shown by 120 only the first; past the window of the first, only the second
    expect(d.amountAt('BUY', 5000, 160, 120)).toBe(300);
    expect(d.amountAt('BUY', 5000, 100 + PAIR_WINDOW_MS + 1)).toBe(200);
    expect(d.amountAt('BUY', 5000, 150 + PAIR_WINDOW_MS + 1)).toBe(0);
  });

  it('a print explains the decreases of its level, oldest first; what it leaves over explains the next update there', () => {
    const d = new RecentDecreases();
    d.add('BUY', 5000, 300, 100);
    d.add('BUY', 5000, 200, 150);
    d.explain('BUY', 5000, 400, 167);
    // the oldest (300) and 100 of the newer: 100 left, of the update at 150
    expect(d.amountAt('BUY', 5000, 170)).toBe(100);
    expect(d.newestTs).toBe(150);
    expect(d.amountAt('BUY', 5000, 170, 120)).toBe(0);
    d.explain('BUY', 5000, 250, 170); // 100 explained, 150 printed before its update
    expect(d.amountAt('BUY', 5000, 170)).toBe(0);
    d.add('BUY', 5000, 400, 180); // 150 of it was that print
    expect(d.amountAt('BUY', 5000, 180)).toBe(250);
    // a print too old to be the update's explains nothing of it
    d.explain('SELL', 5200, 100, 200);
    d.add('SELL', 5200, 100, 200 + PAIR_WINDOW_MS + 1);
    expect(d.amountAt('SELL', 5200, 200 + PAIR_WINDOW_MS + 1)).toBe(100);
  });

  it('keeps the newest 64 decreases, and a snapshot clears them', () => {
    const d = new RecentDecreases();
    for (let i = 0; i < 70; i++) d.add('BUY', 1000 + i, 10, 100);
    expect(d.amountAt('BUY', 1000, 100)).toBe(0);
    expect(d.amountAt('BUY', 1005, 100)).toBe(0);
    expect(d.amountAt('BUY', 1006, 100)).toBe(10);
    expect(d.amountAt('BUY', 1069, 100)).toBe(10);
    d.clear();
    expect(d.amountAt('BUY', 1069, 100)).toBe(0);
  });
});
