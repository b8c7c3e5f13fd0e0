// The manual save's body (GET sys/storage/raft/snapshot) as a client sees it: complete and passing
// `keyward snapshot verify`'s checks (archive-verify.ts) for a client that reads slowly (the engine
// waits, socket backpressure), and with its length announced; a client that goes away mid-stream
// (or before its first byte) leaves the engine serving and no spooled archive behind in the scratch
// directory.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ManualClock } from '../../../src/engine/clock';
import { verifyArchive } from '../../../src/engine/snapshot/archive-verify';
import { SCRATCH_DIR } from '../../../src/engine/snapshot/scratch';
import { SqliteStorage } from '../../../src/engine/storage/sqlite';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';

/** ~24 MiB of incompressible entries: far more than the loopback socket buffers hold. */
const ENTRIES = 24_000;
const VALUE_BYTES = 1000;

let dataDir: string;
let engine: Awaited<ReturnType<typeof startTestEngine>>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kw-manual-save-'));
  const storage = new SqliteStorage(join(dataDir, 'keyward.db'));
  for (let i = 0; i < ENTRIES; i += 1000) {
    const ops = [];
    for (let j = i; j < i + 1000; j++) ops.push({ type: 'put' as const, key: `bulk/${String(j).padStart(6, '0')}`, value: randomBytes(VALUE_BYTES) });
    await storage.batch(ops);
  }
  await storage.close();
  engine = await startTestEngine({ clock: new ManualClock(), dataDir });
}, 60_000);
afterAll(async () => {
  await engine?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The response to GET sys/storage/raft/snapshot, its body not yet read. */
function open(): Promise<IncomingMessage> {
  return new Promise((ok, fail) => {
    const req = request(`${engine.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': ROOT_TOKEN } }, ok);
    req.once('error', fail);
    req.end();
  });
}

const scratch = () => readdir(join(dataDir, SCRATCH_DIR)).catch(() => [] as string[]);

/** Polls until the scratch directory is empty; returns what it still holds after `ms`. */
async function scratchEmptyWithin(ms: number): Promise<string[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = await scratch();
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('manual snapshot body', () => {
  it('reaches a slow client complete, with its length announced, and passes the verify checks', async () => {
    const res = await open();
    expect(res.statusCode).toBe(200);
    const chunks: Buffer[] = [];
    let n = 0;
    // Pauses often enough that the engine's writes wait on the socket many times over.
    for await (const c of res as AsyncIterable<Buffer>) {
      chunks.push(c);
      if (++n % 16 === 0) await new Promise((r) => setTimeout(r, 20));
    }
    const body = Buffer.concat(chunks);
    expect(body.length).toBeGreaterThan(ENTRIES * VALUE_BYTES);
    expect(res.headers['content-length']).toBe(String(body.length));
    const verdict = await verifyArchive(Readable.from([body]));
    expect(verdict).toMatchObject({ ok: true, format: 'keyward-state-v1', bytes: body.length });
    expect(await scratchEmptyWithin(5000)).toEqual([]);
  }, 60_000);

  it('removes the spooled archive when the client disconnects mid-stream, and keeps serving', async () => {
    const res = await open();
    expect(res.statusCode).toBe(200);
    await new Promise<void>((ok) => {
      let got = 0;
      res.on('data', (c: Buffer) => {
        got += c.length;
        if (got > 1024 * 1024) {
          res.destroy();
          ok();
        }
      });
    });
    expect(await scratchEmptyWithin(5000)).toEqual([]);
    expect((await api(engine, 'GET', 'sys/health')).status).toBe(200);
    // The next snapshot is whole.
    const again = await open();
    const chunks: Buffer[] = [];
    for await (const c of again as AsyncIterable<Buffer>) chunks.push(c);
    expect((await verifyArchive(Readable.from([Buffer.concat(chunks)]))).ok).toBe(true);
    expect(await scratchEmptyWithin(5000)).toEqual([]);
  }, 60_000);

  it('removes the spooled archive when the client went away before the first byte', async () => {
    const req = request(`${engine.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': ROOT_TOKEN } });
    req.once('error', () => undefined);
    req.end();
    // Gone while the archive is being built (the file appears first).
    const until = Date.now() + 10_000;
    while ((await scratch()).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    req.destroy();
    expect(await scratchEmptyWithin(10_000)).toEqual([]);
    expect((await api(engine, 'GET', 'sys/health')).status).toBe(200);
  }, 60_000);
});
