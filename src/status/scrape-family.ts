// A metric family read afresh from the running daemon at each scrape (families.ts registers them),
// its series set a slice a loop turn so that a family of thousands does not hold the loop.
import { Counter, Gauge, type Registry } from 'prom-client';
import { nextTurn } from '../core/clock.js';
import { EXPOSITION_SLICE } from './exposition.js';

export type Labels = Record<string, string>;
export type Sample = readonly [Labels, number];

/** A family's samples, read at each scrape (in one turn, or over several when it is a promise). */
export type Read = () => Iterable<Sample> | Promise<Iterable<Sample>>;

/**
 * A gauge (or counter) whose series are read afresh at each scrape, set EXPOSITION_SLICE a loop
 * turn: a family of thousands (a series per token) would otherwise hold the loop while prom-client
 * hashes each series' labels. A sample whose value is not finite (or, for a counter, negative) is
 * left out.
 */
export function scrapeFamily(reg: Registry, type: 'gauge' | 'counter', name: string, help: string, labelNames: string[], read: Read): void {
  const set = async (put: (l: Labels, v: number) => void, ok: (v: number) => boolean) => {
    let n = 0;
    for (const [l, v] of await read()) {
      if (ok(v)) put(l, v);
      if (++n % EXPOSITION_SLICE === 0) await nextTurn();
    }
  };
  const registers = [reg];
  if (type === 'gauge')
    new Gauge({
      name: `makerd_${name}`,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        await set((l, v) => this.set(l, v), Number.isFinite);
      },
    });
  else
    new Counter({
      name: `makerd_${name}_total`,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        await set(
          (l, v) => this.inc(l, v),
          (v) => Number.isFinite(v) && v >= 0,
        );
      },
    });
}
