// What serving keyward_cloud_auth_backend's `roles` as a map-nested BLOCK (the schema) saves
// Terraform over the same roles as a map-nested ATTRIBUTE (the baseline: the same provider with
// only that schema entry moved back), through real `terraform validate` and
// `terraform plan -refresh=false` on one synthesized stack of N roles (JSON, identical for both).
// The two run interleaved, alternating which goes first; figures are medians. Offline: the
// provider is found through dev_overrides, so no init and no server (plan needs none).
//
//   npx tsx bench/terraform-blocks.ts [--roles 3000] [--rounds 3] [--dist]
//
// --dist: the provider runs from the compiled dist/ (`npm run build` first) rather than from the
// sources through tsx, which costs seconds per provider start.

import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ProviderDefinition } from '../src/terraform/plugin/contract';

type Shape = 'block' | 'attribute';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : process.argv[i + 1]!;
};

/** The provider as served, with `roles` moved back to a map-nested attribute for the baseline. */
function asAttribute(def: ProviderDefinition): ProviderDefinition {
  const resources = def.resources.map((r) => {
    if (!r.schema.blocks?.roles) return r;
    const { roles, ...blocks } = r.schema.blocks;
    const schema = { ...r.schema, blocks, attributes: { ...r.schema.attributes, roles: { nested: { nesting: roles.nesting, attributes: roles.attributes }, optional: true } } };
    return { ...r, schema };
  });
  return { ...def, resources, configure: (c) => def.configure(c), stop: def.stop && (() => def.stop!()) };
}

async function serveShape(shape: Shape, dist: boolean): Promise<void> {
  const root = dist ? '../dist/src' : '../src';
  const { keywardProvider } = (await import(`${root}/terraform/keyward-provider`)) as typeof import('../src/terraform/keyward-provider');
  const { serve } = (await import(`${root}/terraform/plugin/serve`)) as typeof import('../src/terraform/plugin/serve');
  const def = keywardProvider() as ProviderDefinition;
  await serve(shape === 'block' ? def : asAttribute(def));
}

function run(args: string[], cwd: string, tfrc: string): Promise<number> {
  return new Promise((ok, fail) => {
    const t0 = process.hrtime.bigint();
    const env = { ...process.env, TF_CLI_CONFIG_FILE: tfrc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
    const child = spawn('terraform', [...args, '-no-color'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? ok(Number(process.hrtime.bigint() - t0) / 1e9) : fail(new Error(`terraform ${args.join(' ')} exited ${code}:\n${out.slice(-3000)}`)),
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const n = Number(arg('roles', '3000'));
  const rounds = Number(arg('rounds', '3'));
  const dist = process.argv.includes('--dist');
  if (dist && !existsSync(resolve(__dirname, '..', 'dist', 'src', 'terraform', 'keyward-provider.js'))) throw new Error('--dist: run npm run build first');
  const work = mkdtempSync(join(tmpdir(), 'kw-blocks-'));
  try {
    const tfrc: Record<Shape, string> = { block: '', attribute: '' };
    for (const shape of ['block', 'attribute'] as Shape[]) {
      const dir = join(work, shape);
      mkdirSync(dir);
      const launcher = join(dir, 'terraform-provider-keyward');
      writeFileSync(launcher, `#!/bin/sh\nexec "${resolve(__dirname, '..', 'node_modules', '.bin', 'tsx')}" "${__filename}" --serve ${shape}${dist ? ' --dist' : ''}\n`);
      chmodSync(launcher, 0o755);
      tfrc[shape] = join(work, `${shape}.tfrc`);
      writeFileSync(tfrc[shape], `provider_installation {\n  dev_overrides {\n    "keyward/keyward" = "${dir}"\n  }\n  direct {}\n}\n`);
    }
    const stack = join(work, 'stack');
    mkdirSync(stack);
    const roles: Record<string, unknown> = {};
    for (let i = 0; i < n; i++)
      roles[`role-${i}`] = { type: 'iam', bound_service_accounts: [`sa-${i}@bench.iam.gserviceaccount.com`], token_policies: ['default', `p${i % 7}`], token_ttl: '1h' };
    const tf = {
      terraform: { required_providers: { keyward: { source: 'keyward/keyward' } } },
      provider: { keyward: { address: 'http://127.0.0.1:9' } },
      resource: { keyward_cloud_auth_backend: { cloud: { path: 'cloud', description: 'bench', roles } } },
    };
    writeFileSync(join(stack, 'main.tf.json'), JSON.stringify(tf));

    const commands: Record<string, string[]> = { validate: ['validate'], 'plan -refresh=false': ['plan', '-refresh=false', '-input=false', '-lock=false'] };
    const times: Record<string, Record<Shape, number[]>> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [label, args] of Object.entries(commands)) {
        times[label] ??= { block: [], attribute: [] };
        const order: Shape[] = round % 2 === 0 ? ['attribute', 'block'] : ['block', 'attribute'];
        for (const shape of order) times[label]![shape].push(await run(args, stack, tfrc[shape]));
      }
      process.stdout.write(`round ${round + 1}/${rounds} done\n`);
    }
    process.stdout.write(`\n${n} roles, ${rounds} round(s), provider from ${dist ? 'dist/' : 'the sources (tsx)'}, medians:\n`);
    for (const [label, t] of Object.entries(times)) {
      const a = median(t.attribute);
      const b = median(t.block);
      process.stdout.write(`  ${label.padEnd(22)} attribute ${a.toFixed(1)} s   block ${b.toFixed(1)} s   ${(a / b).toFixed(1)}x faster\n`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const serveArg = process.argv.indexOf('--serve');
if (serveArg !== -1) {
  serveShape(process.argv[serveArg + 1] as Shape, process.argv.includes('--dist')).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
