// The two object checksums GCS reports (base64 MD5 and base64 big-endian CRC32C), computed
// incrementally so uploads are hashed as they stream to disk.

import { createHash, type Hash } from 'node:crypto';

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export class ObjectHasher {
  private md5: Hash = createHash('md5');
  private crc = 0xffffffff;

  update(chunk: Buffer): void {
    this.md5.update(chunk);
    let c = this.crc;
    for (let i = 0; i < chunk.length; i++) c = TABLE[(c ^ chunk[i]) & 0xff] ^ (c >>> 8);
    this.crc = c >>> 0;
  }

  /** { md5Hash, crc32c } as the JSON API returns them. */
  digest(): { md5Hash: string; crc32c: string } {
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE((this.crc ^ 0xffffffff) >>> 0);
    return { md5Hash: this.md5.digest('base64'), crc32c: crc.toString('base64') };
  }
}
