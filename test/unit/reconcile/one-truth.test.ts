// Issue 40's defects, held where the decisions are made (objects/decide.ts) and seen through each
// front end that does not need a server: the CLI's diff (keyward plan, keyward's record or
// Terraform's state as the record) and `keyward show` of Terraform's saved plan.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { desiredFromManifest, withRecordFacts } from '../../../src/reconcile/desired';
import { diff } from '../../../src/reconcile/diff';
import type { LiveState } from '../../../src/reconcile/live';
import { objectId, type LiveObject, type ObjectAddress } from '../../../src/reconcile/model';
import { liveConfigFields, liveRoleFields, mountFields } from '../../../src/reconcile/canonical';
import { recordedFrom, type LastApplied } from '../../../src/reconcile/record';
import { renderMarkdown } from '../../../src/reconcile/render-markdown';
import { renderText } from '../../../src/reconcile/render-text';
import { objectDigests } from '../../../src/reconcile/review-digest';
import { parseManifest, type ManifestInput } from '../../../src/schema/manifest';
import { recordFromState } from '../../../src/terraform-state/state-record';
import { movesFromState } from '../../../src/terraform-state/stack-state';
import { planFromTerraformJson } from '../../../src/terraform-state/terraform-plan';
import { backendPlan, backendState } from '../../support/terraform-json';

const SALT = 'unit-salt-0123456789';
const WEB = { name: 'web', type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'] } as const;
const manifest = (backend: Record<string, unknown>): ManifestInput => ({
  version: 1,
  fingerprintSalt: SALT,
  authBackends: [{ path: 'cloud', type: 'cloud', roles: [WEB], ...backend } as ManifestInput['authBackends'] extends (infer B)[] | undefined ? B : never],
});
const desiredOf = (backend: Record<string, unknown>) => desiredFromManifest(parseManifest(manifest(backend)), {});

const liveObj = (address: ObjectAddress, fields: LiveObject['fields']): LiveObject => ({ id: objectId(address), address, fields, secrets: {}, observed: {} });
/** The server as the full stack (mount, config, roles web and api) left it. */
const applied = (): LiveState => {
  const objs = [
    liveObj({ kind: 'auth-mount', mount: 'cloud' }, mountFields('cloud', {})),
    liveObj({ kind: 'auth-config', mount: 'cloud' }, liveConfigFields({ iam_alias: 'unique_id' })),
    liveObj({ kind: 'role', mount: 'cloud', name: 'web' }, liveRoleFields({ type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], max_jwt_exp: 900 })),
    liveObj({ kind: 'role', mount: 'cloud', name: 'api' }, liveRoleFields({ type: 'iam', bound_service_accounts: ['api@p.iam.gserviceaccount.com'], max_jwt_exp: 900 })),
  ];
  return { objects: new Map(objs.map((o) => [o.id, o])), listedRoles: new Map([['cloud', ['api', 'web']]]), listedSnapshots: [], moved: new Map() };
};
const FULL = { config: { iam_alias: 'unique_id' }, roles: [WEB, { name: 'api', type: 'iam', bound_service_accounts: ['api@p.iam.gserviceaccount.com'] }] };
const recordOf = (backend: Record<string, unknown>): LastApplied => {
  const d = desiredOf(backend);
  return { version: 1, objects: Object.fromEntries([...d.objects.values()].map((o) => [o.id, recordedFrom(o)])) };
};
const actions = (objects: { id: string; action: string }[]) => objects.map((o) => [o.id, o.action]);
/** What the live read makes of a mount moved from cloud to cloud2 (live.ts): cloud's objects, keyed by the new path. */
const movedToCloud2 = (live: LiveState): LiveState => ({
  ...live,
  objects: new Map(
    [...live.objects].map(([id, o]) => [
      id.replace('auth/cloud', 'auth/cloud2'),
      { ...o, id: id.replace('auth/cloud', 'auth/cloud2'), address: { ...o.address, mount: 'cloud2' } },
    ]),
  ),
  moved: new Map([['cloud2', 'cloud']]),
});

describe('config removed from a backend: no longer managed, the server keeps it (one rule)', () => {
  test('keyward plan (CLI diff)', () => {
    const { objects } = diff(desiredOf({ roles: FULL.roles }), applied(), recordOf(FULL));
    const config = objects.find((o) => o.id === 'auth/cloud/config')!;
    expect(config.action).toBe('no-op');
    expect(config.reason).toMatch(/no longer managed, the server keeps it/);
  });

  test('keyward show of Terraform saved plan', () => {
    const p = planFromTerraformJson(JSON.stringify(backendPlan(backendValue({ config: CONFIG }), backendValue({}))), 'tfplan.json');
    const config = p.objects.find((o) => o.id === 'auth/cloud/config')!;
    expect(config.action).toBe('no-op');
    expect(config.reason).toMatch(/no longer managed, the server keeps it/);
    // Said in the text and Markdown a reviewer reads, not only in the JSON (before: "No changes." alone).
    expect(renderText(p)).toMatch(/Kept \(no longer managed, left in place\):\n {2}auth\/cloud\/config: removed from the stack: no longer managed, the server keeps it/);
    expect(renderMarkdown(p)).toMatch(/Kept <code>auth\/cloud\/config<\/code>: removed from the stack: no longer managed, the server keeps it/);
  });
});

