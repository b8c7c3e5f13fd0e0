// The two ways a user drives keyward, behind one interface for the scenario table: the CLI
// (`keyward plan/apply/destroy --manifest`, in-process) and the provider (real `terraform` on HCL).
// Both talk to the same kind of Vault stand-in (the contract server), started fresh per scenario.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKeyward } from '../../support/keyward-in-process';
import { terraformWorkdir, type TerraformWorkdir } from '../../support/terraform-workdir';
import { CONTRACT_TOKEN } from '../../support/vault-contract/server';
import { hclOf, manifestOf, type Stack } from './stack';

export interface Run {
  code: number | null;
  out: string;
}

/** `force`: the user's explicit word to send declared secrets (CLI --resend, Terraform credentials_wo_version bumped). */
export interface PathDriver {
  name: 'cli' | 'terraform';
  /** Points the path at a fresh server and forgets everything applied before. */
  reset(address: string): Promise<void>;
  plan(s: Stack, o?: { force?: boolean }): Promise<Run & { changes: boolean }>;
  apply(s: Stack, o?: { force?: boolean }): Promise<Run>;
  destroy(s: Stack): Promise<Run>;
  /** Takes over what the server holds with no record of a last apply (CLI: no record; Terraform: import). */
  adopt(s: Stack): Promise<Run>;
  close(): void;
}

export function cliPath(env: Record<string, string>): PathDriver {
  let dir = '';
  const manifest = () => join(dir, 'keyward.manifest.json');
  const write = (s: Stack) => writeFileSync(manifest(), JSON.stringify(manifestOf(s)));
  const resend = (s: Stack, force?: boolean) => (force ? ['--resend', `auth/${s.path}/config`] : []);
  return {
    name: 'cli',
    async reset(address) {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = mkdtempSync(join(tmpdir(), 'keyward-decision-cli-'));
      Object.assign(process.env, env, { VAULT_ADDR: address, VAULT_TOKEN: CONTRACT_TOKEN });
      delete process.env.KEYWARD_DIALECT;
    },
    async plan(s, o = {}) {
      write(s);
      const r = await runKeyward('plan', '--manifest', manifest(), '--detailed-exitcode', ...resend(s, o.force));
      return { code: r.code === 2 ? 0 : r.code, out: r.all, changes: r.code === 2 };
    },
    async apply(s, o = {}) {
      write(s);
      const r = await runKeyward('apply', '--auto-approve', '--manifest', manifest(), ...resend(s, o.force));
      return { code: r.code, out: r.all };
    },
    async destroy(s) {
      write(s);
      const r = await runKeyward('destroy', '--auto-approve', '--manifest', manifest());
      return { code: r.code, out: r.all };
    },
    async adopt(s) {
      write(s);
      const record = join(dir, 'keyward.manifest.last-applied.json');
      if (existsSync(record)) rmSync(record);
      return { code: 0, out: '' };
    },
    close: () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function terraformPath(env: Record<string, string>): PathDriver & { init(): Promise<void> } {
  let address = '';
  let version = 1;
  const w: TerraformWorkdir = terraformWorkdir('keyward-decision-tf-', () => ({ KEYWARD_DIALECT: '', VAULT_ADDR: '', VAULT_TOKEN: CONTRACT_TOKEN, ...env }));
  const write = (s: Stack, force?: boolean) => {
    if (force) version++;
    w.write('main.tf', hclOf(address, s, { credentialsVersion: version }));
  };
  const run = async (args: string[]) => {
    const r = await w.tf(args);
    return { code: r.code, out: r.out };
  };
  return {
    name: 'terraform',
    async init() {
      address = 'http://127.0.0.1:1';
      write({ path: 'init' });
      const r = await w.tf(['init', '-input=false']);
      if (r.code !== 0) throw new Error(r.out);
    },
    async reset(a) {
      address = a;
      version = 1;
      for (const f of ['terraform.tfstate', 'terraform.tfstate.backup']) rmSync(join(w.dir, f), { force: true });
    },
    async plan(s, o = {}) {
      write(s, o.force);
      const r = await w.tf(['plan', '-input=false', '-detailed-exitcode']);
      return { code: r.code === 2 ? 0 : r.code, out: r.out, changes: r.code === 2 };
    },
    async apply(s, o = {}) {
      write(s, o.force);
      return run(['apply', '-input=false', '-auto-approve']);
    },
    async destroy(s) {
      write(s);
      return run(['destroy', '-input=false', '-auto-approve']);
    },
    async adopt(s) {
      write(s);
      for (const f of ['terraform.tfstate', 'terraform.tfstate.backup']) rmSync(join(w.dir, f), { force: true });
      let out = '';
      const imports: Array<[string, string]> = [
        ['keyward_cloud_auth_backend.b', s.path],
        ...Object.keys(s.snapshots ?? {}).map((n): [string, string] => [`keyward_snapshot_auto_config.${n}`, n]),
      ];
      for (const [to, id] of imports) {
        const r = await w.tf(['import', '-input=false', to, id]);
        out += r.out;
        if (r.code !== 0) return { code: r.code, out };
      }
      return { code: 0, out };
    },
    close: () => w.close(),
  };
}
