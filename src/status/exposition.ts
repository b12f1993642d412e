// The Prometheus text exposition (format 0.0.4) of a prom-client registry, written a slice of
// series at a time with a loop turn between slices. prom-client's own registry.metrics() formats
// each family in one turn: at 1,000 markets a family of 4,000 series held the loop 20-50 ms, and
// every feed frame and order waited behind it. Same text as registry.metrics() (tested against it).
import type { Registry } from 'prom-client';
import { nextTurn } from '../core/clock.js';

/** Series written per loop turn (a few µs each). */
export const EXPOSITION_SLICE = 250;

// as prom-client escapes them (registry.js escapeString and escapeLabelValue)
const escapeText = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (s: string): string => escapeText(s).replace(/"/g, '\\"');
/** 'NaN' where prom-client writes 'Nan' (the format's own spelling; no family of ours writes one). */
const valueText = (v: number): string => (Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : `${v}`);

function labelsText(labels: Partial<Record<string, string | number>> | undefined): string {
  if (labels === undefined) return '';
  let out = '';
  for (const k in labels) {
    const v = labels[k];
    out += `${out ? ',' : '{'}${k}="${typeof v === 'string' ? escapeLabel(v) : String(v)}"`;
  }
  return out ? out + '}' : '';
}

/**
 * The exposition as pieces, each at most EXPOSITION_SLICE series, with a loop turn after each
 * full slice and after each family's read (its collect, which may take turns of its own). The
 * pieces joined are the whole text.
 */
export async function* expositionPieces(reg: Registry): AsyncGenerator<string> {
  let first = true;
  for (const { name: key } of reg.getMetricsAsArray()) {
    const metric = reg.getSingleMetric(key);
    if (metric === undefined) continue;
    const m = await metric.get();
    const name = escapeText(m.name);
    let out = `${first ? '' : '\n'}# HELP ${name} ${escapeText(m.help)}\n# TYPE ${name} ${m.type}`;
    first = false;
    const values = m.values ?? [];
    for (let i = 0; i < values.length; i++) {
      const v: { metricName?: string; labels: Partial<Record<string, string | number>>; value: number } = values[i];
      out += `\n${v.metricName ?? name}${labelsText(v.labels)} ${valueText(v.value)}`;
      if ((i + 1) % EXPOSITION_SLICE === 0 && i + 1 < values.length) {
        yield out;
        out = '';
        await nextTurn();
      }
    }
    yield out + '\n';
    await nextTurn();
  }
}
