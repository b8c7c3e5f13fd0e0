// A refused token through the real terraform CLI: one error, from configure, naming where the token
// came from and the address, instead of one per resource during refresh (or plan).

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestEngine, ROOT_TOKEN } from '../support/engine';
import { terraformWorkdir, type TerraformWorkdir } from '../support/terraform-workdir';

const MAIN = (address: string, dir: string) => `terraform {
  required_providers {
    keyward = { source = "keyward/keyward" }
  }
}
provider "keyward" {
  address          = "${address}"
  fingerprint_salt = "wrong-token-e2e-salt-0123456789"
}
resource "keyward_cloud_auth_backend" "cloud" {
  path = "tokens"
  roles "a" {
    type                   = "iam"
    bound_service_accounts = ["a@p.iam.gserviceaccount.com"]
  }
}
resource "keyward_cloud_auth_backend" "other" {
  path = "tokens-other"
}
resource "keyward_snapshot_auto_config" "one" {
  name            = "one"
  storage_type    = "local"
  interval        = "1h"
  path_prefix     = "${dir}/one"
  local_max_space = 1000000
}
resource "keyward_snapshot_auto_config" "two" {
  name            = "two"
  storage_type    = "local"
  interval        = "1h"
  path_prefix     = "${dir}/two"
  local_max_space = 1000000
}
`;

describe('a refused token', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let w: TerraformWorkdir;
  beforeAll(async () => {
    engine = await startTestEngine({ edition: 'enterprise' });
    w = terraformWorkdir('kw-wrong-token-', () => ({ VAULT_TOKEN: ROOT_TOKEN, VAULT_ADDR: '' }));
    w.write('main.tf', MAIN(engine.url, w.dir));
    await w.ok(['init', '-input=false']);
  }, 120_000);
  afterAll(async () => {
    w?.close();
    await engine?.close();
  });

  const errors = (out: string) => out.split('\n').filter((l) => /^│ Error: /.test(l) || /^Error: /.test(l));

  it('fails plan once, at configure, naming VAULT_TOKEN and the address (no state, then with state)', async () => {
    const url = engine.url;
    const fresh = await w.tf(['plan', '-input=false'], { VAULT_TOKEN: 'hvs.not-a-token' });
    expect(fresh.code).toBe(1);
    expect(errors(fresh.out)).toHaveLength(1);
    expect(fresh.out.replace(/\s*│\s*/g, ' ')).toContain(`The token from VAULT_TOKEN is refused by ${url}`);
    await w.ok(['apply', '-input=false', '-auto-approve']);
    const refresh = await w.tf(['plan', '-input=false'], { VAULT_TOKEN: 'hvs.not-a-token' });
    expect(refresh.code).toBe(1);
    expect(errors(refresh.out)).toHaveLength(1);
    expect(refresh.out.replace(/\s*│\s*/g, ' ')).toContain(`The token from VAULT_TOKEN is refused by ${url}`);
    expect(refresh.out).not.toContain('hvs.not-a-token');
    // Without VAULT_TOKEN the token comes from ~/.vault-token, and the error names that file.
    mkdirSync(join(w.dir, 'home'));
    w.write('home/.vault-token', 'hvs.not-a-token-either\n');
    const fromFile = await w.tf(['plan', '-input=false'], { VAULT_TOKEN: '', HOME: `${w.dir}/home` });
    expect(fromFile.code).toBe(1);
    expect(errors(fromFile.out)).toHaveLength(1);
    expect(fromFile.out.replace(/\s*│\s*/g, ' ')).toContain(`The token from ${w.dir}/home/.vault-token is refused by ${url}`);
  }, 300_000);
});
