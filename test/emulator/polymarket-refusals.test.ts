// The polymarket profile refuses what the venue refuses: bad L1/L2 authentication (401), orders
// signed by another key, tampered after signing, off the tick, under the minimum, crossing when
// post-only, beyond the balance, batches over 15; and `makerd emulator --profile polymarket`
// writes its test accounts to --urls-out. Orders are signed with makerd's own V2 signer.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orderBodyV2, signOrderV2 } from '../../src/api/polymarket-order.js';
import { cli } from '../../src/cli.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import type { PolyTestAccount } from '../../src/emulator/polymarket-accounts.js';
import { bestPrices, l1Call, l2Call, officialClient } from './polymarket-helpers.js';

const STRANGER = `0x${'5'.repeat(64)}` as const;

let emu: RunningEmulator;
let eoa: PolyTestAccount;
let yes: string;
beforeAll(async () => {
  emu = await startEmulator({ profile: 'polymarket', seed: 21 });
  eoa = emu.accounts[0];
  yes = emu.markets[0].tokens[0];
});
afterAll(async () => {
  await emu.close();
});

/** A signed POST /order body for the EOA test account (price and size in integer units). */
async function body(o: { price: number; size: number; side?: 'BUY' | 'SELL'; key?: `0x${string}`; postOnly?: boolean }): Promise<Record<string, unknown>> {
  const signed = await signOrderV2(o.key ?? eoa.privateKey, {
    tokenId: yes,
    side: o.side ?? 'BUY',
    price: o.price,
    size: o.size,
    negRisk: false,
    salt: String(Math.floor(Math.random() * 1e12)),
    timestampMs: Date.now(),
    signatureType: 0,
  });
  return orderBodyV2(signed, eoa.apiKey, 'GTC', o.postOnly ?? true);
}

async function restingPrice(): Promise<number> {
  const { bid } = await bestPrices(emu, yes);
  return Math.max(100, Math.round(bid * 100) * 100 - 500);
}

