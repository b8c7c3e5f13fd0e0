// The provider protocol through the real `terraform` CLI (1.11, offline): the toy provider is
// installed from the implied local mirror (terraform.d/plugins) by a launcher whose bytes hold no
// path, then init, create, no-op plan, drift, in-place update, import, a write-only secret fed by an
// ephemeral variable (never in state or plan file), and destroy.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ENTRY = resolve(__dirname, '..', 'support', 'toy-provider', 'main.js');
const VERSION = '0.1.0';
const MIRROR = `terraform.d/plugins/registry.terraform.io/keyward/keyward/${VERSION}/linux_amd64`;
/** Byte-stable: the entry comes from the environment Terraform passes on to its plugins. */
const LAUNCHER = '#!/bin/sh\nexec node "$KEYWARD_TOY_PROVIDER_ENTRY" "$@"\n';
const SECRET = `wo-${randomBytes(12).toString('hex')}`;
const SECRET2 = `wo2-${randomBytes(12).toString('hex')}`;

const BETA = 'resource "keyward_toy" "b" {\n  name  = "beta"\n  items = { x = { value = "x" } }\n}\n';

interface Run {
  code: number;
  out: string;
}

function config(items: string, version: number, extra = ''): string {
  return `
terraform {
  required_providers {
    keyward = { source = "keyward/keyward", version = "${VERSION}" }
  }
}
variable "secret" {
  type      = string
  sensitive = true
  ephemeral = true
}
provider "keyward" {
  prefix = "p"
}
resource "keyward_toy" "a" {
  name              = "alpha"
  items             = ${items}
  secret_wo         = var.secret
  secret_wo_version = ${version}
}
${extra}`;
}

