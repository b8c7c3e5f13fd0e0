// A resource Terraform must replace (destroy, then create) plans and applies through real
// terraform 1.11 against the Vault contract server: a snapshot config whose storage_type changes
// (SNAPSHOT_REPLACE_FIELDS) or that `-replace=` names, and a backend whose `local` changes
// (MOUNT_REPLACE_FIELDS) or that `-replace=` names. Terraform plans the create half with no prior
// state while the old object still exists, so the "already exists on the server" guard must not
// refuse it; the guard still refuses a create over an object this state never held, and a
// create_before_destroy replace that would write over the object its own destroy then deletes.
// A backend's replace deletes and re-creates its config and roles: the plans say so, with the cost.

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runKeyward } from '../support/keyward-in-process';
import { terraformWorkdir, type TerraformWorkdir } from '../support/terraform-workdir';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../support/vault-contract/server';
import { serviceAccountKey } from '../integration/reconcile/helpers';
import { hclOf, type Stack, type StackSnapshot } from './scenarios/stack';

const ENV = { KW_CREDS: serviceAccountKey('replace-1'), KW_AZ: 'az-key-value' };
/** Terraform boxes and wraps diagnostics: compare text with the box and line breaks removed. */
const flat = (s: string) => s.replace(/[│╷╵]/g, ' ').replace(/\s+/g, ' ');

const GCS: StackSnapshot = { fields: { storage_type: 'cloudtwo-store', interval: '12h', path_prefix: 'raft/', cloudtwo_bucket: 'gcs-snaps' } };
const AZURE: StackSnapshot = {
  fields: { storage_type: 'cloudthree-store', interval: '6h', path_prefix: 'raft/', cloudthree_container_name: 'snaps', cloudthree_account_name: 'kw' },
  secrets: { cloudthree_account_key: 'KW_AZ' },
};
const STACK: Stack = {
  path: 'cloud',
  config: { credentialsEnv: 'KW_CREDS', fields: { vm_alias: 'instance_id' } },
  roles: {
    web: { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: '1h' },
    batch: { type: 'iam', bound_service_accounts: ['batch@p.iam.gserviceaccount.com'] },
  },
  snapshots: { nightly: GCS },
};

