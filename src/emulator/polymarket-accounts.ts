// The polymarket profile's accounts: API credentials issued per (wallet address, nonce), the same
// ones every time (create and derive agree), and the seeded test accounts (an EOA, type 0, and a
// Gnosis-safe proxy, type 2, with its funder), each with credentials issued for nonce 0.
import { getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hex64 } from './ids.js';

/** 0: EOA; 1: Polymarket proxy; 2: Gnosis safe (the official client's SignatureTypeV2). */
export type PolySignatureType = 0 | 1 | 2;

export interface PolyCredential {
  apiKey: string;
  secret: string;
  passphrase: string;
  /** Checksummed signer (L1) address the credential belongs to. */
  address: string;
  nonce: number;
}

/** A seeded test account as RunningEmulator.accounts and --urls-out list it. */
export interface PolyTestAccount {
  address: string;
  privateKey: `0x${string}`;
  signatureType: PolySignatureType;
  /** The proxy wallet holding the funds (the order's maker) for signature types 1 and 2. */
  funder?: string;
  apiKey: string;
  secret: string;
  passphrase: string;
}

const uuid = (h: string): string => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;

export class PolymarketAccounts {
  private readonly byKey = new Map<string, PolyCredential>();
  private readonly revoked = new Set<string>();
  /** Funder (proxy wallet) per lower-case signer address, for signature types 1 and 2. */
  private readonly funders = new Map<string, string>();
  readonly testAccounts: PolyTestAccount[] = [];

  constructor(
    private readonly seed: number,
    testAccounts = 2,
  ) {
    for (let i = 0; i < testAccounts; i++) {
      const privateKey = `0x${hex64(`polymarket-test-account:${seed}:${i}`)}` as const;
      const address = privateKeyToAccount(privateKey).address;
      const signatureType: PolySignatureType = i % 2 === 0 ? 0 : 2;
      const funder = signatureType === 0 ? undefined : getAddress(`0x${hex64(`polymarket-funder:${seed}:${i}`).slice(0, 40)}`);
      if (funder) this.funders.set(address.toLowerCase(), funder);
      const c = this.issue(address, 0);
      this.testAccounts.push({ address, privateKey, signatureType, funder, apiKey: c.apiKey, secret: c.secret, passphrase: c.passphrase });
    }
  }

  /** The credential of (address, nonce): made on first call, the same one afterwards (POST /auth/api-key). */
  issue(address: string, nonce: number): PolyCredential {
    const a = getAddress(address);
    const h = hex64(`polymarket-credential:${this.seed}:${a.toLowerCase()}:${nonce}`);
    const s = hex64(`polymarket-secret:${this.seed}:${a.toLowerCase()}:${nonce}`);
    const apiKey = uuid(h);
    let c = this.byKey.get(apiKey);
    if (!c) {
      // a URL-safe base64 secret of 32 bytes and a 64-hex passphrase, as the venue issues them
      c = { apiKey, secret: Buffer.from(s, 'hex').toString('base64url') + '=', passphrase: hex64(`polymarket-passphrase:${h}`), address: a, nonce };
      this.byKey.set(apiKey, c);
    }
    this.revoked.delete(apiKey);
    return c;
  }

  /** The credential already issued for (address, nonce) (GET /auth/derive-api-key), if any. */
  derive(address: string, nonce: number): PolyCredential | undefined {
    const a = address.toLowerCase();
    for (const c of this.byKey.values()) if (c.address.toLowerCase() === a && c.nonce === nonce && !this.revoked.has(c.apiKey)) return c;
    return undefined;
  }

  /** The live credential of an API key. */
  credential(apiKey: string | undefined): PolyCredential | undefined {
    if (!apiKey || this.revoked.has(apiKey)) return undefined;
    return this.byKey.get(apiKey);
  }

  /** The user channel's auth: every field must match a live credential; its API key, else undefined. */
  userAuth(auth: unknown): string | undefined {
    if (typeof auth !== 'object' || auth === null) return undefined;
    const a = auth as Record<string, unknown>;
    const c = this.credential(typeof a.apiKey === 'string' ? a.apiKey : undefined);
    return c && a.secret === c.secret && a.passphrase === c.passphrase ? c.apiKey : undefined;
  }

  keysOf(address: string): string[] {
    const a = address.toLowerCase();
    return [...this.byKey.values()].filter((c) => c.address.toLowerCase() === a && !this.revoked.has(c.apiKey)).map((c) => c.apiKey);
  }

  revoke(apiKey: string): void {
    this.revoked.add(apiKey);
  }

  /** The maker address of an API key's orders: the funder of a proxy account, else the signer; undefined for an unknown key. */
  makerOf(apiKey: string): string | undefined {
    const c = this.byKey.get(apiKey);
    return c ? (this.funderOf(c.address) ?? c.address) : undefined;
  }

  /** The proxy wallet a signer trades for (signature types 1 and 2), when it has one. */
  funderOf(signer: string): string | undefined {
    return this.funders.get(signer.toLowerCase());
  }
}
