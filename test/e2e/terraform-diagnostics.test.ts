// Diagnostics as terraform-plugin-framework gives them, through the real terraform CLI (1.11,
// offline): `terraform validate -json` on a configuration with one bad value per attribute kind
// returns exactly one error per bad value, each with a range on that value's line, and none for the
// valid ones; a value known only after apply (a variable) is skipped at validate and refused at
// plan, as is an unset `credentials_env` variable, each on its own line.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestEngine, ROOT_TOKEN } from '../support/engine';
import { terraformWorkdir, type TerraformWorkdir } from '../support/terraform-workdir';

/** The provider requirement and configuration, and string variables, that both documents start with. */
const HEAD = (address: string, variables: string[]) => `terraform {
  required_providers {
    keyward = { source = "keyward/keyward" }
  }
}
${variables.map((v) => `variable "${v}" {\n  type = string\n}\n`).join('')}provider "keyward" {
  address          = "${address}"
  fingerprint_salt = "diagnostics-e2e-salt-0123456789"
}
`;

/** Lines ending in `# bad` must each get exactly one error whose range starts on that line. */
const MAIN = (address: string) => `${HEAD(address, ['jwt'])}resource "keyward_cloud_auth_backend" "cloud" {
  path = "diag"
  config {
    iam_alias       = "bogus" # bad
    vm_alias        = "instance_id"
    credentials_env = "KW_DIAG_UNSET_CREDENTIALS"
  }
  roles "jwt" {
    type                   = "iam"
    bound_service_accounts = ["a@p.iam.gserviceaccount.com"]
    token_ttl              = "1h"
    max_jwt_exp            = "2h" # bad
    token_bound_cidrs      = ["10.0.0.0/8"]
    token_type             = "service"
  }
  roles "duration" {
    type                   = "iam"
    bound_service_accounts = ["a@p.iam.gserviceaccount.com"]
    token_max_ttl          = "forever" # bad
  }
  roles "cidr" {
    type                   = "iam"
    bound_service_accounts = ["a@p.iam.gserviceaccount.com"]
    token_bound_cidrs      = ["10.0.0.300/8"] # bad
    token_policies         = ["dev"]
  }
  roles "tokentype" {
    type        = "vm"
    bound_zones = ["europe-west1-b"]
    token_type  = "sometimes" # bad
  }
  roles "wildcard" {
    type                   = "iam"
    bound_service_accounts = ["*", "a@p.iam.gserviceaccount.com"] # bad
  }
  roles "cross" {
    type                   = "vm"
    bound_zones            = ["europe-west1-b"]
    token_ttl              = "2h" # bad
    token_max_ttl          = "1h"
  }
  roles "later" {
    type                   = "iam"
    bound_service_accounts = ["a@p.iam.gserviceaccount.com"]
    max_jwt_exp            = var.jwt
  }
  roles "fine" {
    type                   = "vm"
    bound_zones            = ["europe-west1-b", "europe-west1-c"]
    bound_labels           = { env = "prod" }
    token_ttl              = "30m"
    token_max_ttl          = 7200
    token_bound_cidrs      = ["192.0.2.7", "10.0.0.0/8"]
    token_type             = "batch"
  }
}
resource "keyward_snapshot_auto_config" "interval" {
  name            = "interval"
  storage_type    = "local"
  interval        = "0s" # bad
  path_prefix     = "/srv/snaps"
  local_max_space = 1000000
}
resource "keyward_snapshot_auto_config" "retain" {
  name            = "retain"
  storage_type    = "local"
  interval        = "1h"
  retain          = 0 # bad
  path_prefix     = "/srv/snaps"
  local_max_space = 1000000
}
resource "keyward_snapshot_auto_config" "prefix" {
  name             = "prefix"
  storage_type     = "local"
  interval         = "24h"
  path_prefix      = "/srv/snaps"
  local_max_space  = 1000000
  autoload_enabled = true # bad
}
resource "keyward_snapshot_auto_config" "vaultish" {
  name            = "vaultish"
  storage_type    = "cloudtwo-store"
  interval        = "24h"
  path_prefix     = "raft"
  cloudtwo_bucket = "snaps"
}
resource "keyward_snapshot_auto_config" "kms" {
  name                            = "kms"
  storage_type                    = "cloudone-store"
  interval                        = "24h"
  path_prefix                     = "raft/"
  cloudone_bucket                 = "snaps"
  cloudone_region                 = "eu-west-1"
  cloudone_enable_kms             = true # bad
  cloudone_server_side_encryption = true
}
resource "keyward_snapshot_auto_config" "fine" {
  name            = "fine"
  storage_type    = "local"
  interval        = "24h"
  retain          = 3
  path_prefix     = "/srv/snaps"
  local_max_space = 1000000
}
`;

/** Valid but for values only known at plan: a variable's, and an unset credentials_env variable. */
const PLAN = (address: string) => `${HEAD(address, ['jwt', 'interval'])}resource "keyward_cloud_auth_backend" "cloud" {
  path = "diag"
  config {
    iam_alias       = "unique_id"
    credentials_env = "KW_DIAG_UNSET_CREDENTIALS" # env
  }
  roles "later" {
    type                   = "iam"
    bound_service_accounts = ["a@p.iam.gserviceaccount.com"]
    max_jwt_exp            = var.jwt # plan
    token_ttl              = "1h"
  }
}
resource "keyward_snapshot_auto_config" "later" {
  name            = "later"
  storage_type    = "local"
  interval        = var.interval # plan
  path_prefix     = "/srv/snaps"
  local_max_space = 1000000
}
`;

