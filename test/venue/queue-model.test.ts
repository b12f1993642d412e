import { describe, it, expect } from 'vitest';
import { QueueTracker } from '../../src/venue/queue-model.js';

type Step = ['trade', number, number] | ['level', number] | ['snapshot', number];

// Each case: visible size at join, then steps; 'trade' expects the size that reaches the order.
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
    for (const s of steps) {
      if (s[0] === 'trade') expect(q.onTrade(s[1])).toBe(s[2]);
      else if (s[0] === 'level') q.onLevel(s[1]);
      else q.onSnapshot(s[1]);
    }
    expect(q.ahead).toBe(ahead);
  });
});
