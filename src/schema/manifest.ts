// The desired-state manifest (version 1): what a stack declares for one server. Written by the
// constructs at synth time (cdktf.out/stacks/<stack>/keyward.manifest.json) or by hand; read by the
// reconciler. Secrets appear only as references (env var name + keyed fingerprint). See docs/manifest.md.

import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { MOUNT_FIELDS } from './auth-mount-fields';
import { CLOUD_CONFIG_FIELDS } from './cloud-config-fields';
import { ROLE_FIELDS, type RoleType } from './cloud-role-fields';
import { CUSTOM_ENDPOINT_KEYS } from './cloud-config';
import { TOKEN_TYPE_VALUES } from './cloud-role';
import { fieldsForStorageType, type StorageType } from './snapshot-fields';

/** File name the constructs write next to cdk.tf.json, and the CLI looks for. */
export const MANIFEST_FILE_NAME = 'keyward.manifest.json';

/** The manifest of a stack's server: keyward.manifest.json, or keyward.<alias>.manifest.json for an aliased one. */
export const manifestFileName = (alias?: string): string => (alias ? `keyward.${alias}.manifest.json` : MANIFEST_FILE_NAME);
export const ALIASED_MANIFEST = /^keyward\.([a-z][a-z0-9_-]*)\.manifest\.json$/;
export const MANIFEST_VERSION = 1;

/** Environment variable names: POSIX style (manifest, constructs and provider alike). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envName = z.string().regex(ENV_NAME, 'must be an environment variable name like CLOUD_CREDENTIALS');

/** "sha256:" + 64 hex chars: HMAC-SHA256 of the secret value keyed with the manifest's fingerprintSalt. */
export const fingerprintPattern = /^sha256:[0-9a-f]{64}$/;

/**
 * A secret: the value is read from `env` at apply time and never stored. `fingerprint` detects
 * rotation without the value; when absent the reconciler computes it from the environment.
 */
export const secretRefSchema = z
  .object({
    secretRef: z
      .object({
        env: envName,
        fingerprint: z.string().regex(fingerprintPattern, 'must be "sha256:" followed by 64 lower-case hex digits').optional(),
      })
      .strict(),
  })
  .strict();
export type SecretRef = z.infer<typeof secretRefSchema>;

export function isSecretRef(v: unknown): v is SecretRef {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'secretRef' in v;
}

/**
 * Keyed fingerprint of a secret value: HMAC-SHA256(key = salt, message = value). The salt is per
 * manifest (not secret), so equal secrets in different stacks fingerprint differently and a
 * precomputed table of common values is useless. High-entropy secrets (keys) cannot be recovered.
 */
export function fingerprintSecret(salt: string, value: string): string {
  return 'sha256:' + createHmac('sha256', `keyward-fingerprint-v1:${salt}`).update(value, 'utf8').digest('hex');
}

// Loose input forms accepted by the server are accepted here too; the reconciler canonicalizes.
/** Whole seconds, or a duration string ("15m", "1h30m", "7d"). */
const duration = z.union([z.number().int().nonnegative(), z.string()]);
/** A list, or a comma-separated string. */
const stringList = z.union([z.array(z.string()), z.string()]);
const int = z.union([z.number().int(), z.string().regex(/^\s*[-+]?\d+\s*$/)]);

/** Role name rule of the server: letters, digits, `_`, `-`, `.`, starting and ending with a word character. */
export const objectNamePattern = /^\w(([\w.-]+)?\w)?$/;
const objectName = z.string().regex(objectNamePattern, 'must be letters, digits, "_", "-" or "." and start and end with a letter or digit');

// Field schemas come from the field tables (src/schema/*-fields.ts): one entry per field.
const KIND: Record<string, () => z.ZodType> = {
  string: () => z.string(),
  bool: () => z.boolean(),
  int: () => int,
  duration: () => duration,
  commaList: () => stringList,
  list: () => stringList,
  /** "key:value" items (list or comma string), or a map. */
  labels: () => z.union([stringList, z.record(z.string(), z.string())]),
  map: () => z.record(z.string(), z.string()),
};
const ofValues = (values: readonly string[] | undefined, kind: string) => (values ? z.enum(values as [string, ...string[]]) : KIND[kind]());

/** Deprecated role aliases a manifest may use (folded into token_* by the reconciler). */
const MANIFEST_ROLE_ALIASES = new Set(['policies', 'ttl', 'max_ttl', 'period']);
function roleShape(type: RoleType): Record<string, z.ZodType> {
  const out: Record<string, z.ZodType> = {};
  for (const f of ROLE_FIELDS) {
    if (f.name === 'name' || f.name === 'type' || (f.aliasOf && !MANIFEST_ROLE_ALIASES.has(f.name))) continue;
    if (f.appliesTo !== 'both' && f.appliesTo !== type) continue;
    out[f.name] = ofValues(f.name === 'token_type' ? TOKEN_TYPE_VALUES : undefined, f.kind).optional();
  }
  return out;
}

/** Fields built from a table: typed by name where code reads them, the rest by the table's schema. */
type TableFields = { [field: string]: unknown };
export type ManifestRole = { name: string; type: RoleType } & TableFields;

export const iamRoleSchema = z.object({ name: objectName, type: z.literal('iam'), ...roleShape('iam') }).strict();
export const vmRoleSchema = z.object({ name: objectName, type: z.literal('vm'), ...roleShape('vm') }).strict();

export const roleSchema = z.discriminatedUnion('type', [iamRoleSchema, vmRoleSchema]) as unknown as z.ZodType<ManifestRole, ManifestRole>;

const customEndpoint = z.object(Object.fromEntries(CUSTOM_ENDPOINT_KEYS.map((k) => [k, z.string().optional()]))).strict();

