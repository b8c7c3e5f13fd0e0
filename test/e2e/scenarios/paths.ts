// The two ways a user drives keyward, behind one interface for the scenario table: the CLI
// (`keyward plan/apply/destroy --manifest`, in-process) and the provider (real `terraform` on HCL).
// Both talk to the same kind of Vault stand-in (the contract server), started fresh per scenario.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKeyward } from '../../support/keyward-in-process';
import { terraformWorkdir, type TerraformWorkdir } from '../../support/terraform-workdir';
import { CONTRACT_TOKEN } from '../../support/vault-contract/server';
import { reviewedFrom } from '../../../src/reconcile/review-digest';
import { hclOf, manifestOf, synthesizedOf, type Stack } from './stack';

/** A JSON plan's action per object (the plan's text on failure, to show why). */
function actionsOf(out: string): Record<string, string> {
  const start = out.indexOf('{');
  try {
    const plan = JSON.parse(out.slice(start)) as { objects: { id: string; action: string }[] };
    return Object.fromEntries(plan.objects.map((o) => [o.id, o.action]));
  } catch {
    return { '(not a plan)': out.slice(-2000) };
  }
}

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
  /**
   * Every front end's action per object for the change to `s` (none applied): the CLI's plan
   * (keyward's record); on the Terraform path `keyward show` of Terraform's saved plan and the PR
   * plan (`keyward plan --dir`, Terraform's state as the record).
   */
  actions(s: Stack): Promise<Record<string, Record<string, string>>>;
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
    async actions(s) {
      write(s);
      const r = await runKeyward('plan', '--manifest', manifest(), '--format', 'json');
      return { 'keyward plan': actionsOf(r.out || r.all) };
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

/** `dir`: the Terraform working directory, where `actions` leaves `tfplan`, `tfplan.json` and the PR plan's `cdktf.out`. */
export function terraformPath(env: Record<string, string>): PathDriver & { init(): Promise<void>; readonly dir: string } {
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
    dir: w.dir,
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
    async actions(s) {
      write(s);
      const planned = await w.tf(['plan', '-input=false', '-out=tfplan']);
      if (planned.code !== 0) throw new Error(planned.out);
      const shown = await w.tf(['show', '-json', 'tfplan']);
      writeFileSync(join(w.dir, 'tfplan.json'), shown.stdout);
      const show = await runKeyward('show', join(w.dir, 'tfplan.json'), '--format', 'json');
      // The PR plan of the same change: a synthesized stack whose record is this directory's state.
      const stackDir = join(w.dir, 'cdktf.out', 'stacks', 'b');
      mkdirSync(stackDir, { recursive: true });
      const synth = synthesizedOf(s, join(w.dir, 'terraform.tfstate'));
      writeFileSync(join(stackDir, 'keyward.manifest.json'), JSON.stringify(synth.manifest));
      writeFileSync(join(stackDir, 'cdk.tf.json'), JSON.stringify(synth.cdkTf));
      const saved = process.env.VAULT_ADDR;
      process.env.VAULT_ADDR = address;
      process.env.VAULT_TOKEN = CONTRACT_TOKEN;
      Object.assign(process.env, env);
      try {
        const pr = await runKeyward('plan', '--dir', join(w.dir, 'cdktf.out'), '--format', 'json');
        // What is reviewed in the PR is what the merge-time Terraform plan decides: one digest for both.
        const digests = [show, pr].map((r) => reviewedFrom((r.out || r.all).slice((r.out || r.all).indexOf('{')))?.digest);
        if (digests[0] !== digests[1]) throw new Error(`reviewed-plan digests differ: keyward show ${digests[0]}, PR plan ${digests[1]}\n${show.out}\n${pr.out}`);
        return { 'keyward show': actionsOf(show.out || show.all), 'PR plan': actionsOf(pr.out || pr.all) };
      } finally {
        if (saved === undefined) delete process.env.VAULT_ADDR;
        else process.env.VAULT_ADDR = saved;
      }
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

/** The path `which` drives, ready for `reset`: the Terraform one after its `terraform init`. `env` is kept by reference, as both paths keep it. */
export async function openPath(which: PathDriver['name'], env: Record<string, string>): Promise<PathDriver> {
  if (which === 'cli') return cliPath(env);
  const t = terraformPath(env);
  await t.init();
  return t;
}
