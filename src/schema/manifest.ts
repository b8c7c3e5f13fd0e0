// The desired-state manifest (version 1): what a stack declares for one server. Written by the
// constructs at synth time (cdktf.out/stacks/<stack>/keyward.manifest.json) or by hand; read by the
// reconciler. Secrets appear only as references (env var name + keyed fingerprint). See docs/manifest.md.

import { createHmac } from 'node:crypto';
import { z } from 'zod';

/** File name the constructs write next to cdk.tf.json, and the CLI looks for. */
export const MANIFEST_FILE_NAME = 'keyward.manifest.json';
export const MANIFEST_VERSION = 1;

/** Environment variable names: POSIX style. */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name like CLOUD_CREDENTIALS');

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

const roleCommon = {
  name: objectName,
  bound_service_accounts: stringList.optional(),
  bound_projects: stringList.optional(),
  add_group_aliases: z.boolean().optional(),
  token_ttl: duration.optional(),
  token_max_ttl: duration.optional(),
  token_explicit_max_ttl: duration.optional(),
  token_period: duration.optional(),
  token_policies: stringList.optional(),
  token_bound_cidrs: stringList.optional(),
  token_no_default_policy: z.boolean().optional(),
  token_num_uses: int.optional(),
  token_type: z.enum(['default', 'service', 'batch']).optional(),
  /** Deprecated aliases, folded into token_* by the reconciler. */
  policies: stringList.optional(),
  ttl: duration.optional(),
  max_ttl: duration.optional(),
  period: duration.optional(),
};

export const iamRoleSchema = z
  .object({
    ...roleCommon,
    type: z.literal('iam'),
    max_jwt_exp: duration.optional(),
    allow_vm_inference: z.boolean().optional(),
  })
  .strict();

export const vmRoleSchema = z
  .object({
    ...roleCommon,
    type: z.literal('vm'),
    bound_zones: stringList.optional(),
    bound_regions: stringList.optional(),
    bound_instance_groups: stringList.optional(),
    /** "key:value" items (list or comma string), or a map. */
    bound_labels: z.union([stringList, z.record(z.string(), z.string())]).optional(),
  })
  .strict();

export const roleSchema = z.discriminatedUnion('type', [iamRoleSchema, vmRoleSchema]);
export type ManifestRole = z.infer<typeof roleSchema>;

export const cloudConfigSchema = z
  .object({
    credentials: secretRefSchema.optional(),
    iam_alias: z.enum(['role_id', 'unique_id']).optional(),
    iam_metadata: stringList.optional(),
    vm_alias: z.enum(['role_id', 'instance_id']).optional(),
    vm_metadata: stringList.optional(),
    custom_endpoint: z
      .object({ api: z.string().optional(), iam: z.string().optional(), crm: z.string().optional(), compute: z.string().optional() })
      .strict()
      .optional(),
  })
  .strict();
export type ManifestCloudConfig = z.infer<typeof cloudConfigSchema>;

/** Mount path: no leading or trailing slash, segments of word characters, "-" and ".". */
const mountPath = z.string().regex(/^[\w.-]+(\/[\w.-]+)*$/, 'must be a mount path like "cloud" or "team/cloud" (no leading or trailing "/")');

export const authBackendSchema = z
  .object({
    path: mountPath,
    type: z.literal('cloud'),
    description: z.string().optional(),
    /** Absent: the config is not managed at all (left as it is). */
    config: cloudConfigSchema.optional(),
    roles: z.array(roleSchema).default([]),
    /** true: roles on this mount that the manifest does not declare are deleted. */
    exclusiveRoles: z.boolean().default(false),
  })
  .strict();
export type ManifestAuthBackend = z.infer<typeof authBackendSchema>;

const snapshotCommon = {
  name: objectName,
  interval: duration,
  retain: int.optional(),
  path_prefix: z.string(),
  file_prefix: z.string().optional(),
};

export const snapshotConfigSchema = z.discriminatedUnion('storage_type', [
  z.object({ ...snapshotCommon, storage_type: z.literal('local'), local_max_space: int }).strict(),
  z
    .object({
      ...snapshotCommon,
      storage_type: z.literal('cloudone-store'),
      cloudone_bucket: z.string(),
      cloudone_region: z.string(),
      cloudone_access_key_id: z.string().optional(),
      cloudone_secret_access_key: secretRefSchema.optional(),
      cloudone_session_token: secretRefSchema.optional(),
      cloudone_endpoint: z.string().optional(),
      cloudone_disable_tls: z.boolean().optional(),
      cloudone_force_path_style: z.boolean().optional(),
      cloudone_enable_kms: z.boolean().optional(),
      cloudone_server_side_encryption: z.boolean().optional(),
      cloudone_kms_key: z.string().optional(),
    })
    .strict(),
  z
    .object({
      ...snapshotCommon,
      storage_type: z.literal('cloudtwo-store'),
      cloudtwo_bucket: z.string(),
      cloudtwo_service_account_key: secretRefSchema.optional(),
      cloudtwo_endpoint: z.string().optional(),
      cloudtwo_disable_tls: z.boolean().optional(),
    })
    .strict(),
  z
    .object({
      ...snapshotCommon,
      storage_type: z.literal('cloudthree-store'),
      cloudthree_container_name: z.string(),
      cloudthree_account_name: z.string().optional(),
      cloudthree_account_key: secretRefSchema.optional(),
      cloudthree_blob_environment: z.string().optional(),
      cloudthree_endpoint: z.string().optional(),
    })
    .strict(),
]);
export type ManifestSnapshotConfig = z.infer<typeof snapshotConfigSchema>;

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
    dup(m.authBackends.map((b) => b.path.toLowerCase()), ['authBackends'], 'auth backend path');
    m.authBackends.forEach((b, i) => dup(b.roles.map((r) => r.name.toLowerCase()), ['authBackends', i, 'roles'], 'role name'));
    dup(m.snapshotConfigs.map((s) => s.name), ['snapshotConfigs'], 'snapshot config name');
  });
export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestInput = z.input<typeof manifestSchema>;

/** null object members mean "absent" (Terraform's jsonencode may add them when unifying types). */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  return v;
}

/** Parses a manifest; throws an Error listing every problem with its JSON path. */
export function parseManifest(input: unknown): Manifest {
  const r = manifestSchema.safeParse(dropNulls(input));
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `  ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  throw new Error(`invalid keyward manifest:\n${lines.join('\n')}`);
}
