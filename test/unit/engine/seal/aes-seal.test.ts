import { randomBytes } from 'node:crypto';
import { AesSeal } from '../../../../src/engine/seal/aes-seal';

describe('AesSeal', () => {
  const seal = new AesSeal(randomBytes(32));

  it('round-trips values of every size, with and without associated data', () => {
    for (const n of [0, 1, 15, 16, 17, 737, 70_000]) {
      const plain = randomBytes(n);
      const sealed = seal.encrypt(plain, `k/${n}`);
      expect(sealed.length).toBe(1 + 12 + n + 16);
      expect(seal.decrypt(sealed, `k/${n}`).equals(plain)).toBe(true);
      expect(seal.decrypt(seal.encrypt(plain)).equals(plain)).toBe(true);
    }
  });

  it('uses a fresh nonce per value', () => {
    const nonces = new Set(Array.from({ length: 2000 }, () => seal.encrypt(Buffer.from('same')).subarray(1, 13).toString('hex')));
    expect(nonces.size).toBe(2000);
  });

  it('refuses a tampered value, another key path, or another seal key', () => {
    const sealed = seal.encrypt(Buffer.from('value'), 'a');
    const flipped = Buffer.from(sealed);
    flipped[14] ^= 1;
    expect(() => seal.decrypt(flipped, 'a')).toThrow(/could not be unsealed/);
    expect(() => seal.decrypt(sealed, 'b')).toThrow(/could not be unsealed/);
    expect(() => new AesSeal(randomBytes(32)).decrypt(sealed, 'a')).toThrow(/could not be unsealed/);
  });
});