describe('polymarket profile refusals', () => {
  it('L2: a wrong secret, passphrase, key or stale timestamp is 401; the right request passes', async () => {
    expect((await l2Call(emu, eoa, 'GET', '/data/orders')).status).toBe(200);
    const wrongSecret = await l2Call(emu, eoa, 'GET', '/data/orders', undefined, { secret: emu.accounts[1].secret });
    expect(wrongSecret).toEqual({ status: 401, json: { error: 'Unauthorized/Invalid api key' } });
    expect((await l2Call(emu, { ...eoa, passphrase: 'x' }, 'GET', '/data/orders')).status).toBe(401);
    expect((await l2Call(emu, { ...eoa, apiKey: emu.accounts[1].apiKey }, 'GET', '/data/orders')).status).toBe(401);
    expect((await l2Call(emu, eoa, 'GET', '/data/orders', undefined, { tsOffsetSec: -120 })).status).toBe(401);
    expect((await l2Call(emu, { ...eoa, address: emu.accounts[1].address }, 'GET', '/data/orders')).status).toBe(401);
    // the official client with a wrong secret
    const c = officialClient(emu, eoa, { key: eoa.apiKey, secret: emu.accounts[1].secret, passphrase: eoa.passphrase });
    await expect(c.getOpenOrders()).rejects.toMatchObject({ status: 401, message: 'Unauthorized/Invalid api key' });
    // no headers at all; a body other than the signed one
    expect(await fetch(`${emu.urls.clob}/data/orders`).then((r) => r.status)).toBe(401);
    const signedFor = { market: emu.markets[0].conditionId };
    expect((await l2Call(emu, eoa, 'DELETE', '/cancel-market-orders', signedFor)).status).toBe(200);
    expect((await l2Call(emu, eoa, 'DELETE', '/cancel-market-orders', signedFor, { sentBody: { market: '' } })).status).toBe(401);
  });

  it('L1: a signature of another wallet, or a stale one, is 401; derive before create is 400', async () => {
    const claimed = await l1Call(emu, STRANGER, 'POST', '/auth/api-key', { address: eoa.address });
    expect(claimed).toEqual({ status: 401, json: { error: 'Invalid L1 Request headers' } });
    expect((await l1Call(emu, eoa.privateKey, 'POST', '/auth/api-key', { tsOffsetSec: -600 })).status).toBe(401);
    expect(await l1Call(emu, STRANGER, 'GET', '/auth/derive-api-key', { nonce: 3 })).toEqual({ status: 400, json: { error: 'Could not derive api key!' } });
    const made = await l1Call(emu, STRANGER, 'POST', '/auth/api-key', { nonce: 3 });
    expect(made.status).toBe(200);
    expect((await l1Call(emu, STRANGER, 'GET', '/auth/derive-api-key', { nonce: 3 })).json).toEqual(made.json);
  });

  it('orders: another signer, a foreign signature, a tampered amount, off tick, under the minimum, crossing, no funds', async () => {
    const price = await restingPrice();
    const good = await body({ price, size: 500 });
    const placed = await l2Call(emu, eoa, 'POST', '/order', good);
    expect(placed.status).toBe(200);
    expect(placed.json).toMatchObject({ success: true, errorMsg: '', status: 'live', orderID: expect.stringMatching(/^0x[0-9a-f]{64}$/), transactionsHashes: [] });
    // the same signed order again
    expect((await l2Call(emu, eoa, 'POST', '/order', good)).json.error).toMatch(/^order 0x[0-9a-f]{64} is invalid\. Duplicated\.$/);

    const foreign = await body({ price, size: 500, key: STRANGER });
    expect(await l2Call(emu, eoa, 'POST', '/order', foreign)).toEqual({ status: 400, json: { error: 'the order signer address has to be the address of the API KEY' } });
    const disguised = structuredClone(foreign) as { order: Record<string, unknown> };
    disguised.order.signer = eoa.address;
    disguised.order.maker = eoa.address;
    expect(await l2Call(emu, eoa, 'POST', '/order', disguised)).toEqual({ status: 400, json: { error: 'invalid signature' } });

    const tampered = (await body({ price, size: 500 })) as { order: Record<string, unknown> };
    tampered.order.makerAmount = String(BigInt(tampered.order.makerAmount as string) - 10_000n);
    expect(await l2Call(emu, eoa, 'POST', '/order', tampered)).toEqual({ status: 400, json: { error: 'invalid signature' } });
    const otherOwner = { ...(await body({ price, size: 500 })), owner: emu.accounts[1].apiKey };
    expect((await l2Call(emu, eoa, 'POST', '/order', otherOwner)).status).toBe(400);

    const offTick = await l2Call(emu, eoa, 'POST', '/order', await body({ price: price + 50, size: 500 }));
    expect(offTick.status).toBe(400);
    expect(offTick.json.error).toMatch(/^order 0x[0-9a-f]{64} is invalid\. Price \(0\.\d+5\) breaks minimum tick size rule: 0\.01$/);
    const small = await l2Call(emu, eoa, 'POST', '/order', await body({ price, size: 100 }));
    expect(small.json.error).toMatch(/is invalid\. Size \(1\) lower than the minimum: 5$/);
    const { ask } = await bestPrices(emu, yes);
    const crossing = await l2Call(emu, eoa, 'POST', '/order', await body({ price: Math.round(ask * 100) * 100, size: 500 }));
    expect(crossing.json.error).toMatch(/^order 0x[0-9a-f]{64} crosses the book$/);
    const huge = await l2Call(emu, eoa, 'POST', '/order', await body({ price, size: 100_000_000 }));
    expect(huge).toEqual({ status: 400, json: { error: 'not enough balance / allowance' } });
    const sellTooMuch = await l2Call(emu, eoa, 'POST', '/order', await body({ price: 9900, size: 2_000_000, side: 'SELL' }));
    expect(sellTooMuch.json).toEqual({ error: 'not enough balance / allowance' });

    // only the first order rests
    const open = await l2Call(emu, eoa, 'GET', '/data/orders?next_cursor=MA==');
    expect(open.json).toMatchObject({ next_cursor: 'LTE=', count: 1, data: [{ id: placed.json.orderID }] });
    expect((await l2Call(emu, eoa, 'DELETE', '/cancel-market-orders', { market: emu.markets[0].conditionId, asset_id: yes })).json).toEqual({ canceled: [placed.json.orderID], not_canceled: {} });
  });

  it('batches: up to 15 orders, each answered; 16 refused; unknown routes are plain 404s', async () => {
    const price = await restingPrice();
    const sixteen = await Promise.all(Array.from({ length: 16 }, () => body({ price, size: 500 })));
    expect((await l2Call(emu, eoa, 'POST', '/orders', sixteen)).status).toBe(400);
    const batch = [...sixteen.slice(0, 14), (await body({ price: price + 50, size: 500 })) as Record<string, unknown>];
    const r = await l2Call(emu, eoa, 'POST', '/orders', batch);
    expect(r.status).toBe(200);
    expect(r.json).toHaveLength(15);
    expect(r.json.filter((x: { success: boolean }) => x.success)).toHaveLength(14);
    expect(r.json[14]).toMatchObject({ success: false, errorMsg: expect.stringContaining('breaks minimum tick size rule') });
    const ids = r.json.slice(0, 14).map((x: { orderID: string }) => x.orderID);
    const del = await l2Call(emu, eoa, 'DELETE', '/orders', ids);
    expect(del.json.canceled).toHaveLength(14);
    expect(await l2Call(emu, eoa, 'GET', '/no-such-route')).toEqual({ status: 404, json: { error: expect.any(String) } });
  });
});

