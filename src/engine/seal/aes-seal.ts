// AES-256-GCM sealing of values at rest. Blob layout: 1-byte version, 12-byte nonce, ciphertext,
// 16-byte tag. Optional associated data binds a value to its storage key, so values cannot be
// swapped between keys undetected.

import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import { randomFillPooled } from '../random-pool';
import type { Seal } from '../route-family';

const VERSION = 1;
/** Bytes a sealed value has beyond its plaintext: version, nonce, tag. */
export const SEAL_OVERHEAD = 1 + 12 + 16;

export class AesSeal implements Seal {
  /** A KeyObject, made once: handed a Buffer, every cipher would prepare the key again. */
  private readonly key: KeyObject;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('seal key must be 32 bytes (AES-256)');
    this.key = createSecretKey(key);
  }

  encrypt(plain: Buffer, aad?: string): Buffer {
    // One output buffer, filled in place: this runs for every stored value and every batch token.
    const out = Buffer.allocUnsafe(1 + 12 + plain.length + 16);
    out[0] = VERSION;
    const nonce = randomFillPooled(out.subarray(1, 13));
    const c = createCipheriv('aes-256-gcm', this.key, nonce);
    if (aad !== undefined) c.setAAD(Buffer.from(aad, 'utf8'));
    let at = 13 + c.update(plain).copy(out, 13);
    at += c.final().copy(out, at);
    c.getAuthTag().copy(out, at);
    return out;
  }

  decrypt(sealed: Buffer, aad?: string): Buffer {
    if (sealed.length < 29 || sealed[0] !== VERSION) throw new Error('value is not sealed by this server');
    const nonce = sealed.subarray(1, 13);
    const tag = sealed.subarray(sealed.length - 16);
    const d = createDecipheriv('aes-256-gcm', this.key, nonce);
    if (aad !== undefined) d.setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(tag);
    try {
      return Buffer.concat([d.update(sealed.subarray(13, sealed.length - 16)), d.final()]);
    } catch {
      throw new Error('value could not be unsealed: wrong seal key or corrupted data');
    }
  }
}
