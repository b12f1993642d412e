import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, scaleScope, scopesFor } from '../../src/api/limit-table.js';

const ids = (...a: Parameters<typeof scopesFor>) => scopesFor(...a).map((s) => `${s.id} ${s.limit}/${s.windowMs}`);

describe('limit table (spec section 8)', () => {
  it('a trading endpoint has both windows plus CLOB general and general', () => {
    expect(ids('clob', 'POST', '/orders')).toEqual(['clob:POST /orders:burst 1000/10000', 'clob:POST /orders:sustained 15000/600000', 'clob 15000/10000', 'general 15000/10000']);
    expect(ids('clob', 'DELETE', '/cancel-market-orders')).toEqual([
      'clob:DELETE /cancel-market-orders:burst 1000/10000',
      'clob:DELETE /cancel-market-orders:sustained 1500/600000',
      'clob 15000/10000',
      'general 15000/10000',
    ]);
    expect(ids('clob', 'POST', '/order').slice(0, 2)).toEqual(['clob:POST /order:burst 3500/10000', 'clob:POST /order:sustained 36000/600000']);
    expect(ids('clob', 'DELETE', '/order').slice(0, 2)).toEqual(['clob:DELETE /order:burst 3000/10000', 'clob:DELETE /order:sustained 30000/600000']);
    expect(ids('clob', 'DELETE', '/orders').slice(0, 2)).toEqual(['clob:DELETE /orders:burst 1000/10000', 'clob:DELETE /orders:sustained 15000/600000']);
    expect(ids('clob', 'DELETE', '/cancel-all').slice(0, 2)).toEqual(['clob:DELETE /cancel-all:burst 250/10000', 'clob:DELETE /cancel-all:sustained 6000/600000']);
  });
  it('the 100 / 10 s CLOB endpoints, and methods matter', () => {
    for (const p of ['/markets', '/book', '/midpoint', '/price', '/spread', '/balances', '/tick-size', '/neg-risk']) {
      expect(ids('clob', 'GET', p)[0]).toBe(`clob:GET ${p} 100/10000`);
    }
    expect(ids('clob', 'GET', '/book?token_id=1')[0]).toBe('clob:GET /book 100/10000');
    // the polymarket profile's market look-up counts as GET /markets
    expect(ids('clob', 'GET', '/markets/0xabc')[0]).toBe('clob:GET /markets 100/10000');
    expect(ids('clob', 'GET', '/order')).toEqual(['clob 15000/10000', 'general 15000/10000']);
    for (const m of ['GET', 'POST', 'DELETE']) expect(ids('clob', m, '/auth/api-key')[0]).toBe('clob:api-key 100/10000');
  });
  it('per-API scopes: Data and Gamma 50 / 10 s, user PnL 200 / 10 s, OK endpoints 100 / 10 s', () => {
    expect(ids('gamma', 'GET', '/markets')).toEqual(['gamma 50/10000', 'general 15000/10000']);
    expect(ids('data', 'GET', '/users/0xabc/pnl')).toEqual(['data:pnl 200/10000', 'data 50/10000', 'general 15000/10000']);
    expect(ids('data', 'GET', '/users/0xabc/trades')).toEqual(['data 50/10000', 'general 15000/10000']);
    expect(ids('data', 'GET', '/health')).toEqual(['ok 100/10000', 'data 50/10000', 'general 15000/10000']);
    expect(ids('gamma', 'GET', '/health')[0]).toBe('ok 100/10000');
    expect(ids('content', 'GET', '/articles')).toEqual(['general 15000/10000']);
    expect(ids('relayer', 'POST', '/submit')).toEqual(['relayer:submit 25/60000', 'general 15000/10000']);
  });
  it('scales limits (floor, min 1) and windows', () => {
    const s = ALL_SCOPES.find((x) => x.id === 'clob:POST /orders:sustained')!;
    expect(scaleScope(s, 0.5, 0.1)).toEqual({ id: s.id, limit: 7500, windowMs: 60_000 });
    expect(scaleScope(s, 0.29, 1).limit).toBe(4350);
    expect(
      scaleScope(
        ALL_SCOPES.find((x) => x.id === 'relayer:submit')!,
        0.01,
        1,
      ).limit,
    ).toBe(1);
    expect(new Set(ALL_SCOPES.map((x) => x.id)).size).toBe(ALL_SCOPES.length);
  });
});
