// Namespace ids as OpenBao draws them: 6 base62 characters from the system's secure random source
// (62^6, about 5.7e10 values). Policies, mounts, tokens and identity keys are keyed by id, so the
// registry also checks each draw is free and draws again on a clash (namespaces.ts).

import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const NAMESPACE_ID_LENGTH = 6;
/** Bytes at or above this would bias the modulo (256 = 4 * 62 + 8): they are skipped. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

export function drawNamespaceId(): string {
  let out = '';
  while (out.length < NAMESPACE_ID_LENGTH) {
    for (const b of randomBytes(2 * NAMESPACE_ID_LENGTH)) {
      if (b >= UNBIASED_LIMIT) continue;
      out += ALPHABET[b % ALPHABET.length];
      if (out.length === NAMESPACE_ID_LENGTH) break;
    }
  }
  return out;
}