describe('makerd emulator --profile polymarket', () => {
  it('writes the test accounts under "accounts" in --urls-out; their credentials work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-emu-poly-'));
    const urlsFile = join(dir, 'urls.json');
    const out: string[] = [];
    const running = cli(['emulator', '--synthetic', '3', '--profile', 'polymarket', '--heartbeat-timeout-ms', '5000', '--urls-out', urlsFile], { out: (l) => out.push(l), err: () => {}, env: {} });
    try {
      let urls: { clob: string; accounts: PolyTestAccount[] } | undefined;
      for (let i = 0; i < 300 && !urls; i++) {
        try {
          urls = JSON.parse(readFileSync(urlsFile, 'utf8')) as typeof urls;
        } catch {
          await new Promise((res) => setTimeout(res, 10));
        }
      }
      if (!urls) throw new Error('urls file not written');
      expect(urls.accounts.map((a) => a.signatureType)).toEqual([0, 2, 3]);
      expect(Object.keys(urls.accounts[0]).sort()).toEqual(['address', 'apiKey', 'passphrase', 'privateKey', 'secret', 'signatureType']);
      const fake = { urls: { clob: urls.clob } } as unknown as RunningEmulator;
      expect((await l2Call(fake, urls.accounts[1], 'GET', '/data/orders')).status).toBe(200);
      expect(out.join('\n')).not.toContain(urls.accounts[0].privateKey);
    } finally {
      process.emit('SIGTERM');
      expect(await running).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a bad profile and --keys with the polymarket profile (exit 2)', async () => {
    const quiet = { out: () => {}, err: () => {}, env: {} };
    expect(await cli(['emulator', '--profile', 'binance'], quiet)).toBe(2);
    expect(await cli(['emulator', '--profile', 'polymarket', '--keys', 'k1'], quiet)).toBe(2);
    expect(await cli(['emulator', '--heartbeat-timeout-ms', '100'], quiet)).toBe(2);
  });
});
