// makerd verify F: replays a recording (recorder lines or a plain raw-frame capture, plain or gz)
// through the shared market decoder and the book mirror, and reports per token the hash checks,
// mismatches and gaps. Exit 1 on any hash or best-bid/ask mismatch, or when the file could not be
// read to its end; 0 otherwise. A new connection epoch is a reconnect, as in the backtest and live
// (market-pipeline.ts): every book out of sync, groups pending on the old connection dropped.
import { parseArgs } from 'node:util';
import { BookMirror } from '../book/mirror.js';
import { formatPrice } from '../core/units.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../feed/decode-market.js';
import type { MarketEvent } from '../core/events.js';
import { readRecording } from '../feed/replay.js';
import { hashedFieldsOf, parseMetaFrame } from '../backtest/market-meta-line.js';
import { UsageError, type CommandModule } from './command.js';
import { inputFileProblem, systemErrorLine } from './paths.js';

const help = `usage: makerd verify FILE [--min-order-size S] [--neg-risk] [--json]

Replays a market-channel recording through the decoder and the book mirror and prints, per token:
frames, snapshots, deltas, hashes verified (snapshots + timestamp groups) and the price_change
entries they cover, hashed last trade prices recovered (ltp-rec), mismatches, gaps and the final
best bid/ask. Messages sharing a timestamp form a group: each run of equal hashes in it must be the
book after that run (the venue sends either the after-batch hash on every message or each
message's own), and tops may be those after the entry, the message or the batch. A hash that only
fails on the hashed last_trade_price (3 decimals, possibly not yet announced, or the complement's
1 - p) is recovered, not a mismatch. Deltas older than the snapshot that contains them, or sent
before a token's first snapshot, are counted as ignored: their hashes describe a book never held.
The last group is checked at the end of the file: a recording cut inside a batch fails there, as
nothing tells a cut batch from a corrupted hash. A recorded reconnect (a new connection epoch) is
handled as live: a batch the old connection cut is dropped unchecked, and the books wait for their
next snapshots. Groups are timed by the recorded receive times (one quiet for 250 ms is checked).
  --min-order-size S  min_order_size used in the book hash (WS frames omit it; default 5)
  --neg-risk          hash with neg_risk true (WS frames omit it; default false)
                      (a market's metadata line, which makerd record writes first, gives both
                      for its tokens instead)
  --json              print one JSON object instead of the table
A binary market whose second token never gets a snapshot is seeded from the mirror of its
sibling (complement seeding; counted in the 'seeded' column).
Frames the decoder rejects are counted (header line, and the last line when there were any).
A file that cannot be read to its end (a corrupt or truncated .gz) has the frames before the break
checked, and the break named on stderr ("read stopped early").
Exit status: 0 when every check passed over the whole file; 1 on any mismatch, when the file could
not be read to its end (what was read proves nothing about the rest), when the file holds no
valid market frame (nothing was checked), or when a token's updates had no snapshot to start from
(no hash of it verified); 2 on bad usage or a missing or unreadable FILE.`;