export type ManifestCloudConfig = TableFields;
export const cloudConfigSchema = z
  .object(
    Object.fromEntries(
      CLOUD_CONFIG_FIELDS.map((f) => [f.name, (f.secret ? secretRefSchema : f.name === 'custom_endpoint' ? customEndpoint : ofValues(f.values, f.kind)).optional()]),
    ),
  )
  .strict() as unknown as z.ZodType<ManifestCloudConfig, ManifestCloudConfig>;

/** Mount path: no leading or trailing slash, segments of word characters, "-" and ".". */
const mountPath = z.string().regex(/^[\w.-]+(\/[\w.-]+)*$/, 'must be a mount path like "cloud" or "team/cloud" (no leading or trailing "/")');

const mountShape = Object.fromEntries(MOUNT_FIELDS.map((f) => [f.name, ofValues(f.values, f.kind).optional()]));

interface AuthBackendBase {
  path: string;
  type: 'cloud';
  /** The mount's earlier path: when only that one exists, it is moved here (sys/remount), keeping its roles. */
  movedFrom?: string;
  description?: string;
  /** Absent: the config is not managed at all (left as it is). */
  config?: ManifestCloudConfig;
}
export type ManifestAuthBackend = AuthBackendBase & { roles: ManifestRole[]; exclusiveRoles: boolean } & TableFields;
export type ManifestAuthBackendInput = AuthBackendBase & { roles?: ManifestRole[]; exclusiveRoles?: boolean } & TableFields;

export const authBackendSchema = z
  .object({
    path: mountPath,
    type: z.literal('cloud'),
    movedFrom: mountPath.optional(),
    ...mountShape,
    config: cloudConfigSchema.optional(),
    roles: z.array(roleSchema).default([]),
    /** true: roles on this mount that the manifest does not declare are deleted. */
    exclusiveRoles: z.boolean().default(false),
  })
  .strict() as unknown as z.ZodType<ManifestAuthBackend, ManifestAuthBackendInput>;

function snapshotVariant<T extends StorageType>(type: T) {
  const shape: Record<string, z.ZodType> = {};
  for (const f of fieldsForStorageType(type)) {
    if (f.name === 'storage_type') continue;
    // Optional here: a missing required field is reported by the write rules, naming the storage
    // type ("local_max_space is required for storage_type=local"), not as zod's "Invalid input".
    shape[f.name] = (f.secret ? secretRefSchema : ofValues(f.values, f.kind)).optional();
  }
  return z.object({ name: objectName, storage_type: z.literal(type), ...shape }).strict();
}

export type ManifestSnapshotConfig = { name: string; storage_type: StorageType } & TableFields;
export const snapshotConfigSchema = z.discriminatedUnion('storage_type', [
  snapshotVariant('local'),
  snapshotVariant('cloudone-store'),
  snapshotVariant('cloudtwo-store'),
  snapshotVariant('cloudthree-store'),
]) as unknown as z.ZodType<ManifestSnapshotConfig, ManifestSnapshotConfig>;

export const manifestSchema = z
  .object({
    version: z.literal(MANIFEST_VERSION),
    /** Stack name (informational; names the last-applied record). */
    stack: z.string().optional(),
    /** Key for secret fingerprints; choose once per stack and keep it (see fingerprintSecret). */
    fingerprintSalt: z.string().min(16, 'must be at least 16 characters (a random string chosen once per stack)'),
    /** Where to apply. Never a token: that comes from VAULT_TOKEN. */
    server: z
      .object({
        address: z.string().url().optional(),
        namespace: z.string().optional(),
        /** Which names the server speaks (keyward's or Vault's); absent: detected from sys/health. */
        dialect: z.enum(['keyward', 'vault']).optional(),
        /** Where snapshot configs go when not to `address`: a keyward snapshot agent. */
        snapshotAddress: z.string().url().optional(),
        /** The auth method type cloud mounts have on the server (OpenBao: the GCP plugin's registered name). */
        cloudPlugin: z
          .string()
          .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be a plugin name such as gcp or vault-plugin-auth-gcp')
          .optional(),
      })
      .strict()
      .default({}),
    authBackends: z.array(authBackendSchema).default([]),
    snapshotConfigs: z.array(snapshotConfigSchema).default([]),
    /** true: snapshot configs the manifest does not declare are deleted. */
    exclusiveSnapshotConfigs: z.boolean().default(false),
  })
  .strict()
  .superRefine((m, ctx) => {
    const dup = (items: string[], where: (string | number)[], what: string) => {
      const seen = new Set<string>();
      items.forEach((n, i) => {
        if (seen.has(n)) ctx.addIssue({ code: 'custom', path: [...where, i], message: `duplicate ${what} ${JSON.stringify(n)}` });
        seen.add(n);
      });
    };
    dup(
      m.authBackends.map((b) => b.path.toLowerCase()),
      ['authBackends'],
      'auth backend path',
    );
    m.authBackends.forEach((b, i) =>
      dup(
        b.roles.map((r) => r.name.toLowerCase()),
        ['authBackends', i, 'roles'],
        'role name',
      ),
    );
    dup(
      m.snapshotConfigs.map((s) => s.name),
      ['snapshotConfigs'],
      'snapshot config name',
    );
  });
export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestInput = z.input<typeof manifestSchema>;

/** null object members mean "absent" (Terraform's jsonencode may add them when unifying types). */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k, dropNulls(x)]),
    );
  return v;
}

/** Parses a manifest; throws an Error listing every problem with its JSON path. */
export function parseManifest(input: unknown): Manifest {
  const r = manifestSchema.safeParse(dropNulls(input));
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `  ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  throw new Error(`invalid keyward manifest:\n${lines.join('\n')}`);
}
