// `keyward show` of a plan whose provider block declares no address (the provider then takes VAULT_ADDR, as
// examples/basic and the CI recipes' app do): the plan names the server VAULT_ADDR gives, as `keyward plan` does,
// so the reviewed-plan digest of the PR plan and of the merge-time Terraform plan agree (examples/ci).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runShow } from '../../../src/cli/commands/show-run';
import type { Plan } from '../../../src/reconcile/model';
import { reviewDigest } from '../../../src/reconcile/review-digest';

const tfPlan = (expressions: Record<string, unknown>) =>
  JSON.stringify({ format_version: '1.2', terraform_version: '1.11.4', configuration: { provider_config: { keyward: { name: 'keyward', expressions } } }, resource_changes: [] });

describe('keyward show: the server of a provider block without an address', () => {
  let dir: string;
  const saved = process.env.VAULT_ADDR;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kw-show-addr-'))));
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    if (saved === undefined) delete process.env.VAULT_ADDR;
    else process.env.VAULT_ADDR = saved;
  });

  const show = (expressions: Record<string, unknown>, expectDigest?: string) => {
    const file = join(dir, 'tfplan.json');
    writeFileSync(file, tfPlan(expressions));
    let out = '';
    runShow(file, { format: 'json', applyCommand: 'terraform apply tfplan', expectDigest }, (s) => (out += s));
    return JSON.parse(out) as Plan;
  };

  it('is the server VAULT_ADDR names, and the digest is the one keyward plan gives for that server', () => {
    process.env.VAULT_ADDR = 'http://127.0.0.1:18200';
    const digest = reviewDigest({ server: { address: 'http://127.0.0.1:18200' }, objects: [] } as unknown as Plan);
    expect(show({}, digest).server.address).toBe('http://127.0.0.1:18200');
  });

  it("is Vault's default without VAULT_ADDR, and a declared address stays the declared one", () => {
    delete process.env.VAULT_ADDR;
    expect(show({}).server.address).toBe('http://127.0.0.1:8200');
    process.env.VAULT_ADDR = 'http://127.0.0.1:18200';
    expect(show({ address: { constant_value: 'https://vault.example:8200' } }).server.address).toBe('https://vault.example:8200');
  });
});
