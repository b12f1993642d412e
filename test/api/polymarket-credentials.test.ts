// Issue 12, item 2: the polymarket credentials come from the environment only; a malformed one is a
// ConfigError naming the variable and never echoing its value; every signature type the official
// client knows (0 EOA, 1 proxy, 2 safe, 3 deposit wallet) is taken, a wallet type needs its address.
import { describe, expect, it } from 'vitest';
import { createL2Headers, SignatureTypeV2 } from '@polymarket/clob-client-v2';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { polymarketCredentialsFromEnv } from '../../src/api/polymarket-credentials.js';
import { orderSalt, signOrderV2 } from '../../src/api/polymarket-order.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { ConfigError } from '../../src/core/errors.js';

const PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const FUNDER = '0x1111111111111111111111111111111111111111';

function refused(env: NodeJS.ProcessEnv): ConfigError {
  try {
    polymarketCredentialsFromEnv(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('accepted');
}

describe('polymarket credentials from the environment', () => {
  it('reads every variable; a type needing a wallet needs MAKERD_FUNDER', () => {
    const c = polymarketCredentialsFromEnv({ MAKERD_PRIVATE_KEY: PK, MAKERD_API_KEY: 'k', MAKERD_API_SECRET: 'c2VjcmV0', MAKERD_API_PASSPHRASE: 'p' });
    expect(c).toEqual({ privateKey: PK, apiKey: 'k', apiSecret: 'c2VjcmV0', apiPassphrase: 'p', funder: undefined, signatureType: 0 });
    // every type of the official client's SignatureTypeV2 enum
    const known = Object.values(SignatureTypeV2).filter((v): v is number => typeof v === 'number');
    expect(known.sort()).toEqual([0, 1, 2, 3]);
    for (const t of known.filter((x) => x > 0)) {
      expect(polymarketCredentialsFromEnv({ MAKERD_SIGNATURE_TYPE: String(t), MAKERD_FUNDER: FUNDER }).signatureType).toBe(t);
      expect(refused({ MAKERD_SIGNATURE_TYPE: String(t) }).key).toBe('MAKERD_FUNDER');
    }
  });

  it("type 0 (EOA) takes no funder but the key's own address: a proxy or safe wallet needs its type", () => {
    // PK's address: under type 0 the venue wants maker == signer, so any other funder signs invalid orders
    const own = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    for (const env of [{ MAKERD_PRIVATE_KEY: PK, MAKERD_FUNDER: FUNDER }, { MAKERD_PRIVATE_KEY: PK, MAKERD_FUNDER: FUNDER, MAKERD_SIGNATURE_TYPE: '0' }, { MAKERD_FUNDER: FUNDER }]) {
      const e = refused(env);
      expect(e.key).toBe('MAKERD_FUNDER');
      expect(e.reason).toMatch(/MAKERD_SIGNATURE_TYPE 1, 2 or 3/);
      expect(e.reason).toMatch(/POLY_PROXY/);
      expect(e.reason).toMatch(/POLY_GNOSIS_SAFE/);
    }
    // the key's own address, in either case, stays accepted (taken in its checksummed form)
    for (const f of [own, own.toLowerCase(), own.toUpperCase().replace('0X', '0x')]) {
      expect(polymarketCredentialsFromEnv({ MAKERD_PRIVATE_KEY: PK, MAKERD_FUNDER: f })).toMatchObject({ funder: own, signatureType: 0 });
    }
  });

  it("types 1, 2 and 3 sign for a wallet that is not the key's own address: the key's address as funder is refused", () => {
    const own = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    for (const t of ['1', '2', '3']) {
      for (const f of [own, own.toLowerCase()]) {
        const e = refused({ MAKERD_PRIVATE_KEY: PK, MAKERD_FUNDER: f, MAKERD_SIGNATURE_TYPE: t });
        expect(e.key).toBe('MAKERD_FUNDER');
        expect(e.reason).toMatch(/proxy|safe|deposit/);
      }
      expect(polymarketCredentialsFromEnv({ MAKERD_PRIVATE_KEY: PK, MAKERD_FUNDER: FUNDER, MAKERD_SIGNATURE_TYPE: t })).toMatchObject({ funder: FUNDER });
    }
  });

  it('a funder in one case is taken checksummed and signs; a mixed case that fails its checksum (a typo) is refused at start-up', async () => {
    // an address with letters (hardhat's third account): viem refuses to sign for a mixed-case address whose
    // EIP-55 checksum is wrong, and for an all-capitals one, so a funder taken as written passed start-up
    // and every order then failed to sign
    const wallet = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    const flipped = wallet.replace('C44', 'c44');
    for (const f of [wallet, wallet.toLowerCase(), '0x' + wallet.slice(2).toUpperCase()]) {
      const c = polymarketCredentialsFromEnv({ MAKERD_PRIVATE_KEY: PK, MAKERD_FUNDER: f, MAKERD_SIGNATURE_TYPE: '1' });
      expect(c.funder).toBe(wallet);
      const now = 1_700_000_000_000;
      const signed = await signOrderV2(PK, {
        tokenId: '1',
        side: 'BUY',
        price: 5000,
        size: 1000,
        negRisk: false,
        salt: orderSalt(() => 0.5, now),
        timestampMs: now,
        signatureType: 1,
        funder: c.funder,
      });
      expect(signed.maker).toBe(wallet);
    }
    const e = refused({ MAKERD_PRIVATE_KEY: PK, MAKERD_FUNDER: flipped, MAKERD_SIGNATURE_TYPE: '1' });
    expect(e.key).toBe('MAKERD_FUNDER');
    expect(e.reason).toMatch(/checksum/);
  });

  it('a malformed value names its variable and is never echoed', () => {
    const secretish = '0xnot-a-key-but-secret-material-0123456789';
    const e = refused({ MAKERD_PRIVATE_KEY: secretish });
    expect(e.key).toBe('MAKERD_PRIVATE_KEY');
    expect(e.message).not.toContain(secretish);
    expect(refused({ MAKERD_SIGNATURE_TYPE: '7' }).key).toBe('MAKERD_SIGNATURE_TYPE');
    expect(refused({ MAKERD_FUNDER: '0x12' }).key).toBe('MAKERD_FUNDER');
  });

  it('the profile says which variables live trading still lacks', () => {
    expect(polymarketProfile(polymarketCredentialsFromEnv({ MAKERD_PRIVATE_KEY: PK })).cannotTrade).toMatch(/MAKERD_API_KEY, MAKERD_API_SECRET, MAKERD_API_PASSPHRASE/);
    expect(polymarketProfile(polymarketCredentialsFromEnv({ MAKERD_PRIVATE_KEY: PK, MAKERD_API_KEY: 'k', MAKERD_API_SECRET: 'c2VjcmV0', MAKERD_API_PASSPHRASE: 'p' })).cannotTrade).toBeUndefined();
  });
});

describe('a private key in the right form but no key of the curve', () => {
  // found in review: 0x00..00, or at or above the curve's order, passed the form check; viem then
  // threw a plain Error (a stack trace, exit 1) whose message held the key's value in decimal
  it('is refused naming the variable, never its value', async () => {
    const N = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
    for (const pk of [`0x${'0'.repeat(64)}`, `0x${N}`, `0x${'f'.repeat(64)}`]) {
      const e = refused({ MAKERD_PRIVATE_KEY: pk });
      expect(e.key).toBe('MAKERD_PRIVATE_KEY');
      expect(e.message).not.toMatch(/\d{12}/);
      expect(e.message).not.toContain(pk.slice(2, 20));
    }
    // the largest key there is, and the smallest, are taken
    const last = (BigInt(`0x${N}`) - 1n).toString(16).padStart(64, '0');
    expect(polymarketCredentialsFromEnv({ MAKERD_PRIVATE_KEY: `0x${last}` }).privateKey).toBe(`0x${last}`);
    expect(polymarketCredentialsFromEnv({ MAKERD_PRIVATE_KEY: `0x${'0'.repeat(63)}1` }).privateKey).toBe(`0x${'0'.repeat(63)}1`);
  });
});

describe('MAKERD_API_SECRET', () => {
  it('is refused at start exactly where the official client cannot decode it (every private call a 401 at run time)', async () => {
    // the official client as oracle: its L2 signing decodes the secret (atob), and throws where it cannot
    const wallet = createWalletClient({ account: privateKeyToAccount(PK), chain: polygon, transport: http('http://127.0.0.1:9') });
    const secrets = [
      'c2VjcmV0',
      'c2VjcmV0LXZhbHVl',
      'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8-_w',
      'YQ',
      'YWI=',
      'YWJj',
      's',
      'abcde',
      'c2Vj*mV0',
      'c2V=jcmV0',
      'c2VjcmV0===',
      'séc',
      '!!!!',
      'a b c d',
    ];
    let refusedCount = 0;
    for (const secret of secrets) {
      const theirs = await createL2Headers(wallet as never, { key: 'k', secret, passphrase: 'p' }, { method: 'GET', requestPath: '/data/orders' }, 1).then(
        () => 'ok',
        () => 'refused',
      );
      let ours = 'ok';
      try {
        polymarketCredentialsFromEnv({ MAKERD_API_KEY: 'k', MAKERD_API_SECRET: secret, MAKERD_API_PASSPHRASE: 'p' });
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        expect(e.key).toBe('MAKERD_API_SECRET');
        if (secret.length >= 5) expect(e.message).not.toContain(secret); // never echoed
        ours = 'refused';
      }
      expect({ secret, ours }).toEqual({ secret, ours: theirs });
      if (ours === 'refused') refusedCount++;
    }
    expect(refusedCount).toBeGreaterThanOrEqual(5);
  });
});
