// Reads the live state of everything in scope: one sys/auth read, per mount one LIST of roles and
// bounded parallel GETs of the roles that matter (declared, recorded, or in an exclusive scope),
// the same for snapshot configs. Values are canonicalized on the way in.

import { mountMove } from './objects/mount-move';
import { createHash } from 'node:crypto';
import type { VaultClient } from '../client/vault-client';
import { CONFIG_SECRET } from '../schema/cloud-config-fields';
import { liveConfigFields, liveRoleFields, liveSnapshotFields, mountFields, snapshotSecretFields } from './canonical';
import type { DesiredState } from './desired';
import { objectId, parseObjectId, stableJson, type LiveObject, type LiveSecretState, type ObjectAddress } from './model';
import { SECRETS_HELD } from '../client/dialect/translator';
import { mapLimit } from './pool';
import type { LastApplied } from './record';
import { isStorageType } from '../schema/snapshot-config';

export interface LiveState {
  objects: Map<string, LiveObject>;
  /** Role names listed per mount in scope (all of them, managed or not). */
  listedRoles: Map<string, string[]>;
  listedSnapshots: string[];
  /** Declared mount path -> the earlier path its objects were read from (a move to make). */
  moved: Map<string, string>;
}

export interface ReadOptions {
  /** Concurrent GETs. */
  parallelism?: number;
}

/** Which mounts, roles and snapshot configs the plan needs, from the desired state and the record. */
function scopeOf(desired: DesiredState, record: LastApplied) {
  const ids = new Set([...desired.objects.keys(), ...Object.keys(record.objects)]);
  const mounts = new Set<string>();
  const configs = new Set<string>();
  const roles = new Map<string, Set<string>>();
  const snapshots = new Set<string>();
  for (const id of ids) {
    const a = parseObjectId(id);
    if (a.mount) mounts.add(a.mount);
    if (a.kind === 'auth-config') configs.add(a.mount!);
    if (a.kind === 'role') {
      if (!roles.has(a.mount!)) roles.set(a.mount!, new Set());
      roles.get(a.mount!)!.add(a.name!);
    }
    if (a.kind === 'snapshot-config') snapshots.add(a.name!);
  }
  // A mount declared as moved from an earlier path: the earlier path's objects are read too.
  for (const [to, from] of desired.moves) {
    mounts.add(from);
    if (configs.has(to)) configs.add(from);
    if (roles.has(to)) roles.set(from, new Set([...(roles.get(from) ?? []), ...roles.get(to)!]));
  }
  return { mounts, configs, roles, snapshots };
}

