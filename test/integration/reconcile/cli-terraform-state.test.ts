// `keyward plan --dir` on a stack deployed by Terraform (cdktf deploy): the stack's Terraform state
// is the record of what was applied, so a PR that removes a role or a snapshot config plans their
// deletion (warning block, exit 2), an edit is a change and not drift, an out-of-band change is
// drift; the plan names the record; a leftover keyward record beside it is refused, and keyward
// apply will not write a stack Terraform deploys. Real engine on a loopback port, in-process CLI.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../../src/engine/engine';
import { saveRecordFile } from '../../../src/reconcile/record';
import { api } from '../../support/engine';
import { runKeyward } from '../../support/keyward-in-process';
import { iamRole, manifest, withCliEngine } from './helpers';

let engine: Engine;
let work: string;
withCliEngine('keyward-tfstate-', (e, w) => {
  engine = e;
  work = w;
});

const snapshot = () => ({ name: 'tfs-nightly', storage_type: 'local' as const, interval: '1h', path_prefix: join(work, 'snaps'), local_max_space: 1_000_000 });
const batch = { name: 'batch', type: 'vm' as const, bound_zones: ['europe-west1-b'] };
const stateFile = () => join(work, 'terraform.s.tfstate');

/** The state Terraform keeps after deploying web (token_ttl 1h), batch and the snapshot config. */
function writeState(): void {
  const r = (o: Record<string, unknown>) => ({ role_id: 'x', ...o, name: undefined });
  const resources = [
    {
      mode: 'managed',
      type: 'keyward_cloud_auth_backend',
      name: 'tfs_resource',
      instances: [{ attributes: { path: 'tfs', accessor: 'a', config: null, roles: { web: r(iamRole('web', { token_ttl: '1h' })), batch: r(batch) } } }],
    },
    { mode: 'managed', type: 'keyward_snapshot_auto_config', name: 'nightly', instances: [{ attributes: { ...snapshot(), interval: '1h' } }] },
  ];
  writeFileSync(stateFile(), JSON.stringify({ version: 4, terraform_version: '1.11.0', serial: 1, lineage: 'l', outputs: {}, resources }));
}

/** A synthesized stack: its manifest and a cdk.tf.json with cdktf's local backend. */
function synth(m: ReturnType<typeof manifest>): string {
  const out = join(work, 'cdktf.out');
  mkdirSync(join(out, 'stacks', 's'), { recursive: true });
  writeFileSync(join(out, 'stacks', 's', 'keyward.manifest.json'), JSON.stringify({ ...m, stack: 's' }));
  writeFileSync(join(out, 'stacks', 's', 'cdk.tf.json'), JSON.stringify({ terraform: { backend: { local: { path: stateFile() } } } }));
  return out;
}

test('the PR plan compares with Terraform state: deletions, edits as changes, out-of-band drift', async () => {
  // What cdktf deploy applied (made here with keyward apply, its record kept apart).
  const full = manifest({ authBackends: [{ path: 'tfs', type: 'cloud', roles: [iamRole('web', { token_ttl: 3600 }), batch] }], snapshotConfigs: [snapshot()] });
  writeFileSync(join(work, 'full.json'), JSON.stringify(full));
  expect((await runKeyward('apply', '--manifest', join(work, 'full.json'), '--auto-approve')).code).toBe(0);
  writeState();

  // The PR removes the role and the snapshot config.
  const out = synth(manifest({ authBackends: [{ path: 'tfs', type: 'cloud', roles: [iamRole('web', { token_ttl: 3600 })] }] }));
  const md = await runKeyward('plan', '--dir', out, '--stack', 's', '--format', 'markdown', '--detailed-exitcode');
  expect({ code: md.code, err: md.err }).toEqual({ code: 2, err: '' });
  expect(md.out).toContain('**Plan: 0 to create, 0 to update, 0 to replace, 2 to delete.**');
  expect(md.out).toContain('#### Needs attention');
  expect(md.out).toContain('- <code>- auth/tfs/role/batch</code> delete (removed from the desired state) `narrows-access`');
  expect(md.out).toContain('- <code>- snapshot/tfs-nightly</code> delete (removed from the desired state) `reduces-backups`');
  expect(md.out).toContain(`_Compared with Terraform's state (what cdktf deploy / terraform apply applied): ${stateFile()}_`);
  expect(md.out).toContain('To apply this plan: <code>cdktf deploy s</code>');
  expect(md.out).not.toContain('Drift');

  // An edit is a change, never drift.
  synth(manifest({ authBackends: [{ path: 'tfs', type: 'cloud', roles: [iamRole('web', { token_ttl: 7200 }), batch] }], snapshotConfigs: [snapshot()] }));
  const edit = await runKeyward('plan', '--dir', out, '--detailed-exitcode');
  expect(edit.code).toBe(2);
  expect(edit.out).toContain('~ token_ttl: 3600 -> 7200');
  expect(edit.out).toContain('Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.');
  expect(edit.out).not.toContain('Drift');

  // Out of band: drift against the state, and the change that restores it.
  expect((await api(engine, 'POST', 'auth/tfs/role/web', { body: { token_ttl: 999 } })).status).toBeLessThan(300);
  synth(full);
  const drift = await runKeyward('plan', '--dir', out, '--detailed-exitcode');
  expect(drift.code).toBe(2);
  expect(drift.out).toContain('Drift: objects changed outside Terraform since the last apply:');
  expect(drift.out).toContain('~ auth/tfs/role/web: token_ttl: 3600 (last applied) -> 999 (live)');
  expect(drift.out).toContain('~ token_ttl: 999 -> 3600');

  // keyward will not write the stack, and a leftover keyward record is not mixed in silently.
  const apply = await runKeyward('apply', '--dir', out, '--auto-approve');
  expect(apply.code).toBe(1);
  expect(apply.err).toContain('stack s is deployed by Terraform');
  expect(apply.err).toContain('`cdktf deploy s`');
  saveRecordFile(join(work, 'keyward.s.last-applied.json'), { version: 1, objects: {} });
  const mixed = await runKeyward('plan', '--dir', out);
  expect(mixed.code).toBe(1);
  expect(mixed.err).toContain('has two records of what was applied');
  expect((await runKeyward('plan', '--dir', out, '--record', 'terraform')).code).toBe(0);
});