interface JsonDiagnostic {
  severity: string;
  summary: string;
  detail?: string;
  range?: { filename: string; start: { line: number } };
}

const linesMarked = (text: string, mark: string) =>
  text
    .split('\n')
    .map((l, i) => ({ l, line: i + 1 }))
    .filter(({ l }) => l.trimEnd().endsWith(`# ${mark}`))
    .map(({ line }) => line);

describe('diagnostics through terraform validate and plan', () => {
  let wd: TerraformWorkdir;
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  const tf = async (args: string[], env: Record<string, string> = {}) => {
    const r = await wd.tf(args, env);
    return { code: r.code, out: r.stdout, err: r.stderr };
  };
  const diagnosticsOf = (out: string): JsonDiagnostic[] => {
    // validate -json prints one document; plan -json prints one JSON message per line.
    const trimmed = out.trim();
    if (trimmed.startsWith('{') && !trimmed.includes('\n{')) return (JSON.parse(trimmed) as { diagnostics: JsonDiagnostic[] }).diagnostics;
    return trimmed
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; diagnostic?: JsonDiagnostic })
      .filter((m) => m.type === 'diagnostic')
      .map((m) => m.diagnostic!);
  };
  const at = (ds: JsonDiagnostic[]) => ds.map((d) => `${d.severity}@${d.range?.start.line ?? '-'}`).sort();

  beforeAll(async () => {
    engine = await startTestEngine();
    wd = terraformWorkdir('keyward-tf-diag-', () => ({ VAULT_ADDR: '', VAULT_TOKEN: ROOT_TOKEN }));
    wd.write('main.tf', MAIN(engine.url));
    const init = await tf(['init', '-input=false']);
    expect({ code: init.code, err: init.err }).toEqual({ code: 0, err: '' });
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
    wd?.close();
  });

  it('validate: one error per bad value, on its line, naming the rule and the value; nothing for valid values or values not known yet', async () => {
    const r = await tf(['validate', '-json']);
    const ds = diagnosticsOf(r.out);
    const text = readFileSync(join(wd.dir, 'main.tf'), 'utf8');
    expect(at(ds)).toEqual(
      linesMarked(text, 'bad')
        .map((l) => `error@${l}`)
        .sort(),
    );
    const on = (line: number) => ds.find((d) => d.range?.start.line === line)!;
    const line = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(on(line('max_jwt_exp            = "2h"'))).toMatchObject({
      summary: expect.stringContaining('max_jwt_exp cannot be more than 60 minutes'),
      detail: expect.stringContaining('"2h"'),
    });
    expect(on(line('"forever"')).summary).toContain('roles["duration"].token_max_ttl');
    expect(on(line('"10.0.0.300/8"')).summary).toContain('10.0.0.300/8');
    expect(on(line('"sometimes"')).detail).toContain('"sometimes"');
    expect(on(line('"bogus"')).summary).toContain('config.iam_alias');
    // The cross-field rule sits on one field and names the other, with both values.
    expect(on(line('token_ttl              = "2h"'))).toMatchObject({ summary: expect.stringContaining("'token_max_ttl'"), detail: expect.stringMatching(/token_max_ttl = "1h"/) });
    expect(on(line('cloudone_enable_kms             = true')).detail).toContain('cloudone_server_side_encryption');
    expect(on(line('interval        = "0s"')).summary).toContain('interval');
    expect(on(line('retain          = 0')).summary).toContain('retain');
    expect(on(line('autoload_enabled = true')).summary).toContain('autoload_enabled is not supported for storage_type=local');
    // Vault accepts a GCS path_prefix without the trailing "/" (the engine alone refuses it, at apply).
    expect(on(line('path_prefix     = "raft"'))).toBeUndefined();
  }, 120_000);

  it('plan: values known only at plan (variables) are refused there, each on its line; then an unset credentials_env on its own line', async () => {
    wd.write('main.tf', PLAN(engine.url));
    const valid = await tf(['validate', '-json']);
    expect(diagnosticsOf(valid.out)).toEqual([]);
    const text = readFileSync(join(wd.dir, 'main.tf'), 'utf8');
    const line = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    // terraform plan validates again with the variables' values before it asks for a plan.
    const bad = await tf(['plan', '-input=false', '-json', '-var', 'jwt=3h', '-var', 'interval=0s']);
    const ds = diagnosticsOf(bad.out);
    expect(at(ds)).toEqual(
      linesMarked(text, 'plan')
        .map((l) => `error@${l}`)
        .sort(),
    );
    const on = (needle: string) => ds.find((d) => d.range?.start.line === line(needle))!;
    expect(on('var.jwt').summary).toContain('max_jwt_exp cannot be more than 60 minutes (got 10800 seconds)');
    expect(on('var.interval').summary).toContain('interval must be a positive number');
    expect(bad.code).toBe(1);
    // Valid values: the environment is read at plan (never at validate), and its problem is on its line.
    const env = await tf(['plan', '-input=false', '-json', '-var', 'jwt=30m', '-var', 'interval=1h']);
    const envDs = diagnosticsOf(env.out);
    expect(at(envDs)).toEqual(linesMarked(text, 'env').map((l) => `error@${l}`));
    expect(envDs[0]!.summary).toBe('KW_DIAG_UNSET_CREDENTIALS is not set');
    expect(env.code).toBe(1);
  }, 180_000);
});
