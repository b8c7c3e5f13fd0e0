// keyward_cloud_auth_role in plain HCL with real terraform 1.11 (offline) against the engine: roles
// as separate resources beside a backend, a type change planned as a replace (a destroy in
// Terraform's counts, with keyward's warning) that applies, an existing role refused with the
// import command, then adopted by an import block, and destroy.

import { api, ROOT_TOKEN, startTestEngine } from '../support/engine';
import { terraformWorkdir, type TerraformWorkdir } from '../support/terraform-workdir';

const MAIN = (address: string, webType: 'iam' | 'vm', extra = '') => `terraform {
  required_providers {
    keyward = { source = "keyward/keyward" }
  }
}
provider "keyward" {
  address          = "${address}"
  fingerprint_salt = "role-resource-e2e-salt-0123"
}
resource "keyward_cloud_auth_backend" "cloud" {
  path = "hcl-roles"
}
resource "keyward_cloud_auth_role" "web" {
  backend = keyward_cloud_auth_backend.cloud.path
  name    = "web"
  type    = "${webType}"
${webType === 'iam' ? '  bound_service_accounts = ["app@proj-a.iam.gserviceaccount.com"]\n  token_ttl = "1h"' : '  bound_zones = ["europe-west1-b"]'}
}
${extra}`;

const LEGACY = `resource "keyward_cloud_auth_role" "legacy" {
  backend   = keyward_cloud_auth_backend.cloud.path
  name      = "legacy"
  type      = "vm"
  bound_zones = ["europe-west1-c"]
  token_ttl = "1800"
}
`;

describe('keyward_cloud_auth_role with terraform (offline)', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let w: TerraformWorkdir;
  beforeAll(async () => {
    engine = await startTestEngine();
    w = terraformWorkdir('keyward-tf-role-', () => ({ VAULT_ADDR: '', VAULT_TOKEN: ROOT_TOKEN }));
  });
  afterAll(async () => {
    w?.close();
    await engine?.close();
  });
  const role = async (name: string) => (await api(engine, 'GET', `auth/hcl-roles/role/${name}`)).body.data as Record<string, unknown> | undefined;

  it('applies, replaces on a type change, refuses then imports an existing role, destroys', async () => {
    w.write('main.tf', MAIN(engine.url, 'iam'));
    await w.ok(['init', '-input=false']);
    await w.ok(['apply', '-auto-approve', '-input=false']);
    const first = await role('web');
    expect(first).toMatchObject({ type: 'iam', token_ttl: 3600 });
    expect((await w.tf(['plan', '-detailed-exitcode', '-input=false'])).code).toBe(0);

    w.write('main.tf', MAIN(engine.url, 'vm'));
    const replace = await w.tf(['plan', '-detailed-exitcode', '-input=false']);
    expect(replace.code).toBe(2);
    expect(replace.out).toMatch(/must be replaced/);
    expect(replace.out).toMatch(/1 to add, 0 to change, 1 to destroy/);
    expect(replace.out).toContain('Role "web" on auth/hcl-roles will be replaced: type iam -> vm');
    await w.ok(['apply', '-auto-approve', '-input=false']);
    const second = await role('web');
    expect(second).toMatchObject({ type: 'vm' });
    expect(second!.role_id).not.toBe(first!.role_id);

    // A role made by hand: declaring it is refused at plan, with the import command.
    await api(engine, 'POST', 'auth/hcl-roles/role/legacy', { body: { type: 'vm', bound_zones: ['europe-west1-c'], token_ttl: 1800 } });
    w.write('main.tf', MAIN(engine.url, 'vm', LEGACY));
    const refused = await w.tf(['plan', '-input=false']);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('Role "legacy" already exists on auth/hcl-roles');
    expect(refused.out.replace(/\s+/g, ' ')).toContain('terraform import keyward_cloud_auth_role.<name> hcl-roles/legacy');
    w.write('main.tf', MAIN(engine.url, 'vm', `${LEGACY}import {\n  to = keyward_cloud_auth_role.legacy\n  id = "hcl-roles/legacy"\n}\n`));
    const imported = await w.ok(['apply', '-auto-approve', '-input=false']);
    expect(imported).toMatch(/1 imported, 0 added, 0 changed, 0 destroyed/);
    expect((await w.tf(['plan', '-detailed-exitcode', '-input=false'])).code).toBe(0);

    const destroy = await w.ok(['destroy', '-auto-approve', '-input=false']);
    expect(destroy).toMatch(/3 destroyed/);
    expect((await api(engine, 'GET', 'sys/auth')).body.data['hcl-roles/']).toBeUndefined();
    for (const out of w.outputs) expect(out).not.toContain(ROOT_TOKEN);
  }, 300_000);
});
