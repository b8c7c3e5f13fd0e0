// An acknowledged write survives SIGKILL: a child writes keys with many writes in flight and
// reports each acknowledgement; it is killed mid-stream; every acknowledged key must be there.

import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SqliteStorage } from '../../../src/engine/storage/sqlite';
import { BarrierStorage } from '../../../src/engine/storage/barrier';
import { AesSeal } from '../../../src/engine/seal/aes-seal';
import { readSealKey } from '../../../src/engine/seal/key-file';

it('every acknowledged key is present after kill -9', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-durable-'));
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', join(__dirname, '../../support/durability-writer.ts'), dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acked: string[] = [];
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited early: ${code}`))));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('ack ')) return;
      acked.push(line.slice(4));
      if (acked.length === 2000) child.kill('SIGKILL');
    });
  });
  expect(acked.length).toBeGreaterThanOrEqual(2000);

  const storage = new BarrierStorage(new SqliteStorage(join(dir, 'keyward.db')), new AesSeal(readSealKey(join(dir, 'seal.key'))));
  const missing: string[] = [];
  for (const key of acked) {
    const v = await storage.get(key);
    if (v?.toString() !== `value-of-${key}`) missing.push(key);
  }
  await storage.close();
  expect(missing).toEqual([]);
});
