// Deterministic ids for the emulator: every id it makes up (tokens, condition ids, API keys,
// addresses, order-id prefixes) is a hash of a label, so the same seed and inputs give the same ids.
import { createHash } from 'node:crypto';

/** SHA-256 of a label as 64 hex characters. */
export function hex64(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}