export const command: CommandModule = {
  summary: 'replay a recording through the book mirror and check every hash',
  help,
  async main(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { 'min-order-size': { type: 'string' }, 'neg-risk': { type: 'boolean' }, json: { type: 'boolean' } },
    });
    if (positionals.length !== 1) throw new UsageError('exactly one recording file is required');
    const file = positionals[0];
    const missing = inputFileProblem(file);
    if (missing) {
      io.err(`makerd verify: ${missing}: ${file}`);
      return 2;
    }
    const mos = values['min-order-size'];
    if (mos !== undefined && !/^\d+(\.\d+)?$/.test(mos)) throw new UsageError(`--min-order-size must be a decimal, got ${mos}`);
    // the mirror's clock is the recording's receive time (never going back), so a group with no
    // message for a while closes idle as it does live
    let nowMs = 0;
    const mirror = new BookMirror({ verifyEvery: 1, now: () => nowMs, defaultMinOrderSize: mos ?? '5', defaultNegRisk: values['neg-risk'] ?? false });
    const stats = createMarketDecodeStats();
    const frames = new Map<string, number>();
    const out: MarketEvent[] = [];
    const seen = new Set<string>();
    let total = 0;
    let epoch: number | undefined;
    let readError: string | undefined;
    try {
      // a last line the recorder did not finish is left out, counted as a reject
      const onCutLine = (line: string): void => stats.reject('cut_last_line', line.slice(0, 200));
      for await (const r of readRecording(file, (e) => (readError = e.message), onCutLine)) {
        if (r.k === 'meta') {
          // a market's metadata line: its tokens' hashed fields the WS frames omit (min_order_size, neg_risk)
          const m = parseMetaFrame(r.f);
          if (typeof m === 'string') stats.reject(`market_meta: ${m}`, r.f.slice(0, 200));
          else for (const id of [m.tokenId, m.complementId]) mirror.setMeta(id, hashedFieldsOf(m));
          continue;
        }
        if (r.k !== 'market') continue;
        total++;
        if (r.t > nowMs) nowMs = r.t;
        if (r.e !== epoch) {
          // a reconnect, as live (market-pipeline.ts): what the old connection left pending (a batch
          // it cut) is dropped unchecked, and every book waits for its next snapshot
          if (epoch !== undefined) mirror.markAllOutOfSync('reconnect', false);
          epoch = r.e;
        }
        out.length = 0;
        decodeMarketFrame(r.f, out, stats);
        seen.clear();
        for (const ev of out) {
          mirror.apply(ev);
          if (ev.type === 'price_change') for (const c of ev.changes) seen.add(c.assetId);
          else if ('assetId' in ev) seen.add(ev.assetId);
        }
        for (const id of seen) frames.set(id, (frames.get(id) ?? 0) + 1);
      }
    } catch (e) {
      const line = systemErrorLine(e);
      if (!line) throw e;
      io.err(`makerd verify: ${file}: ${line}`);
      return 1;
    }
    // the groups open at the end: those that fail are mismatches still, but are named (a recording
    // stopped between the pieces of one batch fails there as a corrupt last hash does)
    const unfinishedAtEnd = mirror.closeAtEnd();
    mirror.flush();
    let bad = 0;
    const rows = mirror.assetIds().map((id) => {
      const s = mirror.stats(id)!;
      const b = mirror.book(id)!;
      bad += s.mismatches + s.bestMismatches;
      return {
        assetId: id,
        frames: frames.get(id) ?? 0,
        snapshots: s.snapshots,
        seeded: s.seeded,
        deltas: s.deltas,
        ignored: s.ignoredDeltas,
        hashesVerified: s.hashesVerified,
        entriesVerified: s.entriesVerified,
        mismatches: s.mismatches,
        inconsistentGroups: s.inconsistentGroups,
        bestMismatches: s.bestMismatches,
        ltpRecovered: s.ltpRecovered,
        gaps: s.gaps,
        inSync: b.inSync(),
        bestBid: b.bestBid() < 0 ? null : formatPrice(b.bestBid()),
        bestAsk: b.bestAsk() < 0 ? null : formatPrice(b.bestAsk()),
        lastMismatch: mirror.lastMismatch(id),
      };
    });
    const rejected = stats.rejected();
    // nothing decoded: not a recording (or every frame of it is broken), and nothing was verified
    const empty = stats.events === 0;
    // a token with updates but no hash checked (no snapshot to start from, none seeded): it was not verified, no pass
    const unverified = rows.filter((r) => r.hashesVerified === 0 && r.ignored > 0);
    const none = !empty && unverified.length > 0;
    if (readError) io.err(`makerd verify: ${file}: read stopped early (${readError}); checked the ${total} complete frames`);
    if (values.json) {
      io.out(JSON.stringify({ file, frames: total, decode: stats.counters(), tokens: rows, unfinishedAtEnd, readError, ok: bad === 0 && !empty && !none && readError === undefined }));
    } else if (!empty) {
      io.out(`${file}: ${total} frames, ${stats.events} events, ${stats.pongs} PONG, ${stats.rejected()} rejected`);
      io.out('token                 frames snaps seeded deltas ignored hashes entries ltp-rec mismatch best-mm gaps  bid     ask     sync');
      for (const r of rows) {
        const id = r.assetId.length > 20 ? `${r.assetId.slice(0, 8)}…${r.assetId.slice(-8)}` : r.assetId;
        // the columns of the header above, each right-aligned to its width
        const cells: Array<[unknown, number]> = [
          [r.frames, 6],
          [r.snapshots, 5],
          [r.seeded, 6],
          [r.deltas, 6],
          [r.ignored, 7],
          [r.hashesVerified, 6],
          [r.entriesVerified, 7],
          [r.ltpRecovered, 7],
          [r.mismatches, 8],
          [r.bestMismatches, 7],
          [r.gaps, 4],
        ];
        const counts = cells.map(([v, w]) => String(v).padStart(w)).join(' ');
        io.out(`${id.padEnd(21)} ${counts}  ${String(r.bestBid ?? '-').padEnd(7)} ${String(r.bestAsk ?? '-').padEnd(7)} ${r.inSync ? 'yes' : 'NO'}`);
        if (r.lastMismatch) io.out(`  last mismatch at ${r.lastMismatch.timestamp}: expected ${r.lastMismatch.expected}, computed ${r.lastMismatch.computed}`);
      }
      const rej = rejected > 0 ? `; ${rejected} frame${rejected === 1 ? '' : 's'} rejected by the decoder` : '';
      const n = unfinishedAtEnd.length;
      const open = n > 0 ? `; ${n} of them in the last group of the file, which may stop inside a batch (its pieces share the whole batch's hash)` : '';
      const ignored = rows.reduce((n, r) => n + r.ignored, 0);
      io.out(
        bad > 0
          ? `FAIL: ${bad} mismatches${rej}${open}`
          : none
            ? `FAIL: no hash verified of ${unverified.length} token${unverified.length === 1 ? '' : 's'} (${ignored} updates ignored: no book snapshot to start from)${rej}`
            : readError !== undefined
              ? `INCOMPLETE: every hash verified up to where the read stopped${rej}${open}`
              : `OK: every hash verified${rej}${open}`,
      );
    }
    if (empty) {
      io.err(`makerd verify: ${file}: no valid market frame (${total} lines read, ${rejected} rejected)`);
      return 1;
    }
    // a file read only in part is no pass, however well that part verified
    return bad === 0 && !none && readError === undefined ? 0 : 1;
  },
};
