// A fixed desired state, live state and record covering every action, drift and secret case;
// shared by the diff tests and the golden-file renderer tests.

import { desiredFromManifest, type DesiredState } from '../../../src/reconcile/desired';
import { liveConfigFields, liveRoleFields, liveSnapshotFields, mountFields } from '../../../src/reconcile/canonical';
import type { LiveState } from '../../../src/reconcile/live';
import { objectId, type LiveObject, type ObjectAddress } from '../../../src/reconcile/model';
import { emptyRecord, recordedFrom, type LastApplied } from '../../../src/reconcile/record';
import { fingerprintSecret, parseManifest, type ManifestInput } from '../../../src/schema/manifest';

export const SALT = 'unit-salt-0123456789';
export const SECRET_OLD = 'old-secret-value-4f1c';
export const SECRET_NEW = 'new-secret-value-9a7e';

export const fixtureManifest: ManifestInput = {
  version: 1,
  fingerprintSalt: SALT,
  authBackends: [
    {
      path: 'cloud',
      type: 'cloud',
      description: 'workloads',
      config: { iam_alias: 'unique_id', credentials: { secretRef: { env: 'CREDS', fingerprint: fingerprintSecret(SALT, SECRET_NEW) } } },
      roles: [
        { name: 'web', type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: '1h', token_policies: 'web' },
        // A policy name with Markdown and HTML specials, to prove the renderers escape them.
        { name: 'new', type: 'iam', bound_service_accounts: '*', token_bound_cidrs: '10.1.2.3', token_policies: ['ops|<admin>`x`'] },
        { name: 'batch', type: 'vm', bound_zones: 'europe-west1-b', bound_labels: { env: 'prod' } },
        { name: 'same', type: 'iam', bound_service_accounts: ['s@p'], max_jwt_exp: 900 },
      ],
      exclusiveRoles: true,
    },
  ],
  snapshotConfigs: [{ name: 'daily', storage_type: 'local', interval: '24h', retain: 7, path_prefix: '/snap', local_max_space: 1000000 }],
};

export function fixtureDesired(): DesiredState {
  return desiredFromManifest(parseManifest(fixtureManifest), {});
}

function live(address: ObjectAddress, fields: LiveObject['fields'], secrets: LiveObject['secrets'] = {}, observed: LiveObject['observed'] = {}): LiveObject {
  return { id: objectId(address), address, fields, secrets, observed };
}

export function fixtureLive(): LiveState {
  const objs = [
    live({ kind: 'auth-mount', mount: 'cloud' }, mountFields('cloud', { description: 'workloads' })),
    live({ kind: 'auth-config', mount: 'cloud' }, liveConfigFields({ iam_alias: 'unique_id' }), { credentials: 'set' }, { credentials: 'k1' }),
    // web drifted: token_ttl changed out of band to 60.
    // A read carries max_jwt_exp unless it is 0 (path_role.go), so these roles read 900.
    live(
      { kind: 'role', mount: 'cloud', name: 'web' },
      liveRoleFields({ type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: 60, token_policies: ['web'], max_jwt_exp: 900 }),
    ),
    // batch is an iam role on the server: its type must change, a replace.
    live({ kind: 'role', mount: 'cloud', name: 'batch' }, liveRoleFields({ type: 'iam', bound_service_accounts: ['b@p'], max_jwt_exp: 900 })),
    live({ kind: 'role', mount: 'cloud', name: 'same' }, liveRoleFields({ type: 'iam', bound_service_accounts: ['s@p'], max_jwt_exp: 900 })),
    // old was applied before and is no longer declared; stray was never declared (exclusive scope).
    live({ kind: 'role', mount: 'cloud', name: 'old' }, liveRoleFields({ type: 'iam', bound_service_accounts: ['o@p'], max_jwt_exp: 900 })),
    live({ kind: 'role', mount: 'cloud', name: 'stray' }, liveRoleFields({ type: 'vm' })),
    live({ kind: 'snapshot-config', name: 'daily' }, liveSnapshotFields({ storage_type: 'local', interval: 86400, retain: 3, path_prefix: '/snap', local_max_space: 1000000 })),
  ];
  return {
    objects: new Map(objs.map((o) => [o.id, o])),
    listedRoles: new Map([['cloud', ['batch', 'old', 'same', 'stray', 'web']]]),
    listedSnapshots: ['daily'],
    moved: new Map(),
  };
}

export function fixtureRecord(desired: DesiredState): LastApplied {
  const rec = emptyRecord();
  for (const id of ['auth/cloud', 'auth/cloud/config', 'auth/cloud/role/web', 'auth/cloud/role/same', 'snapshot/daily']) {
    const d = desired.objects.get(id)!;
    rec.objects[id] = recordedFrom(d, id === 'auth/cloud/config' ? { credentials: 'k1' } : {});
  }
  rec.objects['auth/cloud/config'].secrets.credentials = fingerprintSecret(SALT, SECRET_OLD);
  rec.objects['auth/cloud/role/old'] = { fields: {}, secrets: {}, observed: {} };
  // daily was applied with retain 7; the server says 3 now: drift.
  return rec;
}
