// One stack description for the scenario table (test/e2e/one-decision.test.ts), rendered as a
// keyward manifest (the CLI's path) and as Terraform HCL (the provider's path), so each scenario
// runs the same declaration through both.

export type Scalar = string | number | boolean | string[];

export interface StackSnapshot {
  /** keyward field names and values (storage_type included). */
  fields: Record<string, Scalar>;
  /** Secret field -> environment variable. */
  secrets?: Record<string, string>;
}

export interface Stack {
  path: string;
  /** The mount's earlier path (a move). The manifest says `movedFrom`; Terraform sees the path change. */
  movedFrom?: string;
  config?: { credentialsEnv?: string; fields?: Record<string, Scalar> };
  /** Role name -> fields (type included). */
  roles?: Record<string, Record<string, Scalar>>;
  /** Roles on the mount that the stack does not declare are deleted (manifest exclusiveRoles, HCL exclusive_roles). */
  exclusiveRoles?: boolean;
  snapshots?: Record<string, StackSnapshot>;
  /** RemovalPolicy.RETAIN on the backend (retain_on_destroy): Terraform's alone, keyward's record has none. */
  retain?: boolean;
  /** The mount's `local` (a replace-forcing mount field). */
  local?: boolean;
}

export const SALT = 'one-decision-salt-0123456789';

export function manifestOf(s: Stack): unknown {
  const backend: Record<string, unknown> = { path: s.path, type: 'cloud', roles: Object.entries(s.roles ?? {}).map(([name, r]) => ({ name, ...r })) };
  if (s.movedFrom) backend.movedFrom = s.movedFrom;
  if (s.exclusiveRoles) backend.exclusiveRoles = true;
  if (s.local) backend.local = true;
  if (s.config) {
    backend.config = { ...(s.config.fields ?? {}), ...(s.config.credentialsEnv ? { credentials: { secretRef: { env: s.config.credentialsEnv } } } : {}) };
  }
  const snapshotConfigs = Object.entries(s.snapshots ?? {}).map(([name, c]) => ({
    name,
    ...c.fields,
    ...Object.fromEntries(Object.entries(c.secrets ?? {}).map(([f, env]) => [f, { secretRef: { env } }])),
  }));
  return { version: 1, fingerprintSalt: SALT, server: { dialect: 'vault' }, authBackends: [backend], snapshotConfigs };
}

const hcl = (v: Scalar) => JSON.stringify(v);
const attrs = (o: Record<string, Scalar>, indent: string) =>
  Object.entries(o)
    .map(([k, v]) => `${indent}${k} = ${hcl(v)}`)
    .join('\n');

/** HCL for the stack; `extra` adds attributes to the config block (credentials_wo_version …). */
export function hclOf(address: string, s: Stack, extra: { credentialsVersion?: number } = {}): string {
  const config = s.config
    ? `  config {\n${attrs({ ...(s.config.credentialsEnv ? { credentials_env: s.config.credentialsEnv } : {}), ...(extra.credentialsVersion ? { credentials_wo_version: extra.credentialsVersion } : {}), ...(s.config.fields ?? {}) }, '    ')}\n  }\n`
    : '';
  const roles = Object.entries(s.roles ?? {})
    .map(([name, r]) => `  roles ${JSON.stringify(name)} {\n${attrs(r, '    ')}\n  }\n`)
    .join('');
  const snaps = Object.entries(s.snapshots ?? {})
    .map(
      ([name, c]) =>
        `resource "keyward_snapshot_auto_config" ${JSON.stringify(name)} {\n  name = ${JSON.stringify(name)}\n${attrs(
          { ...c.fields, ...Object.fromEntries(Object.entries(c.secrets ?? {}).map(([f, env]) => [`${f}_env`, env])) },
          '  ',
        )}\n}\n`,
    )
    .join('');
  return `terraform {
  required_providers {
    keyward = { source = "keyward/keyward" }
  }
}
provider "keyward" {
  address          = "${address}"
  fingerprint_salt = "${SALT}"
  dialect          = "vault"
}
resource "keyward_cloud_auth_backend" "b" {
  path = ${JSON.stringify(s.path)}
${s.exclusiveRoles ? '  exclusive_roles = true\n' : ''}${s.local ? '  local = true\n' : ''}${s.retain ? '  retain_on_destroy = true\n' : ''}${config}${roles}}
${snaps}`;
}

/**
 * A synthesized cdktf stack of the HCL path's stack, as `keyward plan --dir` reads it for the
 * pull-request plan: its manifest, and a cdk.tf.json naming the backend's resource (`b`, as in the
 * HCL) and Terraform's local state file, so Terraform's state is the record.
 */
export function synthesizedOf(s: Stack, statePath: string): { manifest: unknown; cdkTf: unknown } {
  return {
    manifest: manifestOf(s),
    cdkTf: { terraform: { backend: { local: { path: statePath } } }, resource: { keyward_cloud_auth_backend: { b: { path: s.path } } } },
  };
}
