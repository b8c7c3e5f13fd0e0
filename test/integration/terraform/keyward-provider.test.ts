// The provider block: a VAULT_ADDR or KEYWARD_SNAPSHOT_ADDR other than its address or
// snapshot_address is an error (the token reaches neither host), its namespace wins over
// VAULT_NAMESPACE (a different one is a warning), KEYWARD_DIALECT overrides its dialect, the token from VAULT_TOKEN then ~/.vault-token,
// and a configuration with unknown values (Terraform plans before they are known) still plans.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { keywardProvider } from '../../../src/terraform/keyward-provider';
import { DiagnosticsError, UNKNOWN } from '../../../src/terraform/plugin/contract';
import { padConfig, schemaMembers, TerraformDriver } from '../../support/terraform-driver';

const cfg = (o: Record<string, unknown>) => padConfig(schemaMembers(keywardProvider().schema), o);

test("a VAULT_ADDR other than the block's address is an error at validate and configure; the block's namespace wins over VAULT_NAMESPACE, with a warning; the variables are the fallback", async () => {
  const env = { VAULT_ADDR: 'http://127.0.0.1:18200', VAULT_NAMESPACE: 'env-ns', VAULT_TOKEN: 't' };
  const p = keywardProvider({ env });
  const block = cfg({ address: 'http://10.0.0.1:8200', namespace: 'block-ns', dialect: 'keyward', fingerprint_salt: 's' });
  const refusal = expect.objectContaining({
    severity: 'error',
    attribute: ['address'],
    detail:
      "VAULT_ADDR (http://127.0.0.1:18200) differs from the address the stack declares (http://10.0.0.1:8200); refusing to send the token to either. Unset VAULT_ADDR (or set it to http://10.0.0.1:8200), or change the stack's address.",
  });
  await expect(p.configure(block)).rejects.toMatchObject({ diagnostics: [refusal] });
  const same = keywardProvider({ env: { ...env, VAULT_ADDR: 'http://10.0.0.1:8200/' } });
  const ctx = await same.configure(block);
  expect(ctx.client!.address).toBe('http://10.0.0.1:8200');
  expect(ctx.client!.namespace).toBe('block-ns');
  expect(ctx.fingerprintSalt).toBe('s');
  await same.stop!();
  expect(p.validate!(block)).toEqual([
    refusal,
    expect.objectContaining({
      severity: 'warning',
      attribute: ['namespace'],
      detail: "VAULT_NAMESPACE (env-ns) differs from the namespace the stack declares (block-ns); using block-ns. Unset VAULT_NAMESPACE or change the stack's namespace.",
    }),
  ]);
  expect(p.validate!(cfg({ address: 'http://127.0.0.1:18200/', namespace: '/env-ns/' }))).toEqual([]);
  // No namespace in the block: VAULT_NAMESPACE applies, as terraform-provider-vault's default.
  const e = keywardProvider({ env });
  expect((await e.configure(cfg({ address: 'http://127.0.0.1:18200' }))).client!.namespace).toBe('env-ns');
  await e.stop!();
  const q = keywardProvider({ env: { VAULT_TOKEN: 't' } });
  const ctx2 = await q.configure(cfg({ address: 'http://10.0.0.1:8200', namespace: 'block-ns' }));
  expect(ctx2.client!.address).toBe('http://10.0.0.1:8200');
  expect(ctx2.client!.namespace).toBe('block-ns');
  const r = keywardProvider({ env });
  expect((await r.configure(cfg({}))).client!.address).toBe('http://127.0.0.1:18200');
  await p.stop!();
  await q.stop!();
  await r.stop!();
});

test("a KEYWARD_SNAPSHOT_ADDR other than the block's snapshot_address is an error; the variable is the fallback", async () => {
  const env = { VAULT_TOKEN: 't', KEYWARD_SNAPSHOT_ADDR: 'http://127.0.0.1:19' };
  const p = keywardProvider({ env });
  const block = cfg({ address: 'http://10.0.0.1:8200', snapshot_address: 'http://10.0.0.2:8300', dialect: 'keyward' });
  const refusal = expect.objectContaining({
    severity: 'error',
    attribute: ['snapshot_address'],
    detail:
      "KEYWARD_SNAPSHOT_ADDR (http://127.0.0.1:19) differs from the snapshot address the stack declares (http://10.0.0.2:8300); refusing to send the token to either. Unset KEYWARD_SNAPSHOT_ADDR (or set it to http://10.0.0.2:8300), or change the stack's snapshot address.",
  });
  await expect(p.configure(block)).rejects.toMatchObject({ diagnostics: [refusal] });
  expect(p.validate!(block)).toEqual([refusal]);
  const q = keywardProvider({ env });
  const ctx2 = await q.configure(cfg({ address: 'http://10.0.0.1:8200', dialect: 'keyward' }));
  expect(ctx2.client!.snapshotAddress).toBe('http://127.0.0.1:19');
  await p.stop!();
  await q.stop!();
});

