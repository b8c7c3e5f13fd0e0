// One side of bench/sqlite-ab.ts, run in its own process on the Node under test: the engine's
// SqliteStorage (with whichever better-sqlite3 sqlite-driver.ts picks for this Node) measured for
// group-committed writes per second and the time to produce a whole snapshot view. Prints one
// JSON line.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQLITE_PACKAGE } from '../src/engine/storage/sqlite-driver';
import { SqliteStorage } from '../src/engine/storage/sqlite';

const [entries, writeSeconds, concurrency] = process.argv.slice(2).map(Number);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-sqlite-ab-'));
  const storage = new SqliteStorage(join(dir, 'db'));
  try {
    // Writes: `concurrency` writers, each put acknowledged after its group's durable commit.
    const value = Buffer.alloc(200, 7);
    let writes = 0;
    const deadline = performance.now() + writeSeconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async (_, c) => {
        for (let i = 0; performance.now() < deadline; i++) {
          await storage.put(`w/${c}/${i % 1000}`, value);
          writes++;
        }
      }),
    );
    const writeRate = writes / ((performance.now() - t0) / 1000);
    // Snapshot production: a store of `entries` entries (~250 bytes each) read as one view.
    for (let i = 0; i < entries; i += 1000) {
      await storage.batch(
        Array.from({ length: Math.min(1000, entries - i) }, (_, j) => ({
          type: 'put' as const,
          key: `s/${String(i + j).padStart(8, '0')}`,
          value: Buffer.alloc(250, (i + j) & 0xff),
        })),
      );
    }
    const times: number[] = [];
    for (let round = 0; round < 3; round++) {
      const s0 = performance.now();
      const view = await storage.snapshot();
      let bytes = 0;
      for await (const chunk of view.chunks!()) bytes += chunk.length;
      view.close();
      times.push(performance.now() - s0);
      if (bytes === 0) throw new Error('empty snapshot');
    }
    times.sort((a, b) => a - b);
    process.stdout.write(JSON.stringify({ node: process.version, sqlite: SQLITE_PACKAGE, writeRate, snapshotMs: times[1] }) + '\n');
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
