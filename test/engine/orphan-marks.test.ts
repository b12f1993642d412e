// Tokens held outside every market (a market that left the set with shares): the running PnL
// revalues one when its mark or position moves, not at every reading. Found in review: every loss
// check (one per requote) re-marked every such token ever traded, so a daemon rotating markets for
// weeks spent more and more of its loop on them.
import { describe, expect, it } from 'vitest';
import { RecordingVenue, quotingEngine } from './helpers.js';

describe('running PnL: tokens held outside every market', () => {
  it('are re-marked when they move, not at every reading; the value stays equal to the full one', async () => {
    const { engine } = await quotingEngine((now) => new RecordingVenue(now));
    const orphans = ['901', '902', '903', '904', '905'];
    for (const t of orphans) engine.positions.apply(t, 'BUY', 4000, 1000, 0);
    engine.restoreLastMarks(new Map(orphans.map((t) => [t, 4500])));
    const first = engine.runningPnlMicros();
    expect(first).toBe(engine.pnlMicros());
    let calls = 0;
    const mark = engine.mark.bind(engine);
    engine.mark = (t: string) => {
      if (orphans.includes(t)) calls++;
      return mark(t);
    };
    for (let i = 0; i < 10; i++) engine.runningPnlMicros();
    expect(calls).toBe(0);
    // one of them moves: it alone is re-marked, once
    engine.positions.apply('903', 'BUY', 4000, 500, 0);
    const moved = engine.runningPnlMicros();
    const after = calls;
    expect(moved).toBe(engine.pnlMicros());
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(2);
    calls = after;
    engine.runningPnlMicros();
    expect(calls).toBe(after);
    await engine.stop();
  });
});