test("without VAULT_TOKEN the token comes from ~/.vault-token, as Vault's own clients read it", async () => {
  const home = mkdtempSync(join(tmpdir(), 'kw-home-'));
  try {
    writeFileSync(join(home, '.vault-token'), 'file-token\n', { mode: 0o600 });
    const p = keywardProvider({ env: { HOME: home } });
    const ctx = await p.configure(cfg({ address: 'http://10.0.0.1:8200', dialect: 'keyward' }));
    expect((ctx.client as unknown as { token: string }).token).toBe('file-token');
    await p.stop!();
    const q = keywardProvider({ env: { HOME: home, VAULT_TOKEN: 'env-token' } });
    expect(((await q.configure(cfg({ address: 'http://10.0.0.1:8200', dialect: 'keyward' }))).client as unknown as { token: string }).token).toBe('env-token');
    await q.stop!();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("KEYWARD_DIALECT overrides the block's dialect (as it overrides KeywardServer's for keyward plan); the block is used when it is unset", async () => {
  const p = keywardProvider({ env: { VAULT_TOKEN: 't', KEYWARD_DIALECT: 'keyward' } });
  const ctx = await p.configure(cfg({ address: 'http://10.0.0.1:8200', dialect: 'vault' }));
  expect(await ctx.client!.dialect()).toBe('keyward');
  const q = keywardProvider({ env: { VAULT_TOKEN: 't', KEYWARD_DIALECT: 'auto' } });
  expect(await (await q.configure(cfg({ address: 'http://10.0.0.1:8200', dialect: 'vault' }))).client!.dialect()).toBe('vault');
  const bad = keywardProvider({ env: { VAULT_TOKEN: 't', KEYWARD_DIALECT: 'consul' } });
  await expect(bad.configure(cfg({ address: 'http://10.0.0.1:8200', dialect: 'vault' }))).rejects.toThrow(/KEYWARD_DIALECT: must be one of keyward, vault or auto/);
  await p.stop!();
  await q.stop!();
  await bad.stop!();
});

test('the token is not an attribute; a bad dialect names the attribute', () => {
  const p = keywardProvider();
  expect(Object.keys(p.schema.attributes)).not.toContain('token');
  expect(p.validate!(cfg({ dialect: 'consul' }))).toEqual([expect.objectContaining({ severity: 'error', attribute: ['dialect'] })]);
});

test('unknown provider values: no client, plan still works (unknown fingerprint), refresh keeps the state', async () => {
  const provider = keywardProvider({ env: { CREDS: '{"k":1}' } });
  const d = await TerraformDriver.configure(provider, 'keyward_cloud_auth_backend', { address: UNKNOWN, fingerprint_salt: UNKNOWN });
  expect(d.ctx.client).toBeUndefined();
  const p = await d.plan(
    null,
    d.config({ path: 'cloud', config: { credentials_env: 'CREDS' }, roles: { web: { type: 'iam', bound_service_accounts: ['a@b.iam.gserviceaccount.com'] } } }),
  );
  expect(p.diagnostics).toEqual([]);
  expect(p.planned!.accessor).toBe(UNKNOWN);
  expect((p.planned!.config as Record<string, unknown>).credentials_fingerprint).toBe(UNKNOWN);
  const state = d.config({ path: 'cloud' });
  expect(await d.read(state)).toBe(state);
});

test('VAULT_TOKEN unset (or empty) is its own diagnostic at configure, naming the address', async () => {
  const home = mkdtempSync(join(tmpdir(), 'kw-home-'));
  for (const env of [{ HOME: home }, { HOME: home, VAULT_TOKEN: '' }]) {
    const p = keywardProvider({ env });
    const e = (await p.configure(cfg({ address: 'http://10.1.2.3:8200' })).catch((x: unknown) => x)) as DiagnosticsError;
    expect(e).toBeInstanceOf(DiagnosticsError);
    expect(e.diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', summary: 'VAULT_TOKEN is not set', detail: expect.stringContaining('Set VAULT_TOKEN to a token for http://10.1.2.3:8200') }),
    ]);
  }
});

test('request_timeout and max_retries: the block, else VAULT_CLIENT_TIMEOUT / VAULT_MAX_RETRIES, else 10 s and 2 retries; bad values name the attribute', async () => {
  const timing = async (env: NodeJS.ProcessEnv, block: Record<string, unknown>) => {
    const p = keywardProvider({ env: { VAULT_TOKEN: 't', ...env } });
    const c = (await p.configure(cfg({ address: 'http://10.0.0.1:8200', dialect: 'keyward', ...block }))).client! as unknown as { timeoutMs: number; retry: { attempts: number } };
    await p.stop!();
    return { timeoutMs: c.timeoutMs, attempts: c.retry.attempts };
  };
  expect(await timing({}, {})).toEqual({ timeoutMs: 10_000, attempts: 3 });
  expect(await timing({ VAULT_CLIENT_TIMEOUT: '60s', VAULT_MAX_RETRIES: '5' }, {})).toEqual({ timeoutMs: 60_000, attempts: 6 });
  expect(await timing({ VAULT_CLIENT_TIMEOUT: '60s', VAULT_MAX_RETRIES: '5' }, { request_timeout: '2s', max_retries: 0 })).toEqual({ timeoutMs: 2000, attempts: 1 });
  const p = keywardProvider();
  expect(p.validate!(cfg({ request_timeout: 'soon', max_retries: -1 }))).toEqual([
    expect.objectContaining({ attribute: ['request_timeout'], summary: expect.stringContaining('request_timeout: must be seconds or a duration') }),
    expect.objectContaining({ attribute: ['max_retries'], summary: expect.stringContaining('max_retries: must be a whole number') }),
  ]);
  expect(p.validate!(cfg({ request_timeout: '90', max_retries: 4 }))).toEqual([]);
});

test('cancel (StopProvider) ends a request in flight at once with an error naming it', async () => {
  // Configure's token lookup is answered; every other request hangs.
  const hung = createServer((req, res) => {
    if (req.url?.startsWith('/v1/auth/token/lookup-self')) res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
  });
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
  const address = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
  const p = keywardProvider({ env: { VAULT_TOKEN: 't' } });
  const ctx = await p.configure(cfg({ address, dialect: 'keyward', request_timeout: '60s' }));
  const pending = ctx.client!.read('sys/auth').catch((x: unknown) => x);
  await new Promise((r) => setTimeout(r, 200));
  const started = Date.now();
  p.cancel!();
  const e = (await pending) as Error;
  expect(Date.now() - started).toBeLessThan(1000);
  expect(e.message).toBe(`GET ${address}/v1/sys/auth: cancelled (Terraform asked the provider to stop)`);
  await p.stop!();
  hung.closeAllConnections();
  await new Promise((r) => hung.close(r));
});

test('a create planned against a server that is not Vault-like, or whose dialect cannot be told, fails at plan in plain words', async () => {
  let health = '<html>not vault</html>';
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/v1/sys/health') && health.startsWith('{')) res.writeHead(200, { 'content-type': 'application/json' }).end(health);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(health);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const provider = keywardProvider({ env: { VAULT_TOKEN: 't', VAULT_MAX_RETRIES: '0' } });
    const d = await TerraformDriver.configure(provider, 'keyward_cloud_auth_backend', { address });
    const html = await d.plan(null, d.config({ path: 'cloud' }));
    expect(html.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        summary: `Could not read the auth mounts of ${address}`,
        detail: expect.stringContaining('the server did not answer like Vault: its response is text/html'),
      }),
    ]);
    health = '{"initialized":true}';
    const q = keywardProvider({ env: { VAULT_TOKEN: 't', VAULT_MAX_RETRIES: '0' } });
    const d2 = await TerraformDriver.configure(q, 'keyward_cloud_auth_backend', { address });
    const unknown = await d2.plan(null, d2.config({ path: 'cloud' }));
    expect(unknown.diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', summary: 'Cannot tell which dialect the server speaks', detail: expect.stringContaining('sys/health returned no version') }),
    ]);
    await provider.stop!();
    await q.stop!();
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