describe('a resource Terraform replaces', () => {
  let w: TerraformWorkdir;
  let vault: VaultContract;
  let address = '';
  const write = (s: Stack, extra: { local?: boolean; cbd?: boolean } = {}) => {
    let hcl = hclOf(address, s);
    if (extra.local) hcl = hcl.replace(`  path = "${s.path}"\n`, `  path = "${s.path}"\n  local = true\n`);
    if (extra.cbd) hcl = hcl.replace('  name = "nightly"\n', '  name = "nightly"\n  lifecycle {\n    create_before_destroy = true\n  }\n');
    w.write('main.tf', hcl);
  };
  const tf = (...args: string[]) => w.tf(args);
  const expectOk = (r: { code: number | null; out: string }, what: string) =>
    expect({ what, code: r.code, out: r.code === 0 ? '' : r.out.slice(-4000) }).toEqual({ what, code: 0, out: '' });
  const roleIds = () => Object.fromEntries([...(vault.gcp.get('cloud')?.roles ?? new Map()).entries()].map(([n, r]) => [n, (r as { role_id?: string }).role_id]));

  beforeAll(async () => {
    w = terraformWorkdir('keyward-tf-replace-', () => ({ KEYWARD_DIALECT: '', VAULT_ADDR: '', VAULT_TOKEN: CONTRACT_TOKEN, ...ENV }));
    address = 'http://127.0.0.1:1';
    write({ path: 'init' });
    const r = await w.tf(['init', '-input=false']);
    if (r.code !== 0) throw new Error(r.out);
  }, 120_000);
  beforeEach(async () => {
    vault = await startVaultContract();
    address = vault.url;
    for (const f of ['terraform.tfstate', 'terraform.tfstate.backup', 'tfplan']) rmSync(join(w.dir, f), { force: true });
    write(STACK);
    expectOk(await tf('apply', '-input=false', '-auto-approve'), 'first apply');
  }, 240_000);
  afterEach(async () => {
    await vault?.close();
  });
  afterAll(() => w?.close());

  it('a snapshot config whose storage_type changes is replaced: deleted, then created with the new type', async () => {
    write({ ...STACK, snapshots: { nightly: AZURE } });
    const plan = await tf('plan', '-input=false');
    expectOk(plan, 'plan');
    expect(flat(plan.out)).toMatch(/keyward_snapshot_auto_config\.nightly must be replaced/);
    expectOk(await tf('apply', '-input=false', '-auto-approve'), 'apply');
    expect(vault.snapshots.get('nightly')).toMatchObject({ storage_type: 'azure-blob', azure_container_name: 'snaps' });
    const writes = vault.requests.filter((r) => r.path.endsWith('/snapshot-auto/config/nightly') && r.method !== 'GET').map((r) => r.method);
    expect(writes.slice(-2)).toEqual(['DELETE', 'POST']);
    // Nothing left to do.
    expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);
  }, 240_000);

  it('terraform apply -replace= of a snapshot config deletes and creates it', async () => {
    const before = vault.requests.length;
    const plan = await tf('plan', '-input=false', '-replace=keyward_snapshot_auto_config.nightly');
    expectOk(plan, 'plan -replace');
    expect(flat(plan.out)).toMatch(/keyward_snapshot_auto_config\.nightly will be replaced, as requested/);
    expectOk(await tf('apply', '-input=false', '-auto-approve', '-replace=keyward_snapshot_auto_config.nightly'), 'apply -replace');
    const writes = vault.requests
      .slice(before)
      .filter((r) => r.path.endsWith('/snapshot-auto/config/nightly') && r.method !== 'GET')
      .map((r) => r.method);
    expect(writes).toEqual(['DELETE', 'POST']);
    expect(vault.snapshots.get('nightly')).toMatchObject({ storage_type: 'google-gcs', google_gcs_bucket: 'gcs-snaps' });
  }, 240_000);

  it('create_before_destroy cannot replace a config under the same name: apply refuses before writing, the config stays', async () => {
    write(STACK, { cbd: true });
    const before = vault.requests.length;
    const r = await tf('apply', '-input=false', '-auto-approve', '-replace=keyward_snapshot_auto_config.nightly');
    expect(r.code).toBe(1);
    expect(flat(r.out)).toMatch(/Snapshot config "nightly" already exists on the server.*create_before_destroy/);
    expect(vault.requests.slice(before).filter((q) => q.path.includes('/snapshot-auto/config/') && q.method !== 'GET')).toEqual([]);
    expect(vault.snapshots.get('nightly')).toMatchObject({ storage_type: 'google-gcs' });
  }, 240_000);

  it('terraform apply -replace= of a backend disables and enables the mount and re-creates its config and roles; the plans say what the roles lose', async () => {
    const idsBefore = roleIds();
    const plan = await tf('plan', '-input=false', '-replace=keyward_cloud_auth_backend.b', '-out=tfplan');
    expectOk(plan, 'plan -replace');
    expect(flat(plan.out)).toMatch(/keyward_cloud_auth_backend\.b will be replaced, as requested/);
    // keyward show of the saved plan: the mount, its config and every role are replaced, each role with its cost.
    const shown = await tf('show', '-json', 'tfplan');
    writeFileSync(join(w.dir, 'tfplan.json'), shown.stdout);
    const show = await runKeyward('show', join(w.dir, 'tfplan.json'), '--format', 'json');
    const objects = (JSON.parse(show.out.slice(show.out.indexOf('{'))) as { objects: { id: string; action: string; warnings?: string[] }[] }).objects;
    const byId = Object.fromEntries(objects.map((o) => [o.id, o]));
    expect(Object.fromEntries(objects.map((o) => [o.id, o.action]))).toMatchObject({
      'auth/cloud': 'replace',
      'auth/cloud/config': 'replace',
      'auth/cloud/role/web': 'replace',
      'auth/cloud/role/batch': 'replace',
    });
    for (const role of ['web', 'batch']) expect((byId[`auth/cloud/role/${role}`].warnings ?? []).join(' ')).toMatch(/tokens? .*(stop|no longer)/i);

    expectOk(await tf('apply', '-input=false', '-auto-approve', 'tfplan'), 'apply -replace');
    const writes = vault.requests.filter((r) => r.path === '/v1/sys/auth/cloud' && r.method !== 'GET').map((r) => r.method);
    expect(writes.slice(-2)).toEqual(['DELETE', 'POST']);
    const idsAfter = roleIds();
    expect(Object.keys(idsAfter).sort()).toEqual(['batch', 'web']);
    for (const n of ['web', 'batch']) expect(idsAfter[n]).not.toEqual(idsBefore[n]);
    // The config is back (only non-secret fields compared: a failure must not print the key).
    expect({ alias: vault.gcp.get('cloud')!.config.gce_alias, keyId: vault.gcp.get('cloud')!.config.credentials?.private_key_id }).toEqual({
      alias: 'instance_id',
      keyId: 'replace-1',
    });
    expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);
  }, 300_000);

  it('a backend whose mount holds a role this stack never declared is not replaced: the plan refuses before anything is deleted', async () => {
    // Made by hand beside the stack's roles: the destroy half would delete web and batch and keep
    // the mount for this one, and the create half would then stop on the mount it finds.
    const made = await fetch(`${vault.url}/v1/auth/cloud/role/by-hand`, {
      method: 'POST',
      headers: { 'X-Vault-Token': CONTRACT_TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'iam', bound_service_accounts: 'hand@p.iam.gserviceaccount.com' }),
    });
    expect(made.status).toBeLessThan(300);
    const idsBefore = roleIds();
    for (const args of [['-replace=keyward_cloud_auth_backend.b'], []]) {
      if (args.length === 0) write(STACK, { local: true });
      const r = await tf('apply', '-input=false', '-auto-approve', ...args);
      expect({ args, code: r.code, refused: /auth\/cloud cannot be replaced: it holds 1 role this stack never declared \("by-hand"\)/.test(flat(r.out)) }).toEqual({
        args,
        code: 1,
        refused: true,
      });
    }
    // Nothing was deleted: the declared roles keep their role_ids, the hand-made one is there.
    expect(roleIds()).toEqual(idsBefore);
    expect(vault.requests.filter((q) => q.method === 'DELETE')).toEqual([]);
  }, 300_000);

  it('a backend whose local changes is replaced: the plan warns that every role is deleted and created again; the roles and config are back after apply', async () => {
    write(STACK, { local: true });
    const plan = await tf('plan', '-input=false');
    expectOk(plan, 'plan');
    expect(flat(plan.out)).toMatch(/keyward_cloud_auth_backend\.b must be replaced/);
    expect(flat(plan.out)).toMatch(/auth\/cloud will be replaced.*"batch", "web"/);
    expectOk(await tf('apply', '-input=false', '-auto-approve'), 'apply');
    expect(vault.mounts.get('cloud')).toMatchObject({ local: true });
    expect(Object.keys(roleIds()).sort()).toEqual(['batch', 'web']);
    expect({ alias: vault.gcp.get('cloud')!.config.gce_alias, keyId: vault.gcp.get('cloud')!.config.credentials?.private_key_id }).toEqual({
      alias: 'instance_id',
      keyId: 'replace-1',
    });
    expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);
  }, 300_000);
});
