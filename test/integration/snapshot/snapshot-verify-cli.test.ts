// `keyward snapshot verify FILE|URL|-`: a line per check and exit 0 only for a complete archive; a
// real OpenBao 2.7.2 snapshot and the engine's own manual snapshot pass, a cut and an unsealed one
// fail, from a file, a file:// URL and an http URL.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { runKeyward } from '../../support/keyward-in-process';
import { raftSnapshot } from '../../support/vault-contract/community';

let dir: string;
let http: Server;
let base: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-verify-cli-'));
  http = createServer((req, res) => {
    const mode = req.url?.slice(1);
    if (mode === 'complete' || mode === 'cut' || mode === 'unsealed') res.writeHead(200).end(raftSnapshot(mode));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => http.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

test('a real OpenBao snapshot from a file: every check ok, exit 0', async () => {
  const file = join(dir, 'bao.snap');
  writeFileSync(file, raftSnapshot());
  const r = await runKeyward('snapshot', 'verify', file);
  expect(r.code).toBe(0);
  expect(
    r.out
      .split('\n')
      .slice(0, 6)
      .map((l) => l.trim().split(/\s+/).slice(0, 2).join(' ')),
  ).toEqual(['ok gzip', 'ok tar', 'ok entries', 'ok meta.json', 'ok SHA256SUMS', 'ok SHA256SUMS.sealed']);
  expect(r.out).toContain(`verified: ${file} is a Vault/OpenBao raft snapshot, complete`);
});

test('a cut body and an unsealed archive: the failing check named, later ones not reached, exit 1', async () => {
  const cut = join(dir, 'cut.snap');
  writeFileSync(cut, raftSnapshot('cut'));
  const r = await runKeyward('snapshot', 'verify', cut);
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/^ {2}FAIL {2}gzip +the gzip stream is incomplete or corrupt/m);
  expect(r.out).toMatch(/^ {2}- {5}SHA256SUMS\.sealed +not reached$/m);
  expect(r.out).toMatch(/^NOT VERIFIED: /m);
  const unsealed = join(dir, 'unsealed.snap');
  writeFileSync(unsealed, raftSnapshot('unsealed'));
  const u = await runKeyward('snapshot', 'verify', pathToFileURL(unsealed).href);
  expect(u.code).toBe(1);
  expect(u.out).toMatch(/^ {2}ok {4}tar /m);
  expect(u.out).toMatch(/^ {2}FAIL {2}SHA256SUMS\.sealed +incomplete snapshot: no SHA256SUMS\.sealed in the archive$/m);
});

test('http URLs: complete is 0, cut is 1, a 404 is 1 with the status named', async () => {
  expect((await runKeyward('snapshot', 'verify', `${base}/complete`)).code).toBe(0);
  expect((await runKeyward('snapshot', 'verify', `${base}/cut`)).code).toBe(1);
  const missing = await runKeyward('snapshot', 'verify', `${base}/nothing`);
  expect(missing.code).toBe(1);
  expect(missing.err).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/nothing answered status 404/);
  const s3 = await runKeyward('snapshot', 'verify', 's3://bucket/key.snap');
  expect(s3.code).toBe(1);
  expect(s3.err).toMatch(/cannot read s3:\/\/bucket\/key\.snap: give a file/);
});

test("the engine's manual snapshot (GET sys/storage/raft/snapshot) verifies as a keyward engine snapshot", async () => {
  const engine = await startTestEngine({ dataDir: join(dir, 'engine') });
  try {
    const res = await fetch(`${engine.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': ROOT_TOKEN } });
    expect(res.status).toBe(200);
    const file = join(dir, 'engine.snap');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const r = await runKeyward('snapshot', 'verify', file);
    expect(r.code).toBe(0);
    expect(r.out).toContain('is a keyward engine snapshot, complete');
  } finally {
    await engine.close();
  }
});
