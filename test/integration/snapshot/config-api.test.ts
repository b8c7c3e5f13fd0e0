// The snapshot-auto config, list and status endpoints over a real socket: validation, read shape
// (seconds, defaults, no secrets), LIST, delete, and the permission, namespace and edition gates.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/engine/clock';
import { api, startTestEngine } from '../../support/engine';

const CONFIG = 'sys/storage/raft/snapshot-auto/config';
let engine: Awaited<ReturnType<typeof startTestEngine>>;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-snapcfg-'));
  engine = await startTestEngine({ clock: new ManualClock(Date.UTC(2026, 0, 1)), edition: 'enterprise' });
});
afterAll(async () => {
  await engine?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('snapshot-auto config API', () => {
  it('answers 404 with an empty errors list on LIST before any config exists', async () => {
    const r = await api(engine, 'LIST', CONFIG);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ errors: [] });
  });

  it('creates, reads (interval in seconds, defaults, no secrets), lists and deletes', async () => {
    let r = await api(engine, 'POST', `${CONFIG}/daily`, { body: { storage_type: 'local', interval: '24h', path_prefix: dir, local_max_space: '1000000' } });
    expect(r.status).toBe(204);
    r = await api(engine, 'GET', `${CONFIG}/daily`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      storage_type: 'local',
      interval: 86400,
      retain: 1,
      path_prefix: dir,
      file_prefix: 'vault-snapshot',
      autoload_enabled: false,
      local_max_space: 1000000,
    });

    r = await api(engine, 'PUT', `${CONFIG}/s3`, {
      body: {
        storage_type: 'cloudone-store',
        interval: 3600,
        path_prefix: 'prod/raft',
        cloudone_bucket: 'b',
        cloudone_region: 'eu-west-1',
        cloudone_access_key_id: 'AKID',
        cloudone_secret_access_key: 'TOP-SECRET',
        cloudone_session_token: 'SESSION-SECRET',
      },
    });
    expect(r.status).toBe(204);
    r = await api(engine, 'GET', `${CONFIG}/s3`);
    expect(r.text).not.toContain('SECRET');
    expect(r.body.data).not.toHaveProperty('cloudone_secret_access_key');
    expect(r.body.data.cloudone_access_key_id).toBe('AKID');

    r = await api(engine, 'LIST', CONFIG);
    expect(r.body.data).toEqual({ keys: ['daily', 's3'] });
    r = await api(engine, 'GET', `${CONFIG}?list=true`);
    expect(r.body.data).toEqual({ keys: ['daily', 's3'] });

    // An update that omits the secret keeps it (merge), and retain changes.
    r = await api(engine, 'POST', `${CONFIG}/s3`, { body: { retain: 5 } });
    expect(r.status).toBe(204);
    expect((await api(engine, 'GET', `${CONFIG}/s3`)).body.data.retain).toBe(5);

    expect((await api(engine, 'DELETE', `${CONFIG}/s3`)).status).toBe(204);
    expect((await api(engine, 'GET', `${CONFIG}/s3`)).status).toBe(404);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/status/s3')).status).toBe(404);
    expect((await api(engine, 'DELETE', `${CONFIG}/s3`)).status).toBe(204);
  });

  it('refuses invalid writes with 400 naming the field and the rule', async () => {
    let r = await api(engine, 'POST', `${CONFIG}/bad`, { body: { storage_type: 'cloudtwo-store', interval: 'soon', path_prefix: 'x', local_max_space: 5 } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      'interval must be a positive number of seconds or a duration string',
      'local_max_space is not valid for storage_type=cloudtwo-store (it belongs to local)',
      'cloudtwo_bucket is required for storage_type=cloudtwo-store',
      `path_prefix must end with "/" for storage_type=cloudtwo-store (got "x") (a rule of keyward's embedded engine; Vault accepts it)`,
    ]);
    r = await api(engine, 'POST', `${CONFIG}/daily`, { body: { storage_type: 'cloudone-store' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual(['storage_type cannot be changed; delete and recreate the configuration']);
    r = await api(engine, 'POST', `${CONFIG}/twin`, { body: { storage_type: 'local', interval: 60, path_prefix: `${dir}/`, local_max_space: 10 } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/collide with config daily/);
  });

  it('warns about unknown parameters', async () => {
    const r = await api(engine, 'POST', `${CONFIG}/daily`, { body: { retain: 2, colour: 'blue' } });
    expect(r.status).toBe(200);
    expect(r.body.warnings).toEqual(['Endpoint ignored these unrecognized parameters: [colour]']);
  });

  it('reports the status of a config that never ran', async () => {
    const r = await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/status/daily');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ consecutive_errors: 0, next_snapshot_start: '2026-01-02T00:00:00Z' });
  });

  it('requires sudo on config paths (403 without it), not on status', async () => {
    const policy = `
path "sys/storage/raft/snapshot-auto/config" { capabilities = ["list"] }
path "sys/storage/raft/snapshot-auto/config/*" { capabilities = ["create", "read", "update", "delete"] }
path "sys/storage/raft/snapshot-auto/status/*" { capabilities = ["read"] }`;
    expect((await api(engine, 'PUT', 'sys/policy/snap-nosudo', { body: { policy } })).status).toBe(204);
    expect((await api(engine, 'PUT', 'sys/policy/snap-sudo', { body: { policy: policy.replace(/"\]/g, '", "sudo"]') } })).status).toBe(204);
    const mint = async (p: string) => (await api(engine, 'POST', 'auth/token/create', { body: { policies: [p] } })).body.auth.client_token as string;
    const plain = await mint('snap-nosudo');
    const sudo = await mint('snap-sudo');
    for (const [method, path] of [
      ['GET', `${CONFIG}/daily`],
      ['LIST', CONFIG],
      ['POST', `${CONFIG}/other`],
      ['DELETE', `${CONFIG}/daily`],
    ]) {
      const r = await api(engine, method, path, { token: plain, body: method === 'POST' ? { retain: 1 } : undefined });
      expect([method, r.status, r.body]).toEqual([method, 403, { errors: ['permission denied'] }]);
    }
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/status/daily', { token: plain })).status).toBe(200);
    expect((await api(engine, 'GET', `${CONFIG}/daily`, { token: sudo })).status).toBe(200);
  });

  it('refuses calls from a child namespace with the namespace error', async () => {
    expect([200, 204]).toContain((await api(engine, 'POST', 'sys/namespaces/team')).status);
    for (const path of [`${CONFIG}/daily`, 'sys/storage/raft/snapshot-auto/status/daily', 'sys/storage/raft/snapshot']) {
      const r = await api(engine, 'GET', path, { namespace: 'team' });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ errors: ['operation unavailable in namespaces'] });
    }
  });
});

describe('snapshot-auto interval limit', () => {
  it('refuses an interval above one year with a 400 naming the limit, and accepts exactly one year', async () => {
    for (const interval of [99999999999999, '8761h']) {
      const r = await api(engine, 'POST', `${CONFIG}/huge`, { body: { storage_type: 'local', interval, path_prefix: dir, local_max_space: 10 } });
      expect(r.status).toBe(400);
      expect(r.body.errors).toEqual([
        expect.stringMatching(/^interval must be at most 31536000 seconds \(8760h, one year\), got \d+ \(a rule of keyward's embedded engine; Vault accepts it\)$/),
      ]);
    }
    expect((await api(engine, 'GET', `${CONFIG}/huge`)).status).toBe(404);
    const ok = await api(engine, 'POST', `${CONFIG}/yearly`, { body: { storage_type: 'local', interval: '8760h', path_prefix: dir, file_prefix: 'yearly', local_max_space: 10 } });
    expect(ok.status).toBe(204);
    const status = await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/status/yearly');
    expect(status.status).toBe(200);
    expect(status.body.data.next_snapshot_start).toBe('2027-01-01T00:00:00Z');
    await api(engine, 'DELETE', `${CONFIG}/yearly`);
  });
});

describe('snapshot-auto edition gate', () => {
  it('refuses create on the oss edition with a clear error', async () => {
    const oss = await startTestEngine({ clock: new ManualClock(), edition: 'oss' });
    try {
      const r = await api(oss, 'POST', `${CONFIG}/daily`, { body: { storage_type: 'local', interval: 60, path_prefix: dir, local_max_space: 10 } });
      expect(r.status).toBe(403);
      expect(r.body.errors[0]).toMatch(/automated snapshots .* requires the enterprise or plus edition; this server runs the oss edition/);
      expect((await api(oss, 'LIST', CONFIG)).status).toBe(404);
    } finally {
      await oss.close();
    }
  });
});
