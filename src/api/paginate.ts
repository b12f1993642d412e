// Response validation and the two pagination styles: cursor pages (CLOB, end marker "LTE=") and
// offset lists (Gamma, Data, Content: a page shorter than `limit` is the last).
import type { z } from 'zod';
import { PageLimitError, ResponseShapeError } from '../core/errors.js';
import { END_CURSOR, type Page } from './schemas.js';

/** Validates a response with zod; a mismatch is a ResponseShapeError naming the first issue. */
export function validate<T>(schema: z.ZodType<T>, value: unknown, method: string, path: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  const where = i && i.path.length ? i.path.map(String).join('.') : '(root)';
  throw new ResponseShapeError(method, path, `${where}: ${i?.message ?? 'invalid'}`);
}

/** Pages a walk over our open orders may take (trades: 5x); a cursor that never ends is an error, not 10,000 requests. */
export const ACCOUNT_MAX_PAGES = 100;

/** The longest cursor taken: each is kept for the repeat check and sent back in the next URL. */
const MAX_CURSOR = 1024;

/**
 * Every item of a cursor-paginated endpoint, page by page; stops at "LTE=", an empty cursor or a
 * repeat. More than maxPages pages is a PageLimitError: a caller never acts on a list cut short;
 * so is more than maxItems items (pages are capped in bytes, not in count: a server sending full
 * pages without end would fill the memory before maxPages). A cursor past 1 KB is no cursor.
 */
export async function* cursorItems<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, startCursor?: string, maxPages = 10_000, maxItems = 1_000_000): AsyncGenerator<T> {
  let cursor = startCursor;
  const seen = new Set<string>();
  let items = 0;
  for (let n = 0; n < maxPages; n++) {
    const page = await fetchPage(cursor);
    items += page.data.length;
    if (items > maxItems) throw new PageLimitError(n + 1, `more than ${maxItems} items`);
    yield* page.data;
    const next = page.next_cursor;
    if (!next || next === END_CURSOR || seen.has(next)) return;
    if (next.length > MAX_CURSOR) throw new ResponseShapeError('GET', '(cursor page)', `next_cursor of ${next.length} characters: no cursor is that long`);
    seen.add(next);
    cursor = next;
  }
  throw new PageLimitError(maxPages);
}

/**
 * Every item of an offset-paginated list; stops on a page shorter than `limit`. A full page that
 * repeats the one before (a server ignoring the offset) is a ResponseShapeError: else the walk went
 * on to maxPages, a start-up spending half an hour in the rate limit before it failed.
 */
export async function* offsetItems<T>(fetchPage: (offset: number, limit: number) => Promise<T[]>, limit: number, startOffset = 0, maxPages = 10_000): AsyncGenerator<T> {
  let offset = startOffset;
  let last = '';
  for (let n = 0; n < maxPages; n++) {
    const items = await fetchPage(offset, limit);
    if (items.length >= limit) {
      // its first and last items stand for the page, by id where they have one (a market's
      // volume and prices move between two answers of a server ignoring the offset)
      const ends = JSON.stringify([identity(items[0]), identity(items[items.length - 1])]);
      if (ends === last) throw new ResponseShapeError('GET', `(offset ${offset})`, `the page at offset ${offset} repeats the one before it: the server ignores the offset`);
      last = ends;
    }
    yield* items;
    if (items.length < limit) return;
    offset += items.length;
  }
  throw new PageLimitError(maxPages);
}

/** What an item of a list is, for the repeat check: its id when it has one, else the whole item. */
function identity(item: unknown): unknown {
  if (typeof item === 'object' && item !== null) {
    const o = item as Record<string, unknown>;
    for (const k of ['id', 'condition_id', 'conditionId', 'transactionHash', 'slug']) if (typeof o[k] === 'string' || typeof o[k] === 'number') return o[k];
  }
  return item;
}
