// Faults: a proxy in front of the engine fails 10% of requests (500s, connections dropped before
// and after the engine handled them) and apply still converges; an apply process killed midway
// converges on the next run.

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import type { Engine } from '../../../src/engine/engine';
import { startFaultProxy } from './fault-proxy';
import { client, iamRole, manifest, serviceAccountKey, Session } from './helpers';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ edition: 'enterprise' });
});
afterAll(async () => {
  await engine.close();
});

const roles = (n: number, extra: (i: number) => Record<string, unknown> = () => ({})) => Array.from({ length: n }, (_, i) => iamRole(`r${String(i).padStart(4, '0')}`, extra(i)));

test('apply converges through a proxy that fails 10% of requests', async () => {
  const proxy = await startFaultProxy(engine.url, 0.1, 7);
  const s = new Session(client(proxy.url, { retryAttempts: 12 }), { CREDS: serviceAccountKey('fault-key') });
  const m = (ttl: (i: number) => number) =>
    manifest({
      authBackends: [{ path: 'faulty', type: 'cloud', config: { credentials: { secretRef: { env: 'CREDS' } } }, roles: roles(300, (i) => ({ token_ttl: ttl(i) })) }],
    });
  try {
    const { result } = await s.apply(m(() => 60));
    expect(result.failed).toEqual([]);
    expect(result.verify?.summary).toMatchObject({ create: 0, update: 0, replace: 0, delete: 0 });
    // 10% of the roles change; still converges.
    const second = await s.apply(m((i) => (i % 10 === 0 ? 120 : 60)));
    expect(second.plan.summary.update).toBe(30);
    expect(second.result.failed).toEqual([]);
    proxy.rate = 0;
    const p = await s.plan(m((i) => (i % 10 === 0 ? 120 : 60)));
    expect(p.summary).toMatchObject({ create: 0, update: 0, replace: 0, delete: 0, noop: 302 });
    expect(proxy.stats.faults500 + proxy.stats.droppedBefore + proxy.stats.droppedAfter).toBeGreaterThan(30);
    expect(proxy.stats.droppedAfter).toBeGreaterThan(0);
  } finally {
    await s.c.close();
    await proxy.close();
  }
});

test('an apply killed midway converges on the next run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-kill-'));
  const file = join(dir, 'm.json');
  writeFileSync(file, JSON.stringify(manifest({ authBackends: [{ path: 'killed', type: 'cloud', roles: roles(300) }] })));
  const env = { ...process.env, VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN };
  const bin = join(__dirname, '../../../bin/keyward.js');
  // stderr is drained: pipes block on Linux once full.
  const run = (args: string[]) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr.resume();
    return child;
  };

  // Kill -9 once the first roles are reported created.
  const first = run(['apply', '--manifest', file, '--parallelism', '4', '--auto-approve']);
  let out = '';
  await new Promise<void>((resolve) => {
    first.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if ((out.match(/role\/r\d+: created/g) ?? []).length >= 20) first.kill('SIGKILL');
    });
    first.on('exit', () => resolve());
  });
  expect(first.signalCode).toBe('SIGKILL');
  const listed = await api(engine, 'LIST', 'auth/killed/roles');
  const partial = listed.body.data.keys.length;
  expect(partial).toBeGreaterThanOrEqual(20);
  expect(partial).toBeLessThan(300);
  expect(existsSync(join(dir, 'm.last-applied.json'))).toBe(true);

  const second = run(['apply', '--manifest', file, '--auto-approve']);
  second.stdout.resume();
  const code = await new Promise<number | null>((resolve) => second.on('exit', (c) => resolve(c)));
  expect(code).toBe(0);
  const third = run(['plan', '--manifest', file, '--detailed-exitcode']);
  let planOut = '';
  third.stdout.on('data', (b: Buffer) => (planOut += b.toString()));
  expect(await new Promise<number | null>((resolve) => third.on('exit', (c) => resolve(c)))).toBe(0);
  expect(planOut).toContain('No changes.');
  expect((await api(engine, 'LIST', 'auth/killed/roles')).body.data.keys).toHaveLength(300);
  const rec = JSON.parse(readFileSync(join(dir, 'm.last-applied.json'), 'utf8'));
  expect(Object.keys(rec.objects)).toHaveLength(301);
}, 180_000);
