// The plan/apply/destroy commands end to end (in-process, real engine): exit codes, saved plans
// refused after the server moved, and no secret value in any rendering, file or log line.

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKeyward } from '../../support/keyward-in-process';
import { planJsonSchema } from '../../../src/reconcile/render-json';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import type { Engine } from '../../../src/engine/engine';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { cloudOneSnapshot, iamRole, manifest, serviceAccountKey } from './helpers';

let engine: Engine;
let proxy: FaultProxy;
const saved = { ...process.env };
beforeAll(async () => {
  engine = await startTestEngine({ edition: 'enterprise' });
  // Some faults so that retry log lines are part of what is searched for secrets.
  proxy = await startFaultProxy(engine.url, 0.05, 3);
});
afterAll(async () => {
  process.env = saved;
  await proxy.close();
  await engine.close();
});

const keyward = runKeyward;

test('exit codes, saved plans, and no secret anywhere', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-cli-'));
  const file = join(dir, 'm.json');
  const secret1 = serviceAccountKey('cli-key-1');
  const secret2 = serviceAccountKey('cli-key-2');
  process.env.VAULT_ADDR = proxy.url;
  process.env.VAULT_TOKEN = ROOT_TOKEN;
  process.env.CLOUD_CREDS = secret1;
  const s3Secret = 'S3-SECRET-VALUE-7d1e0c';
  process.env.S3_KEY = s3Secret;
  const snapshot = cloudOneSnapshot('cli-offsite', 'S3_KEY');
  const m = (ttl: number) =>
    manifest({
      authBackends: [{ path: 'cli', type: 'cloud', config: { credentials: { secretRef: { env: 'CLOUD_CREDS' } } }, roles: [iamRole('web', { token_ttl: ttl })] }],
      snapshotConfigs: [snapshot],
    });
  writeFileSync(file, JSON.stringify(m(60)));
  const transcript: string[] = [];
  const run = async (...args: string[]) => {
    const r = await keyward(...args);
    transcript.push(r.out, r.err);
    return r;
  };

  expect((await run('plan', '--manifest', file, '--detailed-exitcode')).code).toBe(2);
  const md = await run('plan', '--manifest', file, '--format', 'markdown');
  expect(md.out).toContain('<details>');
  const js = await run('plan', '--manifest', file, '--format', 'json', '--out', join(dir, 'plan.bin'));
  expect(planJsonSchema.safeParse(JSON.parse(js.out)).success).toBe(true);
  const applied = await run('apply', '--plan', join(dir, 'plan.bin'));
  expect(applied.code).toBe(0);
  expect(applied.out).toContain('Apply complete: 4 created');
  expect((await run('plan', '--manifest', file, '--detailed-exitcode')).code).toBe(0);

  // Rotation, planned and saved; then the server moves: the saved plan is refused.
  process.env.CLOUD_CREDS = secret2;
  const rotated = await run('plan', '--manifest', file, '--detailed-exitcode', '--out', join(dir, 'plan2.bin'));
  expect(rotated.code).toBe(2);
  expect(rotated.out).toContain('~ credentials = (sensitive, changed)');
  await api(engine, 'POST', 'auth/cli/role/web', { body: { token_ttl: 5 } });
  const refused = await run('apply', '--plan', join(dir, 'plan2.bin'));
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/changed since the plan/);
  const fixed = await run('apply', '--manifest', file, '--auto-approve');
  expect(fixed.code).toBe(0);
  expect((await api(engine, 'GET', 'auth/cli/config')).body.data.private_key_id).toBe('cli-key-2');

  // A secret that no longer matches the fingerprint in a saved plan is refused before any write.
  writeFileSync(file, JSON.stringify(m(120)));
  process.env.CLOUD_CREDS = secret1;
  await run('plan', '--manifest', file, '--out', join(dir, 'plan3.bin'));
  process.env.CLOUD_CREDS = secret2;
  const stale = await run('apply', '--plan', join(dir, 'plan3.bin'));
  expect(stale.code).toBe(1);
  expect(stale.err).toMatch(/does not match the fingerprint/);
  expect((await api(engine, 'GET', 'auth/cli/role/web')).body.data.token_ttl).toBe(60);

  // Errors exit 1; destroy removes what the stack manages.
  expect((await run('plan', '--manifest', join(dir, 'missing.json'))).code).toBe(1);
  const destroyed = await run('destroy', '--manifest', file, '--auto-approve');
  expect(destroyed.code).toBe(0);
  expect((await api(engine, 'GET', 'sys/auth')).body.data['cli/']).toBeUndefined();
  expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/cli-offsite')).status).toBe(404);

  // Nothing written anywhere contains a secret: output, logs, plan files, the record.
  for (const f of readdirSync(dir)) transcript.push(readFileSync(join(dir, f), 'utf8'));
  const everything = transcript.join('\n');
  expect(everything).toMatch(/retry /);
  expect(everything.includes(s3Secret)).toBe(false);
  for (const s of [secret1, secret2]) {
    const pemLine = JSON.parse(s).private_key.split('\n')[3];
    expect(everything.includes(s)).toBe(false);
    expect(everything.includes(pemLine)).toBe(false);
  }
});
