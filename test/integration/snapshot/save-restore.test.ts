// Manual save and restore through sys/storage/raft/snapshot: 10,000 keys written through the API
// come back exactly after changes and deletes; corrupt or foreign archives are refused with 400
// and leave the data untouched; snapshot-force skips only the seal check.

import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ManualClock } from '../../../src/engine/clock';
import { api, startTestEngine } from '../../support/engine';

const N = 10_000;
const rules = (i: number, tag = 'orig') => `path "secret/${tag}/${i}/*" { capabilities = ["read", "list"] }`;
let engine: Awaited<ReturnType<typeof startTestEngine>>;

async function inParallel(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function save(): Promise<Buffer> {
  const r = await fetch(`${engine.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': engine.rootToken } });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('application/gzip');
  return Buffer.from(await r.arrayBuffer());
}

const policy = async (i: number) => (await api(engine, 'GET', `sys/policy/p${i}`)).body?.data?.rules as string | undefined;

beforeAll(async () => {
  engine = await startTestEngine({ clock: new ManualClock(), edition: 'enterprise' });
});
afterAll(() => engine?.close());

describe('raft snapshot save and restore', () => {
  let archive: Buffer;

  it(`writes ${N} keys through the API and saves an archive`, async () => {
    await inParallel(N, 32, async (i) => {
      const r = await api(engine, 'PUT', `sys/policy/p${i}`, { body: { policy: rules(i) } });
      if (r.status !== 204) throw new Error(`write p${i}: ${r.status} ${r.text}`);
    });
    archive = await save();
    expect(archive.length).toBeGreaterThan(1000);
  });

  it('restores every key exactly after changes and deletes', async () => {
    await inParallel(500, 16, async (i) => void (await api(engine, 'PUT', `sys/policy/p${i}`, { body: { policy: rules(i, 'changed') } })));
    await inParallel(500, 16, async (i) => void (await api(engine, 'DELETE', `sys/policy/p${N - 1 - i}`)));
    await api(engine, 'PUT', 'sys/policy/added-later', { body: { policy: rules(0, 'new') } });
    expect(await policy(0)).toBe(rules(0, 'changed'));
    expect(await policy(N - 1)).toBeUndefined();

    const r = await api(engine, 'POST', 'sys/storage/raft/snapshot', { rawBody: archive, headers: { 'content-type': 'application/octet-stream' } });
    expect([r.status, r.text]).toEqual([204, '']);

    const wrong: string[] = [];
    await inParallel(N, 32, async (i) => {
      if ((await policy(i)) !== rules(i)) wrong.push(`p${i}`);
    });
    expect(wrong).toEqual([]);
    expect((await api(engine, 'GET', 'sys/policy/added-later')).status).toBe(404);
    // The restored root token still works (it was in the snapshot).
    expect((await api(engine, 'GET', 'auth/token/lookup-self')).status).toBe(200);
  });

  it('refuses a corrupted or foreign archive with 400 and leaves data unchanged', async () => {
    await api(engine, 'PUT', 'sys/policy/p1', { body: { policy: rules(1, 'after-restore') } });
    const corrupted = Buffer.from(archive);
    for (let k = 0; k < 16; k++) corrupted[Math.floor(corrupted.length / 3) + k * 97] ^= 0x5a;
    const bodies: Record<string, Buffer> = {
      corrupted,
      truncated: archive.subarray(0, archive.length - 700),
      foreign: gzipSync(randomBytes(4096)),
      'not an archive': Buffer.from('{"hello":"world"}'),
    };
    for (const [label, body] of Object.entries(bodies)) {
      for (const path of ['sys/storage/raft/snapshot', 'sys/storage/raft/snapshot-force']) {
        const r = await api(engine, 'POST', path, { rawBody: body });
        expect([label, path, r.status]).toEqual([label, path, 400]);
        expect(r.body.errors[0]).toMatch(/snapshot/);
      }
    }
    expect(await policy(1)).toBe(rules(1, 'after-restore'));
    expect(await policy(2)).toBe(rules(2));
  });

  it('refuses an archive from another engine (other seal) on the verified path', async () => {
    const other = await startTestEngine({ clock: new ManualClock(), edition: 'enterprise' });
    try {
      await api(other, 'PUT', 'sys/policy/from-other', { body: { policy: rules(7, 'other') } });
      const r0 = await fetch(`${other.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': other.rootToken } });
      const foreign = Buffer.from(await r0.arrayBuffer());
      const r = await api(engine, 'POST', 'sys/storage/raft/snapshot', { rawBody: foreign });
      expect(r.status).toBe(400);
      expect(r.body.errors[0]).toMatch(/different set of unseal keys; use the snapshot-force API/);
      expect((await api(engine, 'GET', 'sys/policy/from-other')).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it("refuses a forced restore of another engine's archive (other seal key) with 400 and keeps data and root token", async () => {
    const other = await startTestEngine({ clock: new ManualClock(), edition: 'enterprise' });
    let foreign: Buffer;
    try {
      await api(other, 'PUT', 'sys/policy/from-other', { body: { policy: rules(7, 'other') } });
      const r0 = await fetch(`${other.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': other.rootToken } });
      foreign = Buffer.from(await r0.arrayBuffer());
    } finally {
      await other.close();
    }
    await api(engine, 'PUT', 'sys/policy/before-force', { body: { policy: rules(8, 'kept') } });
    const r = await api(engine, 'POST', 'sys/storage/raft/snapshot-force', { rawBody: foreign });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([expect.stringMatching(/^snapshot-force refused: .*different seal key.*nothing was restored$/)]);
    expect((await api(engine, 'GET', 'auth/token/lookup-self')).status).toBe(200);
    expect((await api(engine, 'GET', 'sys/policy/from-other')).status).toBe(404);
    expect(await policy(2)).toBe(rules(2));
    expect((await api(engine, 'GET', 'sys/policy/before-force')).body.data.rules).toBe(rules(8, 'kept'));
  });

  it('restores its own archive through snapshot-force', async () => {
    const own = await save();
    await api(engine, 'PUT', 'sys/policy/after-own', { body: { policy: rules(9, 'later') } });
    const r = await api(engine, 'POST', 'sys/storage/raft/snapshot-force', { rawBody: own });
    expect([r.status, r.text]).toEqual([204, '']);
    expect((await api(engine, 'GET', 'sys/policy/after-own')).status).toBe(404);
    expect((await api(engine, 'GET', 'sys/policy/before-force')).body.data.rules).toBe(rules(8, 'kept'));
    expect((await api(engine, 'GET', 'auth/token/lookup-self')).status).toBe(200);
  });

  it('needs a token with read/update on the paths', async () => {
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot', { token: null })).status).toBe(403);
    expect((await api(engine, 'POST', 'sys/storage/raft/snapshot', { token: null, rawBody: archive })).status).toBe(403);
  });
});