describe('role deletion cost: every plan that deletes or replaces a role says it', () => {
  test('keyward plan (CLI diff): a removed role', () => {
    const { objects } = diff(desiredOf(FULL.config ? { config: FULL.config } : {}), applied(), recordOf(FULL));
    expect(objects.find((o) => o.id === 'auth/cloud/role/api')!.warnings).toEqual([expect.stringMatching(/stops renewing/)]);
  });

  test('keyward plan (CLI diff): a replaced role', () => {
    const asVm = { config: FULL.config, roles: [WEB, { name: 'api', type: 'vm', bound_zones: ['europe-west1-b'] }] };
    const api = diff(desiredOf(asVm), applied(), recordOf(FULL)).objects.find((o) => o.id === 'auth/cloud/role/api')!;
    expect(api.action).toBe('replace');
    expect(api.warnings).toEqual([expect.stringMatching(/stops renewing/)]);
  });
});

const CONFIG = { iam_alias: 'unique_id' };
const backendValue = (o: { path?: string; config?: unknown; roles?: Record<string, unknown>; retain?: boolean }) => ({
  path: o.path ?? 'cloud',
  accessor: 'auth_cloud_1',
  retain_on_destroy: o.retain ? true : null,
  config: o.config ?? null,
  roles: o.roles ?? { web: { type: 'iam', role_id: 'r1', bound_service_accounts: ['web@p.iam.gserviceaccount.com'] } },
});

describe('a path change without movedFrom is a move where Terraform identifies the backend by its resource', () => {
  test('keyward show of Terraform saved plan: a move of the mount with the revocation warning, nothing deleted', () => {
    const p = planFromTerraformJson(JSON.stringify(backendPlan(backendValue({ config: CONFIG }), backendValue({ path: 'cloud2', config: CONFIG }))), 'tfplan.json');
    expect(actions(p.objects)).toEqual([
      ['auth/cloud2', 'update'],
      ['auth/cloud2/config', 'no-op'],
      ['auth/cloud2/role/web', 'no-op'],
    ]);
    expect(p.objects[0].changes).toEqual([{ field: 'path', before: 'cloud', after: 'cloud2' }]);
    expect(p.objects[0].warnings).toEqual([expect.stringMatching(/revokes every token/)]);
  });

  test('the PR plan (Terraform state as the record): the state and the synthesized stack name the same resource', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kw-moves-'));
    writeFileSync(join(dir, 'cdk.tf.json'), JSON.stringify({ resource: { keyward_cloud_auth_backend: { b: { path: 'cloud2' } } } }));
    const state = recordFromState(backendState(backendValue({})));
    const moves = movesFromState(dir, state.backendPaths);
    expect(moves).toEqual([['cloud2', 'cloud']]);
    const desired = withRecordFacts(desiredFromManifest(parseManifest({ ...manifest({}), authBackends: [{ path: 'cloud2', type: 'cloud', roles: [WEB] }] }), {}), { moves });
    expect([...desired.moves]).toEqual([['cloud2', 'cloud']]);
    // The live read finds only the earlier path and reads it as the moved mount's (live.ts).
    const live = applied();
    live.objects.delete('auth/cloud/role/api');
    live.objects.delete('auth/cloud/config');
    const { objects } = diff(desired, movedToCloud2(live), state.record);
    expect(actions(objects)).toEqual([
      ['auth/cloud2', 'update'],
      ['auth/cloud2/role/web', 'no-op'],
    ]);
    expect(objects[0].warnings).toEqual([expect.stringMatching(/revokes every token/)]);
  });
});

