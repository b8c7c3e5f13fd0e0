// Which server and token `keyward plan` uses: the stack's declared address wins over a stray
// VAULT_ADDR (warned about), and without VAULT_TOKEN the token comes from ~/.vault-token, as
// Vault's own clients find it. Real engine on a loopback port, in-process CLI.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../../src/engine/engine';
import { ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { runKeyward } from '../../support/keyward-in-process';
import { iamRole, manifest } from './helpers';

let engine: Engine;
let home: string;
const saved = { ...process.env };
/** One test's environment: the saved one, HOME in the test's directory, no retries, and `vars` (undefined unsets). */
function useEnv(vars: Record<string, string | undefined>): void {
  process.env = { ...saved, HOME: home, VAULT_MAX_RETRIES: '0' };
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}
beforeAll(async () => {
  engine = await startTestEngine({ edition: 'enterprise' });
  home = mkdtempSync(join(tmpdir(), 'keyward-home-'));
});
afterAll(async () => {
  process.env = saved;
  await engine.close();
  rmSync(home, { recursive: true, force: true });
});

test('declared address over VAULT_ADDR (with a warning); the token from ~/.vault-token when VAULT_TOKEN is unset', async () => {
  const file = join(home, 'm.json');
  writeFileSync(file, JSON.stringify(manifest({ server: { address: engine.url }, authBackends: [{ path: 'addr', type: 'cloud', roles: [iamRole('web')] }] })));
  writeFileSync(join(home, '.vault-token'), `${ROOT_TOKEN}\n`, { mode: 0o600 });
  // Nothing listens on port 9: used, it would fail to connect.
  useEnv({ VAULT_ADDR: 'http://127.0.0.1:9', VAULT_TOKEN: undefined });
  const r = await runKeyward('plan', '--manifest', file, '--detailed-exitcode');
  expect({ code: r.code, err: r.err }).toEqual({
    code: 2,
    err: `Warning: VAULT_ADDR (http://127.0.0.1:9) differs from the address the stack declares (${engine.url}); using ${engine.url}. Unset VAULT_ADDR or change the stack's address.\n`,
  });
  expect(r.out).toContain(`keyward plan for ${engine.url}`);
  // --address still overrides both.
  const flagged = await runKeyward('plan', '--manifest', file, '--address', 'http://127.0.0.1:9');
  expect(flagged.code).toBe(1);
  expect(flagged.err).toContain('127.0.0.1:9');
});

test('the declared snapshotAddress wins over KEYWARD_SNAPSHOT_ADDR (with a warning), which is only the fallback', async () => {
  const snapshotConfigs = [{ name: 'hourly', storage_type: 'local', interval: '1h', path_prefix: join(home, 'snaps'), local_max_space: 1_000_000 }];
  const declared = join(home, 'declared.json');
  writeFileSync(declared, JSON.stringify(manifest({ server: { address: engine.url, snapshotAddress: engine.url }, snapshotConfigs } as never)));
  // Nothing listens on port 9: a stray export that won would fail to connect.
  useEnv({ VAULT_TOKEN: ROOT_TOKEN, VAULT_ADDR: undefined, KEYWARD_SNAPSHOT_ADDR: 'http://127.0.0.1:9' });
  const r = await runKeyward('plan', '--manifest', declared, '--detailed-exitcode');
  expect({ code: r.code, err: r.err }).toEqual({
    code: 2,
    err: `Warning: KEYWARD_SNAPSHOT_ADDR (http://127.0.0.1:9) differs from the snapshot address the stack declares (${engine.url}); using ${engine.url}. Unset KEYWARD_SNAPSHOT_ADDR or change the stack's snapshot address.\n`,
  });
  expect(r.out).toContain('hourly');
  // Undeclared, the variable is used: the snapshot configs go to port 9 and the plan fails there.
  const undeclared = join(home, 'undeclared.json');
  writeFileSync(undeclared, JSON.stringify(manifest({ server: { address: engine.url }, snapshotConfigs } as never)));
  const fallback = await runKeyward('plan', '--manifest', undeclared);
  expect(fallback.code).toBe(1);
  expect(fallback.err).toContain('127.0.0.1:9');
});

test('the declared namespace wins over VAULT_NAMESPACE (with a warning): a stray export does not plan the stack into another namespace', async () => {
  const api = (method: string, path: string, ns?: string) =>
    fetch(`${engine.url}/v1/${path}`, { method, headers: { 'x-vault-token': ROOT_TOKEN, ...(ns ? { 'x-vault-namespace': ns } : {}) } });
  for (const ns of ['team', 'other']) expect((await api('POST', `sys/namespaces/${ns}`)).status).toBeLessThan(300);
  const file = join(home, 'ns.json');
  writeFileSync(file, JSON.stringify(manifest({ server: { address: engine.url, namespace: 'team' }, authBackends: [{ path: 'nsauth', type: 'cloud', roles: [iamRole('web')] }] })));
  useEnv({ VAULT_TOKEN: ROOT_TOKEN, VAULT_ADDR: undefined, VAULT_NAMESPACE: 'other' });
  const applied = await runKeyward('apply', '--manifest', file, '--auto-approve');
  expect({ code: applied.code, err: applied.err }).toEqual({
    code: 0,
    err: "Warning: VAULT_NAMESPACE (other) differs from the namespace the stack declares (team); using team. Unset VAULT_NAMESPACE or change the stack's namespace.\n",
  });
  expect((await api('GET', 'auth/nsauth/role/web', 'team')).status).toBe(200);
  expect((await api('GET', 'auth/nsauth/role/web', 'other')).status).toBe(404);
  // --namespace overrides both; undeclared, VAULT_NAMESPACE is the fallback.
  const undeclared = join(home, 'ns-undeclared.json');
  writeFileSync(undeclared, JSON.stringify(manifest({ server: { address: engine.url }, authBackends: [{ path: 'nsauth', type: 'cloud', roles: [iamRole('web')] }] })));
  const fallback = await runKeyward('plan', '--manifest', undeclared, '--detailed-exitcode');
  expect(fallback.code).toBe(2); // nothing in "other" yet: a create
  const flagged = await runKeyward('plan', '--manifest', undeclared, '--namespace', 'team', '--detailed-exitcode');
  expect(flagged.code).toBe(0);
});
