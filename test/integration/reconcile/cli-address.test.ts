// Which server and token `keyward plan` uses: a VAULT_ADDR other than the stack's declared address
// is refused before any request (the token reaches neither host), and without VAULT_TOKEN the token comes from ~/.vault-token, as
// Vault's own clients find it. Real engine on a loopback port, in-process CLI.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

test('a VAULT_ADDR other than the declared address is refused before any request: the token reaches neither host', async () => {
  // The declared host records what reaches it: a user who exported VAULT_ADDR meant that server,
  // not the stack's (an example's address, say), so the token must not go to the declared one.
  const reached: string[] = [];
  const declaredHost = createServer((req, res) => {
    reached.push(`${req.method} ${req.url} token=${req.headers['x-vault-token'] === undefined ? 'no' : 'yes'}`);
    res.writeHead(500).end();
  });
  await new Promise<void>((ok) => declaredHost.listen(0, '127.0.0.1', ok));
  const declared = `http://127.0.0.1:${(declaredHost.address() as AddressInfo).port}`;
  try {
    const file = join(home, 'm.json');
    writeFileSync(file, JSON.stringify(manifest({ server: { address: declared }, authBackends: [{ path: 'addr', type: 'cloud', roles: [iamRole('web')] }] })));
    useEnv({ VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN });
    const r = await runKeyward('plan', '--manifest', file, '--detailed-exitcode');
    expect({ code: r.code, err: r.err, reached }).toEqual({
      code: 1,
      err: `Error: VAULT_ADDR (${engine.url}) differs from the address the stack declares (${declared}); refusing to send the token to either. Unset VAULT_ADDR (or set it to ${declared}), or change the stack's address.\n`,
      reached: [],
    });
    // The same address (up to case and a trailing slash) is no conflict; --address overrides both.
    useEnv({ VAULT_ADDR: `${engine.url.toUpperCase()}/`, VAULT_TOKEN: ROOT_TOKEN });
    writeFileSync(file, JSON.stringify(manifest({ server: { address: engine.url }, authBackends: [{ path: 'addr', type: 'cloud', roles: [iamRole('web')] }] })));
    expect((await runKeyward('plan', '--manifest', file, '--detailed-exitcode')).code).toBe(2);
    useEnv({ VAULT_ADDR: declared, VAULT_TOKEN: ROOT_TOKEN });
    const flagged = await runKeyward('plan', '--manifest', file, '--address', engine.url, '--detailed-exitcode');
    expect({ code: flagged.code, err: flagged.err, reached }).toEqual({ code: 2, err: '', reached: [] });
  } finally {
    await new Promise((ok) => declaredHost.close(ok));
  }
});

test('the token from ~/.vault-token when VAULT_TOKEN is unset', async () => {
  const file = join(home, 'm.json');
  writeFileSync(file, JSON.stringify(manifest({ server: { address: engine.url }, authBackends: [{ path: 'addr', type: 'cloud', roles: [iamRole('web')] }] })));
  writeFileSync(join(home, '.vault-token'), `${ROOT_TOKEN}\n`, { mode: 0o600 });
  useEnv({ VAULT_ADDR: undefined, VAULT_TOKEN: undefined });
  const r = await runKeyward('plan', '--manifest', file, '--detailed-exitcode');
  expect({ code: r.code, err: r.err }).toEqual({ code: 2, err: '' });
  expect(r.out).toContain(`keyward plan for ${engine.url}`);
  rmSync(join(home, '.vault-token'));
});

test('a KEYWARD_SNAPSHOT_ADDR other than the declared snapshotAddress is refused; undeclared, the variable is the fallback', async () => {
  const snapshotConfigs = [{ name: 'hourly', storage_type: 'local', interval: '1h', path_prefix: join(home, 'snaps'), local_max_space: 1_000_000 }];
  const declared = join(home, 'declared.json');
  writeFileSync(declared, JSON.stringify(manifest({ server: { address: engine.url, snapshotAddress: engine.url }, snapshotConfigs } as never)));
  // Nothing listens on port 9: a stray export that won would fail to connect.
  useEnv({ VAULT_TOKEN: ROOT_TOKEN, VAULT_ADDR: undefined, KEYWARD_SNAPSHOT_ADDR: 'http://127.0.0.1:9' });
  const r = await runKeyward('plan', '--manifest', declared, '--detailed-exitcode');
  expect({ code: r.code, err: r.err }).toEqual({
    code: 1,
    err: `Error: KEYWARD_SNAPSHOT_ADDR (http://127.0.0.1:9) differs from the snapshot address the stack declares (${engine.url}); refusing to send the token to either. Unset KEYWARD_SNAPSHOT_ADDR (or set it to ${engine.url}), or change the stack's snapshot address.\n`,
  });
  useEnv({ VAULT_TOKEN: ROOT_TOKEN, VAULT_ADDR: undefined, KEYWARD_SNAPSHOT_ADDR: undefined });
  expect((await runKeyward('plan', '--manifest', declared, '--detailed-exitcode')).out).toContain('hourly');
  // Undeclared, the variable is used: the snapshot configs go to port 9 and the plan fails there.
  useEnv({ VAULT_TOKEN: ROOT_TOKEN, VAULT_ADDR: undefined, KEYWARD_SNAPSHOT_ADDR: 'http://127.0.0.1:9' });
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
