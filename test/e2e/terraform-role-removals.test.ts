// Role deletions are visible in a Terraform plan although Terraform shows them as an update of the
// backend (real terraform 1.11, offline, against the engine): deleting, renaming and retyping a
// role, and a role made by hand that exclusive_roles deletes, each plan with a warning naming the
// role; the policy check docs/terraform-provider.md gives (jq over `terraform show -json`) lists exactly them.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, startTestEngine, ROOT_TOKEN } from '../support/engine';
import { runAsync } from '../support/run-async';
import { REPO, terraformWorkdir, type TerraformWorkdir } from '../support/terraform-workdir';
const SA = '["svc@p.iam.gserviceaccount.com"]';

const role = (name: string, body: string) => `  roles "${name}" {\n${body}\n  }\n`;
const MAIN = (address: string, roles: string) => `terraform {
  required_providers {
    keyward = { source = "keyward/keyward" }
  }
}
provider "keyward" {
  address          = "${address}"
  fingerprint_salt = "removals-e2e-salt-0123456789"
}
resource "keyward_cloud_auth_backend" "cloud" {
  path            = "removals"
  exclusive_roles = true
${roles}}
# The expressions CloudAuthBackend.accessor and CloudAuthRole.roleId synthesize.
output "accessor" {
  value = keyward_cloud_auth_backend.cloud.accessor
}
output "keep_role_id" {
  value = keyward_cloud_auth_backend.cloud.roles["keep"].role_id
}
`;

/** The jq program of the policy check in docs/terraform-provider.md (so the page cannot drift from what is tested). */
function readmeJq(): string {
  const readme = readFileSync(join(REPO, 'docs', 'terraform-provider.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Role deletions in a Terraform plan'));
  const m = /jq -r '([^']+)'/.exec(section);
  if (!m) throw new Error('docs/terraform-provider.md: no jq policy check under "Role deletions in a Terraform plan"');
  return m[1]!;
}

describe('role deletions in a terraform plan', () => {
  let wd: TerraformWorkdir;
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  const ok = (...args: string[]) => wd.ok(args);

  beforeAll(async () => {
    engine = await startTestEngine();
    wd = terraformWorkdir('keyward-tf-removals-', () => ({ VAULT_ADDR: '', VAULT_TOKEN: ROOT_TOKEN }));
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
    wd?.close();
  });

  it('warns for each deleted, renamed, retyped and exclusively removed role; the documented policy check lists them', async () => {
    const before = [
      role('keep', `    type = "iam"\n    bound_service_accounts = ${SA}`),
      role('gone', `    type = "iam"\n    bound_service_accounts = ${SA}\n    token_ttl = "1h"`),
      role('old-name', `    type = "vm"\n    bound_zones = ["europe-west1-b"]\n    token_policies = ["batch"]`),
      role('shape', `    type = "iam"\n    bound_service_accounts = ${SA}\n    token_policies = ["shape"]`),
    ].join('');
    wd.write('main.tf', MAIN(engine.url, before));
    await ok('init', '-input=false');
    await ok('apply', '-input=false', '-auto-approve');
    const outputs = JSON.parse((await wd.tf(['output', '-json'])).stdout) as Record<string, { value: string }>;
    const mounts = (await api(engine, 'GET', 'sys/auth')).body as { data: Record<string, { accessor: string }> };
    expect(outputs.accessor!.value).toBe(mounts.data['removals/']!.accessor);
    expect(outputs.keep_role_id!.value).toBe(((await api(engine, 'GET', 'auth/removals/role/keep')).body as { data: { role_id: string } }).data.role_id);
    const quiet = await ok('plan', '-input=false');
    expect(quiet).toContain('No changes.');
    expect(quiet).not.toContain('Warning');

    // A role made by hand: exclusive_roles deletes it.
    expect((await api(engine, 'POST', 'auth/removals/role/handmade', { body: { type: 'vm', bound_zones: 'us-east1-b' } })).status).toBeLessThan(300);
    const after = [
      role('keep', `    type = "iam"\n    bound_service_accounts = ${SA}`),
      role('new-name', `    type = "vm"\n    bound_zones = ["europe-west1-b"]\n    token_policies = ["batch"]`),
      role('shape', `    type = "vm"\n    bound_zones = ["europe-west1-b"]\n    token_policies = ["shape"]`),
    ].join('');
    wd.write('main.tf', MAIN(engine.url, after));
    const plan = await ok('plan', '-input=false', '-out=tfplan');
    expect(plan).toContain('0 to add, 1 to change, 0 to destroy');
    const warnings = plan.split('\n').filter((l) => l.startsWith('Warning: '));
    expect(warnings.sort()).toEqual(
      [
        'Warning: Role "gone" will be deleted from auth/removals',
        'Warning: Role "old-name" will be deleted and "new-name" created (a rename) on auth/removals',
        'Warning: Role "handmade" on auth/removals will be deleted: not declared, and exclusive_roles is true',
        'Warning: Role "shape" will be replaced on auth/removals: type iam -> vm',
      ].sort(),
    );
    expect(plan).toContain('stops renewing');

    // `terraform show -json tfplan | jq -r '…'`, the pipeline the page shows, in two steps.
    wd.write('tfplan.json', (await wd.tf(['show', '-json', 'tfplan'])).stdout);
    const shown = await runAsync('jq', ['-r', readmeJq(), 'tfplan.json'], { cwd: wd.dir });
    expect(shown.status).toBe(0);
    expect(shown.stdout.trim().split('\n').sort()).toEqual(['gone', 'handmade', 'old-name', 'shape'].map((r) => `keyward_cloud_auth_backend.cloud: role ${r} is deleted`));

    // Applied, the next plan is quiet again.
    await ok('apply', '-input=false', 'tfplan');
    const again = await ok('plan', '-input=false');
    expect(again).toContain('No changes.');
    expect(again).not.toContain('Warning');
  }, 300_000);
});