describe('a role removed from a RETAIN backend is deleted (RETAIN is the whole backend forgotten)', () => {
  const retainedState = () =>
    recordFromState(
      backendState(
        backendValue({
          retain: true,
          roles: {
            web: { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'] },
            api: { type: 'iam', bound_service_accounts: ['api@p.iam.gserviceaccount.com'] },
          },
        }),
      ),
    );

  test('the state record retains the backend, not its roles', () => {
    expect(retainedState().retained).toEqual(['auth/cloud']);
  });

  test('the PR plan: the removed role is a delete, the removed backend is retained with its roles', () => {
    const state = retainedState();
    const one = diff(withRecordFacts(desiredOf({}), state), applied(), state.record).objects.find((o) => o.id === 'auth/cloud/role/api')!;
    expect(one.action).toBe('delete');
    expect(one.reason).toBe('removed from the desired state');
    const none = withRecordFacts(desiredFromManifest(parseManifest({ version: 1, fingerprintSalt: SALT }), {}), state);
    const all = diff(none, applied(), state.record).objects;
    expect(all.filter((o) => o.action === 'delete').every((o) => /retain_on_destroy/.test(o.reason ?? ''))).toBe(true);
  });

  test('keyward show: the removed role is a delete with its cost', () => {
    const roles = {
      web: { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'] },
      api: { type: 'iam', bound_service_accounts: ['api@p.iam.gserviceaccount.com'] },
    };
    const p = planFromTerraformJson(JSON.stringify(backendPlan(backendValue({ retain: true, roles }), backendValue({ retain: true }))), 'tfplan.json');
    const api = p.objects.find((o) => o.id === 'auth/cloud/role/api')!;
    expect(api.action).toBe('delete');
    expect(api.reason).toBe('removed from the desired state');
    expect(api.warnings).toEqual([expect.stringMatching(/stops renewing/)]);
  });
});

describe('switch to workload identity over a key set outside keyward', () => {
  const WIF = {
    service_account_email: 'vault@p.iam.gserviceaccount.com',
    identity_token_audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/v',
  };
  test('keyward plan (CLI diff): the server-held key is cleared in the same write, and the plan says so', () => {
    const live = applied();
    live.objects.set('auth/cloud/config', { ...live.objects.get('auth/cloud/config')!, secrets: { credentials: 'set' }, observed: { credentials: 'set-by-hand' } });
    const config = diff(desiredOf({ config: WIF }), live, recordOf({})).objects.find((o) => o.id === 'auth/cloud/config')!;
    expect(config.action).toBe('update');
    expect(config.changes).toContainEqual({ field: 'credentials', sensitive: true, before: '(sensitive)', after: null });
    expect(config.warnings).toEqual([expect.stringMatching(/clears the server's key/)]);
  });
});

describe('after a move, the config rotation fields are written again (Vault Enterprise de-registers the moved mount rotation)', () => {
  const ROTATING = { config: { iam_alias: 'unique_id', rotation_period: '24h' } };
  test('keyward plan (CLI diff, movedFrom): the config writes rotation_period again and the move warning says so', () => {
    const desired = desiredOf({ ...ROTATING, path: 'cloud2', movedFrom: 'cloud' });
    const live = applied();
    live.objects.delete('auth/cloud/role/api');
    live.objects.set('auth/cloud/config', { ...live.objects.get('auth/cloud/config')!, fields: liveConfigFields({ iam_alias: 'unique_id', rotation_period: 86400 }) });
    const { objects } = diff(desired, movedToCloud2(live), recordOf(ROTATING));
    const mount = objects.find((o) => o.id === 'auth/cloud2')!;
    const config = objects.find((o) => o.id === 'auth/cloud2/config')!;
    expect(mount.warnings).toEqual([expect.stringMatching(/rotation fields are written again after the move/)]);
    expect(config.action).toBe('update');
    expect(config.changes).toEqual([{ field: 'rotation_period', before: 86400, after: 86400 }]);
  });

  test('keyward show: the same for a path change Terraform makes', () => {
    const rotating = { iam_alias: 'unique_id', rotation_period: '24h' };
    const p = planFromTerraformJson(JSON.stringify(backendPlan(backendValue({ config: rotating }), backendValue({ path: 'cloud2', config: rotating }))), 'tfplan.json');
    expect(p.objects.find((o) => o.id === 'auth/cloud2')!.warnings).toEqual([expect.stringMatching(/rotation fields are written again/)]);
    expect(p.objects.find((o) => o.id === 'auth/cloud2/config')!.action).toBe('update');
  });
});

describe('a mount replaced through local: one action and one reviewed decision per object in both plans', () => {
  test('keyward plan (CLI diff) and keyward show of the Terraform plan: the config and roles are replaced with the mount, with equal object digests', () => {
    const live = applied();
    live.objects.delete('auth/cloud/role/api');
    const cli = diff(desiredOf({ config: CONFIG, local: true }), live, recordOf({ config: CONFIG })).objects;
    const p = planFromTerraformJson(
      JSON.stringify(backendPlan(backendValue({ config: CONFIG }), { ...backendValue({ config: CONFIG }), local: true }, ['delete', 'create'])),
      'tfplan.json',
    );
    const changedOf = (objects: { id: string; action: string }[]) => Object.fromEntries(objects.filter((o) => o.action !== 'no-op').map((o) => [o.id, o.action]));
    const expected = { 'auth/cloud': 'replace', 'auth/cloud/config': 'replace', 'auth/cloud/role/web': 'replace' };
    expect(changedOf(cli)).toEqual(expected);
    expect(changedOf(p.objects)).toEqual(expected);
    // The same decisions digest the same (what the CI recipe's deploy compares with the reviewed PR plan).
    const plan = (objects: typeof cli) => ({ ...p, objects });
    expect(objectDigests(plan(cli))).toEqual(objectDigests(p));
  });
});
