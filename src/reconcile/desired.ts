// The desired state: a parsed manifest turned into canonical objects keyed by identity, with
// secret references resolved to fingerprints (read from the environment only when the manifest
// carries none). Secret values never leave this module except through secretValue().

import { mountMove } from './objects/mount-move';
import { fingerprintSecret, isSecretRef, type Manifest } from '../schema/manifest';
import { CONFIG_SECRET } from '../schema/cloud-config-fields';
import { ManifestValueError, desiredConfigFields, desiredRoleFields, desiredSnapshotFields, mountFields, snapshotSecretFields } from './canonical';
import { objectId, type DesiredObject, type DesiredSecret, type ObjectAddress } from './model';
import { keyIdOf } from './objects/auth-config';
import { autoloadProblem } from './objects/snapshot-config';

export interface DesiredState {
  objects: Map<string, DesiredObject>;
  /** Mounts whose undeclared roles are deleted. */
  exclusiveRoleMounts: Set<string>;
  /** Declared mount path -> the earlier path it moves from (manifest `movedFrom`). */
  moves: Map<string, string>;
  exclusiveSnapshotConfigs: boolean;
  fingerprintSalt: string;
  /** Ids the record says Terraform forgets when removed (retain_on_destroy): a backend's mount, a snapshot config. */
  retained?: Set<string>;
  /** Object ids whose declared secrets are sent even where the server's own would win (`--resend`). */
  resend?: Set<string>;
}

export class SecretEnvError extends Error {}

export interface DesiredOptions {
  /** A secret without fingerprint and env value gets fingerprint "" instead of failing (old manifests as records). */
  lenientSecrets?: boolean;
  /** Plan-only mode: such a secret is marked unset, to be taken as unchanged (plan-only.ts). */
  unsetSecretsUnchanged?: boolean;
}

function secretOf(where: string, field: string, ref: unknown, salt: string, env: NodeJS.ProcessEnv, opts: DesiredOptions): DesiredSecret {
  if (!isSecretRef(ref)) throw new Error(`${where}: field "${field}" must be a secret reference {"secretRef":{"env":"NAME"}}`);
  const { env: name, fingerprint } = ref.secretRef;
  const value = env[name];
  // The key's identifier, compared with the server's (objects/auth-config.ts), only from the value the fingerprint names.
  const keyId = field === CONFIG_SECRET && value !== undefined && (!fingerprint || fingerprintSecret(salt, value) === fingerprint) ? keyIdOf(value) : undefined;
  const withKey = (s: DesiredSecret): DesiredSecret => (keyId ? { ...s, keyId } : s);
  if (fingerprint) return withKey({ env: name, fingerprint });
  if (value === undefined) {
    if (opts.unsetSecretsUnchanged) return { env: name, fingerprint: '', unset: true };
    if (opts.lenientSecrets) return { env: name, fingerprint: '' };
    throw new SecretEnvError(`${where}: field "${field}" reads environment variable ${name}, which is not set (and the manifest has no fingerprint for it)`);
  }
  return withKey({ env: name, fingerprint: fingerprintSecret(salt, value) });
}

/** Builds the canonical desired state; throws naming the object and field on invalid values. */
export function desiredFromManifest(m: Manifest, env: NodeJS.ProcessEnv = process.env, opts: DesiredOptions = {}): DesiredState {
  const objects = new Map<string, DesiredObject>();
  const add = (address: ObjectAddress, fields: DesiredObject['fields'], secrets: DesiredObject['secrets'], declared?: string[]) => {
    const id = objectId(address);
    objects.set(id, declared ? { id, address, fields, secrets, declared } : { id, address, fields, secrets });
  };
  const exclusiveRoleMounts = new Set<string>();
  const moves = new Map<string, string>();
  for (const b of m.authBackends) {
    const mount = b.path;
    add({ kind: 'auth-mount', mount }, mountFields(b.type, b), {});
    if (b.config) {
      const where = objectId({ kind: 'auth-config', mount });
      const secrets: DesiredObject['secrets'] = {};
      if (b.config.credentials) secrets[CONFIG_SECRET] = secretOf(where, CONFIG_SECRET, b.config.credentials, m.fingerprintSalt, env, opts);
      add(
        { kind: 'auth-config', mount },
        desiredConfigFields(where, b.config),
        secrets,
        Object.keys(b.config).filter((k) => k !== CONFIG_SECRET),
      );
    }
    for (const r of b.roles) {
      const name = r.name.toLowerCase();
      const address: ObjectAddress = { kind: 'role', mount, name };
      add(address, desiredRoleFields(objectId(address), r as Record<string, unknown>), {});
    }
    if (b.exclusiveRoles) exclusiveRoleMounts.add(mount);
    const move = mountMove({ to: mount, movedFrom: b.movedFrom });
    if (move) moves.set(mount, move.from);
  }
  for (const s of m.snapshotConfigs) {
    const address: ObjectAddress = { kind: 'snapshot-config', name: s.name };
    const where = objectId(address);
    const secrets: DesiredObject['secrets'] = {};
    const raw = s as Record<string, unknown>;
    for (const field of snapshotSecretFields(s.storage_type)) {
      if (raw[field] !== undefined) secrets[field] = secretOf(where, field, raw[field], m.fingerprintSalt, env, opts);
    }
    add(
      address,
      desiredSnapshotFields(where, raw),
      secrets,
      Object.keys(raw).filter((k) => k !== 'name' && !(k in secrets)),
    );
  }
  const autoload = autoloadProblem(m.snapshotConfigs.filter((s) => (s as Record<string, unknown>).autoload_enabled === true).map((s) => s.name));
  if (autoload) throw new ManifestValueError(autoload);
  return { objects, exclusiveRoleMounts, moves, exclusiveSnapshotConfigs: m.exclusiveSnapshotConfigs, fingerprintSalt: m.fingerprintSalt };
}

/**
 * The value of a secret at apply time. Refuses when the environment's value does not match the
 * planned fingerprint (the secret changed after the plan or synth): applying it would go unrecorded.
 */
export function secretValue(where: string, field: string, s: DesiredSecret, salt: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[s.env];
  if (value === undefined) throw new SecretEnvError(`${where}: field "${field}" needs environment variable ${s.env}, which is not set`);
  if (fingerprintSecret(salt, value) !== s.fingerprint) {
    throw new SecretEnvError(
      `${where}: the value of ${s.env} does not match the fingerprint planned for field "${field}" (the secret changed after the manifest or plan was made; synthesize or plan again)`,
    );
  }
  return value;
}

/**
 * The desired state with what the record says about it: the ids Terraform forgets on removal
 * (retain_on_destroy) and the mounts Terraform moves (a backend resource whose path changed). A
 * declared `movedFrom` wins; keyward's own record is keyed by path and says neither.
 */
export function withRecordFacts(desired: DesiredState, facts: { retained?: readonly string[]; moves?: readonly (readonly [string, string])[] }): DesiredState {
  const moves = new Map(desired.moves);
  for (const [to, recorded] of facts.moves ?? []) {
    if (!desired.objects.has(`auth/${to}`)) continue;
    const move = mountMove({ to, movedFrom: desired.moves.get(to), recorded });
    if (move) moves.set(to, move.from);
  }
  return { ...desired, moves, retained: new Set(facts.retained ?? []) };
}
