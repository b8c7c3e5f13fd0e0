// The provider block: VAULT_ADDR / VAULT_NAMESPACE / KEYWARD_DIALECT override it, the token only from VAULT_TOKEN,
// and a configuration with unknown values (Terraform plans before they are known) still plans.

import { keywardProvider } from '../../../src/terraform/keyward-provider';
import { UNKNOWN } from '../../../src/terraform/plugin/contract';
import { padConfig, schemaMembers, TerraformDriver } from '../../support/terraform-driver';

const cfg = (o: Record<string, unknown>) => padConfig(schemaMembers(keywardProvider().schema), o);

test('the environment overrides address and namespace; the block is used when it is unset', async () => {
  const p = keywardProvider({ env: { VAULT_ADDR: 'http://127.0.0.1:18200', VAULT_NAMESPACE: 'env-ns', VAULT_TOKEN: 't' } });
  const ctx = await p.configure(cfg({ address: 'http://10.0.0.1:8200', namespace: 'block-ns', dialect: 'keyward', fingerprint_salt: 's' }));
  expect(ctx.client!.address).toBe('http://127.0.0.1:18200');
  expect(ctx.client!.namespace).toBe('env-ns');
  expect(ctx.fingerprintSalt).toBe('s');
  const q = keywardProvider({ env: { VAULT_TOKEN: 't' } });
  const ctx2 = await q.configure(cfg({ address: 'http://10.0.0.1:8200', namespace: 'block-ns' }));
  expect(ctx2.client!.address).toBe('http://10.0.0.1:8200');
  expect(ctx2.client!.namespace).toBe('block-ns');
  await p.stop!();
  await q.stop!();
});

test('KEYWARD_DIALECT overrides the block\'s dialect (as it overrides KeywardServer\'s for keyward plan); the block is used when it is unset', async () => {
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
  const p = await d.plan(null, d.config({ path: 'cloud', config: { credentials_env: 'CREDS' }, roles: { web: { type: 'iam', bound_service_accounts: ['a@b.iam.gserviceaccount.com'] } } }));
  expect(p.diagnostics).toEqual([]);
  expect(p.planned!.accessor).toBe(UNKNOWN);
  expect((p.planned!.config as Record<string, unknown>).credentials_fingerprint).toBe(UNKNOWN);
  const state = d.config({ path: 'cloud' });
  expect(await d.read(state)).toBe(state);
});
