// The frame preamble both channel decoders share: PONG, JSON.parse, one object or an array of
// them, and each item's outcome counted (an event, or a reject with its reason). A bad item is
// skipped alone; its siblings still decode. Never throws.
import { DecodeStats, FieldError, type Json } from './decode-stats.js';

/** Decodes one object into an event, or returns a reject reason (e.g. `unknown_event:foo`); may throw FieldError. */
export type ItemDecoder<E> = (o: Json, stats: DecodeStats) => E | string;

/** Decodes one raw frame, appending events to `out`; returns the number appended (0 for PONG or a rejected frame). */
export function decodeFrame<E>(frame: string, out: E[], stats: DecodeStats, decode: ItemDecoder<E>): number {
  stats.frames++;
  if (frame === 'PONG' || frame === 'pong') {
    stats.pongs++;
    return 0;
  }
  let v: unknown;
  try {
    v = JSON.parse(frame);
  } catch {
    stats.reject('malformed_json', frame);
    return 0;
  }
  if (!Array.isArray(v)) return item(v, frame, out, stats, decode);
  let n = 0;
  for (let i = 0; i < v.length; i++) n += item(v[i], frame, out, stats, decode);
  return n;
}

function item<E>(v: unknown, frame: string, out: E[], stats: DecodeStats, decode: ItemDecoder<E>): number {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    stats.reject('not_an_object', frame);
    return 0;
  }
  try {
    const ev = decode(v as Json, stats);
    if (typeof ev === 'string') {
      stats.reject(ev, frame);
      return 0;
    }
    out.push(ev);
    stats.events++;
    return 1;
  } catch (e) {
    stats.reject(e instanceof FieldError ? `bad_field:${e.field}` : 'decode_error', frame);
    return 0;
  }
}
