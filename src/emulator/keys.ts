// API keys of the emulator: any non-empty Bearer key is accepted unless a list was given; keys
// created through POST /auth/api-key are accepted from then on, DELETE revokes the caller's.
import { hex64 } from './ids.js';
import { SYNTHETIC_OWNER_PREFIX } from './synthetic-market.js';

export class KeyRegistry {
  private readonly accepted: Set<string> | null;
  private readonly revoked = new Set<string>();
  private readonly created = new Map<string, { secret: string; passphrase: string }>();
  private seq = 0;

  constructor(keys?: readonly string[]) {
    this.accepted = keys && keys.length ? new Set(keys) : null;
  }

  /** 0 when the key may act, else the HTTP status (401 no key, 403 not accepted). */
  check(key: string | undefined): 0 | 401 | 403 {
    if (!key) return 401;
    if (key.startsWith(SYNTHETIC_OWNER_PREFIX)) return 403; // the synthetic agents' owner names
    if (this.revoked.has(key)) return 403;
    if (this.created.has(key)) return 0;
    return this.accepted === null || this.accepted.has(key) ? 0 : 403;
  }

  create(by: string): { apiKey: string; secret: string; passphrase: string } {
    const h = hex64(`${by}:${++this.seq}`);
    const apiKey = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
    const cred = { secret: Buffer.from(h.slice(32, 64)).toString('base64'), passphrase: h.slice(0, 16) };
    this.created.set(apiKey, cred);
    this.revoked.delete(apiKey);
    return { apiKey, ...cred };
  }

  revoke(key: string): void {
    this.created.delete(key);
    this.revoked.add(key);
  }

  list(key: string): string[] {
    return [key, ...[...this.created.keys()].filter((k) => k !== key)];
  }
}
