// A Terraform working directory as a project with keyward installed has it: the provider launcher
// in terraform.d/plugins (offline install), node_modules/keyward pointing at this checkout, an
// empty CLI config; and the real terraform CLI run in it, its outputs kept for secret scans.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeLauncher } from '../../constructs/launcher';
import { runAsync } from './run-async';

export const REPO = resolve(__dirname, '../..');

export interface TerraformWorkdir {
  dir: string;
  /** Everything terraform printed, per run. */
  outputs: string[];
  write(file: string, text: string): void;
  /** Runs terraform (with -no-color); `out` is stdout and stderr together. */
  tf(args: string[], env?: NodeJS.ProcessEnv, cwd?: string): Promise<{ code: number | null; out: string; stdout: string; stderr: string }>;
  /** Runs terraform and expects exit 0 (the output's tail is shown otherwise). */
  ok(args: string[], env?: NodeJS.ProcessEnv, cwd?: string): Promise<string>;
  close(): void;
}

export function terraformWorkdir(prefix: string, baseEnv: () => NodeJS.ProcessEnv, moreModules: string[] = []): TerraformWorkdir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeLauncher(join(dir, 'terraform.d', 'plugins'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO, join(dir, 'node_modules', 'keyward'), 'dir');
  for (const m of moreModules) symlinkSync(join(REPO, 'node_modules', m), join(dir, 'node_modules', m), 'dir');
  writeFileSync(join(dir, 'empty.tfrc'), '');
  const outputs: string[] = [];
  const tf = async (args: string[], env: NodeJS.ProcessEnv = {}, cwd = dir) => {
    const r = await runAsync('terraform', [...args, '-no-color'], {
      cwd,
      env: { ...process.env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_CLI_CONFIG_FILE: join(dir, 'empty.tfrc'), ...baseEnv(), ...env },
    });
    const out = r.stdout + r.stderr;
    outputs.push(out);
    return { code: r.status, out, stdout: r.stdout, stderr: r.stderr };
  };
  return {
    dir,
    outputs,
    write: (file, text) => writeFileSync(join(dir, file), text),
    tf,
    async ok(args, env, cwd) {
      const r = await tf(args, env, cwd);
      expect({ args, code: r.code, out: r.code === 0 ? '' : r.out.slice(-3000) }).toEqual({ args, code: 0, out: '' });
      return r.out;
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