describe('the provider protocol through terraform 1.11', () => {
  let dir: string;
  const outputs: string[] = [];
  const store = () =>
    JSON.parse(readFileSync(join(dir, 'store.json'), 'utf8')) as {
      toys: Record<string, { items: Record<string, { value: string; serial: number }>; generation: number; secret_length: number | null }>;
      secrets: Record<string, string>;
    };
  const run = (args: string[], secret: string): Run => {
    try {
      const out = execFileSync('terraform', [...args, '-no-color'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          KEYWARD_TOY_PROVIDER_ENTRY: ENTRY,
          KEYWARD_TOY_STORE: join(dir, 'store.json'),
          CHECKPOINT_DISABLE: '1',
          TF_IN_AUTOMATION: '1',
          TF_CLI_CONFIG_FILE: join(dir, 'empty.tfrc'),
          TF_VAR_secret: secret,
        },
      });
      outputs.push(out);
      return { code: 0, out };
    } catch (err) {
      const e = err as { status: number; stdout: string; stderr: string };
      outputs.push(e.stdout + e.stderr);
      return { code: e.status, out: e.stdout + e.stderr };
    }
  };
  const tf = (...args: string[]): Run => run(args, SECRET);
  const write = (text: string) => writeFileSync(join(dir, 'main.tf'), text);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'keyward-tf-protocol-'));
    mkdirSync(join(dir, MIRROR), { recursive: true });
    const launcher = join(dir, MIRROR, `terraform-provider-keyward_v${VERSION}`);
    writeFileSync(launcher, LAUNCHER);
    chmodSync(launcher, 0o755);
    writeFileSync(join(dir, 'empty.tfrc'), '');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs from the implied local mirror offline', () => {
    write(config('{ one = { value = "1" }, two = { value = "2", note = "n" } }', 1));
    const init = tf('init', '-input=false');
    expect(init.out).toContain('Terraform has been successfully initialized');
    expect(init.code).toBe(0);
    expect(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).toContain('registry.terraform.io/keyward/keyward');
  });

  it('creates the resource with a write-only secret from an ephemeral variable', () => {
    const plan = tf('plan', '-input=false', '-out=tfplan');
    expect(plan.code).toBe(0);
    expect(plan.out).toContain('1 to add, 0 to change, 0 to destroy');
    expect(plan.out).toContain('secret_wo         = (write-only attribute)');
    const apply = tf('apply', '-input=false', 'tfplan');
    expect(apply.out).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    const toy = store().toys.alpha!;
    expect(toy.generation).toBe(1);
    expect(Object.keys(toy.items).sort()).toEqual(['one', 'two']);
    expect(store().secrets.alpha).toBe(SECRET); // the provider received the value at apply …
    expect(toy.secret_length).toBe(SECRET.length);
    const state = JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8'));
    const attrs = state.resources[0].instances[0].attributes;
    expect(attrs.secret_wo).toBeNull(); // … and it is in state as null only
    expect(attrs.items.one.serial).toBe(toy.items.one!.serial);
  });

  it('plans no changes right after apply', () => {
    const plan = tf('plan', '-input=false', '-detailed-exitcode');
    expect(plan.out).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('sees an out-of-band change on refresh and corrects it in place', () => {
    const s = JSON.parse(readFileSync(join(dir, 'store.json'), 'utf8'));
    s.toys.alpha.items.one.value = 'changed by hand';
    writeFileSync(join(dir, 'store.json'), JSON.stringify(s));
    const plan = tf('plan', '-input=false', '-detailed-exitcode');
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('0 to add, 1 to change, 0 to destroy');
    expect(plan.out).toMatch(/~ value\s+= "changed by hand" -> "1"/);
    expect(tf('apply', '-input=false', '-auto-approve').code).toBe(0);
    expect(store().toys.alpha!.items.one!.value).toBe('1');
  });

  it('updates one nested field in place and keeps the others', () => {
    const before = store().toys.alpha!;
    write(config('{ one = { value = "1" }, two = { value = "22", note = "n" } }', 1));
    const plan = tf('plan', '-input=false');
    expect(plan.out).toContain('0 to add, 1 to change, 0 to destroy');
    expect(plan.out).toMatch(/~ value\s+= "2" -> "22"/);
    expect(tf('apply', '-input=false', '-auto-approve').out).toContain('0 added, 1 changed, 0 destroyed');
    const after = store().toys.alpha!;
    expect(after.items.two!.value).toBe('22');
    expect(after.items.one!.serial).toBe(before.items.one!.serial);
    expect(after.items.two!.serial).not.toBe(before.items.two!.serial);
  });

  it('sends a new write-only value when its version changes', () => {
    write(config('{ one = { value = "1" }, two = { value = "22", note = "n" } }', 2));
    const apply = run(['apply', '-input=false', '-auto-approve'], SECRET2);
    expect(apply.out).toContain('0 added, 1 changed, 0 destroyed');
    expect(store().secrets.alpha).toBe(SECRET2);
    expect(store().toys.alpha!.secret_length).toBe(SECRET2.length);
  });

  it('imports an existing object, then plans no changes for it', () => {
    const s = JSON.parse(readFileSync(join(dir, 'store.json'), 'utf8'));
    s.toys.beta = { name: 'beta', items: { x: { value: 'x', note: null, serial: 99 } }, generation: 5, secret_length: null, secret_wo_version: null };
    writeFileSync(join(dir, 'store.json'), JSON.stringify(s));
    write(config('{ one = { value = "1" }, two = { value = "22", note = "n" } }', 2, BETA));
    const imported = tf('import', '-input=false', 'keyward_toy.b', 'beta');
    expect(imported.out).toContain('Import successful!');
    expect(tf('state', 'show', 'keyward_toy.b').out).toMatch(/generation\s+= 5/);
    const plan = tf('plan', '-input=false', '-detailed-exitcode');
    expect(plan.out).toContain('No changes.');
    expect(tf('import', '-input=false', 'keyward_toy.b', 'nobody').out).toMatch(/Resource already managed|No toy named "nobody"/);
  });

  it('reports a handler failure as a diagnostic with its attribute, not a crash', () => {
    write(config('{ one = { value = "1" }, two = { value = "22", note = "n" } }', 2, `${BETA}resource "keyward_toy" "c" {\n  name = "fail-me"\n}\n`));
    const apply = tf('apply', '-input=false', '-auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.out).toContain('The toy server refused the name');
    expect(apply.out).toContain('with keyward_toy.c');
    expect(apply.out).not.toMatch(/plugin exited|crash/i);
    expect(Object.keys(store().toys).sort()).toEqual(['alpha', 'beta']);
  });

  it('destroys everything it manages', () => {
    write(config('{ one = { value = "1" }, two = { value = "22", note = "n" } }', 2, BETA));
    const destroy = tf('destroy', '-input=false', '-auto-approve');
    expect(destroy.out).toContain('Destroy complete! Resources: 2 destroyed.');
    expect(store().toys).toEqual({});
  });

  it('never writes the write-only secret to a file Terraform keeps or prints it', () => {
    for (const file of walk(dir)) {
      if (file.endsWith('store.json')) continue; // the toy "server"
      const bytes = readFileSync(file);
      expect({ file, leaked: bytes.includes(SECRET) || bytes.includes(SECRET2) }).toEqual({ file, leaked: false });
    }
    expect(existsSync(join(dir, 'tfplan'))).toBe(true);
    for (const out of outputs) expect(out.includes(SECRET) || out.includes(SECRET2)).toBe(false);
  });
});

function walk(root: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    if (statSync(p).isDirectory()) files.push(...walk(p));
    else files.push(p);
  }
  return files;
}