export async function readLive(client: VaultClient, desired: DesiredState, record: LastApplied, opts: ReadOptions = {}): Promise<LiveState> {
  const par = opts.parallelism ?? 32;
  const scope = scopeOf(desired, record);
  const objects = new Map<string, LiveObject>();
  const put = (address: ObjectAddress, fields: LiveObject['fields'], secrets: LiveObject['secrets'] = {}, observed: LiveObject['observed'] = {}) => {
    const id = objectId(address);
    objects.set(id, { id, address, fields, secrets, observed });
  };
  const listedRoles = new Map<string, string[]>();
  let listedSnapshots: string[] = [];
  const getRoles: ObjectAddress[] = [];

  const authPart = async () => {
    if (scope.mounts.size === 0) return;
    const mounts = await client.sys.listAuthMounts();
    const present = [...scope.mounts].filter((m) => mounts.has(m));
    for (const m of present) {
      const a = mounts.get(m)!;
      put({ kind: 'auth-mount', mount: m }, mountFields(a.type, { ...(a.config ?? {}), description: a.description, local: a.local }));
    }
    // Only mounts of our type hold our config and roles; another type at the path is replaced.
    const ours = present.filter((m) => mounts.get(m)!.type === 'cloud');
    await mapLimit(ours, par, async (mount) => {
      const api = client.cloud(mount);
      if (scope.configs.has(mount)) {
        const data = (await api.readConfig()) ?? {};
        const keyId = typeof data.private_key_id === 'string' ? data.private_key_id : '';
        const set = keyId !== '' || typeof data.client_email === 'string';
        put({ kind: 'auth-config', mount }, liveConfigFields(data), { [CONFIG_SECRET]: set ? 'set' : 'unset' }, keyId ? { [CONFIG_SECRET]: keyId } : {});
      }
      const names = await api.listRoles();
      listedRoles.set(mount, names);
      const wanted = desired.exclusiveRoleMounts.has(mount) ? null : (scope.roles.get(mount) ?? new Set<string>());
      for (const name of names) if (!wanted || wanted.has(name)) getRoles.push({ kind: 'role', mount, name });
    });
    await mapLimit(getRoles, par, async (a) => {
      const data = await client.cloud(a.mount!).readRole(a.name!);
      if (data) put(a, liveRoleFields(data));
    });
  };

  const snapshotPart = async () => {
    if (scope.snapshots.size === 0 && !desired.exclusiveSnapshotConfigs) return;
    listedSnapshots = await client.snapshots.list();
    const wanted = listedSnapshots.filter((n) => desired.exclusiveSnapshotConfigs || scope.snapshots.has(n));
    await mapLimit(wanted, par, async (name) => {
      const data = await client.snapshots.read(name);
      if (!data) return;
      const type = data.storage_type;
      // Vault returns the stored secrets (the client keeps only which: secrets_held); other servers say nothing.
      const held = Array.isArray(data[SECRETS_HELD]) ? (data[SECRETS_HELD] as string[]) : undefined;
      const state = (f: string): LiveSecretState => (held === undefined ? 'unknown' : held.includes(f) ? 'set' : 'unset');
      const secrets = isStorageType(type) ? Object.fromEntries(snapshotSecretFields(type).map((f) => [f, state(f)])) : {};
      put({ kind: 'snapshot-config', name }, liveSnapshotFields(data), secrets);
    });
  };

  await Promise.all([authPart(), snapshotPart()]);
  const moved = readAsMoved(objects, listedRoles, desired.moves);
  return { objects, listedRoles, listedSnapshots, moved };
}

/**
 * A declared move (movedFrom) as the live read sees it: where only the earlier path exists, its objects are this
 * mount's, to be moved (sys/remount), and are keyed by the new path. Mutates the maps; returns new path -> earlier path.
 */
export function readAsMoved(objects: Map<string, LiveObject>, listedRoles: Map<string, string[]>, moves: ReadonlyMap<string, string>): Map<string, string> {
  const moved = new Map<string, string>();
  for (const [to, declared] of moves) {
    const move = mountMove({ to, movedFrom: declared, live: { from: objects.has(`auth/${declared}`), to: objects.has(`auth/${to}`) } });
    if (!move) continue;
    const from = move.from;
    moved.set(to, from);
    for (const [id, o] of [...objects]) {
      if (o.address.mount !== from) continue;
      objects.delete(id);
      const address = { ...o.address, mount: to };
      objects.set(objectId(address), { ...o, id: objectId(address), address });
    }
    if (listedRoles.has(from)) {
      listedRoles.set(to, listedRoles.get(from)!);
      listedRoles.delete(from);
    }
  }
  return moved;
}

/** Digest of a live state: a plan made from one live state must not be applied to another. */
export function liveDigest(live: LiveState): string {
  const h = createHash('sha256');
  for (const id of [...live.objects.keys()].sort()) {
    const o = live.objects.get(id)!;
    h.update(`${id}\n${stableJson(o.fields)}\n${stableJson(o.secrets)}\n${stableJson(o.observed)}\n`);
  }
  for (const m of [...live.listedRoles.keys()].sort()) h.update(`list ${m}\n${live.listedRoles.get(m)!.join(',')}\n`);
  h.update(`snapshots\n${live.listedSnapshots.join(',')}\n`);
  return 'sha256:' + h.digest('hex');
}
