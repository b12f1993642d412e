// marketsFromQuery reads offset pages of the metadata API; over an order that moves while they are
// read (volume: a trade between two pages), a market can come twice. It is quoted once.
import { describe, expect, it } from 'vitest';
import type { GammaClient } from '../../src/api/gamma-client.js';
import type { ClobClient } from '../../src/api/clob-client.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { marketsFromQuery } from '../../src/session/markets.js';

const market = (i: number) => ({ conditionId: `0xc${i}`, clobTokenIds: [`${i}1`, `${i}2`], volumeNum: 100 - i, liquidityNum: 1000, orderPriceMinTickSize: 0.01, orderMinSize: 5, negRisk: false });

describe('marketsFromQuery', () => {
  it('takes a market repeated across pages once, and still fills the limit', async () => {
    // page 1: 0 1 2; a trade moves 2 ahead of 1; page 2 (offset 3): 2 again, then 3 4
    const pages = [market(0), market(1), market(2), market(2), market(3), market(4)];
    const gamma = {
      async *iterateMarkets() {
        for (const m of pages) yield m;
      },
    } as unknown as GammaClient;
    const q = { ...loadConfig({ env: {} }).marketQuery, enabled: true, order: 'volume' as const, limit: 4 };
    // every market names its neg_risk: the CLOB is not asked
    const got = await marketsFromQuery(gamma, {} as ClobClient, q, silentLogger);
    expect(got.map((m) => m.conditionId)).toEqual(['0xc0', '0xc1', '0xc2', '0xc3']);
  });
});
