// Issue 12, item 8 (b), in part: for fixed inputs, makerd's L1 (EIP-712 ClobAuth) and L2 (HMAC)
// headers equal those of Polymarket's own client (@polymarket/clob-client-v2, a dev dependency)
// byte for byte.
import { describe, expect, it } from 'vitest';
import { createL1Headers, createL2Headers } from '@polymarket/clob-client-v2';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { l1Headers, l2Headers, l2Signature, POLYGON_CHAIN_ID } from '../../src/api/polymarket-auth.js';

// a well-known test key (the first account of the hardhat/anvil mnemonic): never funded for real use
const PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const account = privateKeyToAccount(PK);
// no request is ever made: the wallet client only signs
const wallet = createWalletClient({ account, chain: polygon, transport: http('http://127.0.0.1:9') });
const creds = { key: '2f6b1c3a-0000-4000-8000-000000000001', secret: 'dGhpcyBpcyBhIHRlc3Qgc2VjcmV0IGZvciBobWFjIQ==', passphrase: 'pass-phrase' };

describe('Polymarket auth headers equal the official client', () => {
  it('L1: the ClobAuth signature and headers, for several timestamps and nonces', async () => {
    for (const [ts, nonce] of [
      [1_700_000_000, 0],
      [1_764_000_123, 7],
    ] as const) {
      const theirs = await createL1Headers(wallet as never, POLYGON_CHAIN_ID, nonce, ts);
      const ours = await l1Headers(PK, ts, nonce);
      expect(ours).toEqual(theirs);
    }
  });

  it('L2: the HMAC headers, with and without a body, URL-safe and standard secrets', async () => {
    const cases: Array<[string, string, string | undefined]> = [
      ['GET', '/data/orders', undefined],
      ['POST', '/order', JSON.stringify({ order: { salt: 1, side: 'BUY' }, owner: creds.key, orderType: 'GTC' })],
      ['DELETE', '/orders', JSON.stringify(['0xabc', '0xdef'])],
    ];
    for (const secret of [creds.secret, creds.secret.replace(/\+/g, '-').replace(/\//g, '_'), 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8-_w']) {
      for (const [method, path, body] of cases) {
        const c = { ...creds, secret };
        const theirs = await createL2Headers(wallet as never, c, { method, requestPath: path, body }, 1_764_000_000);
        expect(l2Headers(account.address, c, 1_764_000_000, method, path, body)).toEqual(theirs);
      }
    }
    expect(() => l2Signature('', 1, 'GET', '/')).toThrow(/secret is empty/);
  });
});
