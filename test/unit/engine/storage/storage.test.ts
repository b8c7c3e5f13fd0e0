// Runs the conformance suite against every Storage implementation, plus the barrier's own checks.

import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storageConformance } from './conformance';
import { MemoryStorage } from '../../../../src/engine/storage/memory';
import { SqliteStorage } from '../../../../src/engine/storage/sqlite';
import { BarrierStorage } from '../../../../src/engine/storage/barrier';
import { AesSeal } from '../../../../src/engine/seal/aes-seal';

const tempDir = () => mkdtempSync(join(tmpdir(), 'kw-storage-'));

storageConformance('memory', async () => ({ storage: new MemoryStorage() }));

storageConformance('sqlite', async () => {
  const dir = tempDir();
  return { storage: new SqliteStorage(join(dir, 'db')), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

storageConformance('barrier over sqlite', async () => {
  const dir = tempDir();
  return {
    storage: new BarrierStorage(new SqliteStorage(join(dir, 'db')), new AesSeal(randomBytes(32))),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('barrier', () => {
  it('stores nothing readable and binds values to their keys', async () => {
    const physical = new MemoryStorage();
    const barrier = new BarrierStorage(physical, new AesSeal(randomBytes(32)));
    await barrier.put('a', Buffer.from('top secret value'));
    await barrier.put('b', Buffer.from('other'));
    const sealed = (await physical.get('a'))!;
    expect(sealed.includes(Buffer.from('top secret'))).toBe(false);
    await physical.put('b', sealed); // move a's ciphertext under b
    await expect(barrier.get('b')).rejects.toThrow(/could not be unsealed/);
  });

  it('another key cannot read the data', async () => {
    const physical = new MemoryStorage();
    await new BarrierStorage(physical, new AesSeal(randomBytes(32))).put('a', Buffer.from('x'));
    await expect(new BarrierStorage(physical, new AesSeal(randomBytes(32))).get('a')).rejects.toThrow();
  });
});
