// Child process for the durability test: writes keys through the sealed SQLite store as fast as
// group commit allows (many writes in flight) and prints "ack <key>" once each write resolved.

import { join } from 'node:path';
import { SqliteStorage } from '../../src/engine/storage/sqlite';
import { BarrierStorage } from '../../src/engine/storage/barrier';
import { AesSeal } from '../../src/engine/seal/aes-seal';
import { ensureSealKey } from '../../src/engine/seal/key-file';

const dir = process.argv[2];
const storage = new BarrierStorage(new SqliteStorage(join(dir, 'keyward.db')), new AesSeal(ensureSealKey(join(dir, 'seal.key'))));
let n = 0;

async function writer(lane: number): Promise<void> {
  for (;;) {
    const key = `durable/${lane}/${n++}`;
    await storage.put(key, Buffer.from(`value-of-${key}`));
    process.stdout.write(`ack ${key}\n`);
  }
}

process.stdout.write('ready\n');
for (let lane = 0; lane < 16; lane++) void writer(lane);
