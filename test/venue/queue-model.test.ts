import { describe, it, expect } from 'vitest';
import { PAIR_WINDOW_MS, QueueTracker } from '../../src/venue/queue-model.js';

type Step = ['trade', number, number] | ['trade', number, number, number] | ['level', number] | ['level', number, number] | ['snapshot', number];

// Each case: visible size at join, then steps; 'trade' expects the size that reaches the order.
// A step's timestamp is its index unless given last: steps sharing one are one batch of the feed.
const cases: Array<{ name: string; join: number; steps: Step[]; ahead: number }> = [
  { name: 'joins behind 100: a 60 trade does not reach it', join: 100, steps: [['trade', 60, 0]], ahead: 40 },
  {
    name: 'then a further 60 trade reaches it with 20',
    join: 100,
    steps: [
      ['trade', 60, 0],
      ['trade', 60, 20],
    ],
    ahead: 0,
  },
  { name: 'a trade larger than the queue reaches it at once', join: 30, steps: [['trade', 50, 20]], ahead: 0 },
  {
    name: 'cancellations shrink the queue in proportion',
    join: 100,
    steps: [
      ['level', 200],
      ['level', 100],
    ],
    ahead: 50,
  },
  { name: 'arrivals queue behind', join: 100, steps: [['level', 300]], ahead: 100 },
  {
    name: 'a traded decrease is not counted twice',
    join: 100,
    steps: [
      ['trade', 30, 0],
      ['level', 70],
    ],
    ahead: 70,
  },
  {
    name: 'trades and cancels in one decrease',
    join: 100,
    steps: [
      ['level', 200],
      ['trade', 50, 0],
      ['level', 100],
    ],
    ahead: 34,
  },
  { name: 'level emptied: nothing ahead', join: 100, steps: [['level', 0]], ahead: 0 },
  {
    name: 'queue never exceeds the level',
    join: 100,
    steps: [
      ['trade', 10, 0],
      ['level', 90],
      ['level', 20],
    ],
    ahead: 20,
  },
  {
    name: 'snapshot forgets unmatched trades',
    join: 100,
    steps: [
      ['trade', 40, 0],
      ['snapshot', 60],
      ['level', 30],
    ],
    ahead: 30,
  },
  // The feed's usual order: the book update first, its trade after, in the same timestamp.
  {
    name: 'a decrease reported before its trade (same timestamp) is counted once',
    join: 10000,
    steps: [
      ['level', 4000, 5],
      ['trade', 6000, 0, 5],
    ],
    ahead: 4000,
  },
  {
    name: 'a trade after its decrease reaches the order through what was ahead (FIFO)',
    join: 3000,
    steps: [
      ['level', 10000, 1],
      ['level', 4000, 2],
      ['trade', 6000, 3000, 2],
    ],
    ahead: 0,
  },
  {
    name: 'the part of a decrease its trade does not explain is cancellations, once the pairing window has passed',
    join: 10000,
    steps: [
      ['level', 4000, 2],
      ['trade', 2000, 0, 2],
      ['trade', 4500, 500, 3 + PAIR_WINDOW_MS],
    ],
    ahead: 0,
  },
  {
    // the real feed prints a trade up to ~200 ms after the book update that already shows it
    name: 'a trade 200 ms after its decrease is counted once',
    join: 10000,
    steps: [
      ['level', 4000, 2],
      ['trade', 6000, 0, 202],
    ],
    ahead: 4000,
  },
  {
    name: 'a trade later than PAIR_WINDOW_MS after a decrease is a new trade',
    join: 10000,
    steps: [
      ['level', 4000, 2],
      ['trade', 6000, 2000, 2 + PAIR_WINDOW_MS + 1],
    ],
    ahead: 0,
  },
  {
    name: 'arrivals after the decrease in the same batch queue behind',
    join: 10000,
    steps: [
      ['level', 6000, 2],
      ['level', 9000, 2],
      ['trade', 4000, 0, 2],
    ],
    ahead: 6000,
  },
  {
    name: 'a decrease with no trade: the queue shows it at once',
    join: 10000,
    steps: [['level', 4000, 2]],
    ahead: 4000,
  },
  // Trade volume is applied to the next update of the level, then forgotten.
  {
    name: 'trade volume beyond a decrease does not explain later cancellations',
    join: 100,
    steps: [
      ['trade', 50, 0],
      ['level', 80],
      ['level', 40],
    ],
    ahead: 25,
  },
  {
    name: 'an increase after a trade clears the trade volume',
    join: 100,
    steps: [
      ['trade', 30, 0],
      ['level', 120],
      ['level', 60],
    ],
    ahead: 35,
  },
  {
    name: 'rounds against the order',
    join: 10,
    steps: [
      ['level', 30],
      ['level', 29],
    ],
    ahead: 10,
  },
];

describe('QueueTracker', () => {
  it.each(cases)('$name', ({ join, steps, ahead }) => {
    const q = new QueueTracker(join);
    steps.forEach((s, i) => {
      if (s[0] === 'trade') expect(q.onTrade(s[1], s[3] ?? i)).toBe(s[2]);
      else if (s[0] === 'level') q.onLevel(s[1], s[2] ?? i);
      else q.onSnapshot(s[1], i);
    });
    expect(q.ahead).toBe(ahead);
  });
});
