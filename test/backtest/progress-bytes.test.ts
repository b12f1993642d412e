// The backtest's progress bar counts each record's size in the file: the sum over a recording is its
// size within a few percent, in either line version (version 2 embeds the frame as is; version 1
// escapes it), so the bar does not reach 100% early.
import { describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { inlineRecords } from '../../src/backtest/record-source.js';
import { DecodeStats } from '../../src/feed/decode-stats.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { tempDir } from './helpers.js';

async function countedBytes(path: string): Promise<number> {
  let sum = 0;
  for await (const chunk of inlineRecords([path], new DecodeStats('market'), { bytes: true })) {
    for (let r = chunk.next(); r !== undefined; r = chunk.next()) sum += r.bytes;
  }
  return sum;
}

describe('backtest progress: bytes per record', () => {
  it.each([2, 1] as const)('line version %s: the records add up to the file size within 5%%', async (lineVersion) => {
    const file = join(tempDir('progress-bytes'), `r${lineVersion}.jsonl`);
    await writeSyntheticRecording({ file, seed: 3, durationS: 60, markets: 1, ...(lineVersion === 1 ? { lineVersion: 1 } : {}) });
    const size = statSync(file).size;
    const counted = await countedBytes(file);
    expect(Math.abs(counted - size) / size).toBeLessThan(0.05);
  });
});
