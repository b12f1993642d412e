// The polymarket profile's accounts: API credentials issued per (wallet address, nonce), the same
// ones every time (create and derive agree), and the seeded test accounts (an EOA, type 0, a
// Gnosis-safe proxy, type 2, with its funder, and a deposit wallet, type 3, owned by the account's
// key, as its funder), each with credentials issued for nonce 0.
import { getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hex64 } from './ids.js';

/** 0: EOA; 1: Polymarket proxy; 2: Gnosis safe; 3: deposit wallet, ERC-1271 (the official client's SignatureTypeV2). */
export type PolySignatureType = 0 | 1 | 2 | 3;

/** The wallet a signer (its owner) trades for: a proxy (types 1, 2) or a deposit wallet (type 3). */
export interface PolyWallet {
  /** Checksummed wallet address: the order's maker (and, for a deposit wallet, its signer). */
  address: string;
  signatureType: 1 | 2 | 3;
  /** Checksummed address of the key that controls the wallet. */
  owner: string;
}

/** Signature type of seeded test account i: an EOA, a Gnosis-safe proxy, a deposit wallet, again. */
const TEST_ACCOUNT_TYPES: readonly PolySignatureType[] = [0, 2, 3];

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
  /** The wallet holding the funds (the order's maker) for signature types 1 and 2 (proxy) and 3 (deposit wallet, also the signer). */
  funder?: string;
  apiKey: string;
  secret: string;
  passphrase: string;
}

const uuid = (h: string): string => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;

export class PolymarketAccounts {
  private readonly byKey = new Map<string, PolyCredential>();
  private readonly revoked = new Set<string>();
  /** The wallet (proxy or deposit wallet) per lower-case owner (signer key) address. */
  private readonly wallets = new Map<string, PolyWallet>();
  readonly testAccounts: PolyTestAccount[] = [];

  constructor(
    private readonly seed: number,
    testAccounts = TEST_ACCOUNT_TYPES.length,
  ) {
    for (let i = 0; i < testAccounts; i++) {
      const privateKey = `0x${hex64(`polymarket-test-account:${seed}:${i}`)}` as const;
      const address = privateKeyToAccount(privateKey).address;
      const signatureType = TEST_ACCOUNT_TYPES[i % TEST_ACCOUNT_TYPES.length];
      const label = signatureType === 3 ? 'polymarket-deposit-wallet' : 'polymarket-funder';
      const funder = signatureType === 0 ? undefined : getAddress(`0x${hex64(`${label}:${seed}:${i}`).slice(0, 40)}`);
      if (funder && signatureType !== 0) this.wallets.set(address.toLowerCase(), { address: funder, signatureType, owner: address });
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

  /** The maker address of an API key's orders: the wallet of a proxy or deposit-wallet account, else the signer; undefined for an unknown key. */
  makerOf(apiKey: string): string | undefined {
    const c = this.byKey.get(apiKey);
    return c ? (this.funderOf(c.address) ?? c.address) : undefined;
  }

  /** The wallet (proxy, types 1 and 2, or deposit wallet, type 3) a signer key trades for, when it has one. */
  funderOf(signer: string): string | undefined {
    return this.wallets.get(signer.toLowerCase())?.address;
  }

  /** The wallet a key (its owner's address) controls, with its kind, when it has one. */
  walletOf(owner: string): PolyWallet | undefined {
    return this.wallets.get(owner.toLowerCase());
  }
}
