// The desired state of a run: the source flags, or, with none of them inside a cdktf project (a
// cdktf.json in the working directory), the project's own `app` command, as `cdktf synth` runs it.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSource, type LoadedSource, type SourceOptions } from '../reconcile/source';
import { readStackState } from '../terraform-state/stack-state';

export const CDKTF_CONFIG = 'cdktf.json';

/** The `app` command of the cdktf project in `dir`, or undefined when `dir` is not one. */
export function projectApp(dir: string): string | undefined {
  const file = join(dir, CDKTF_CONFIG);
  if (!existsSync(file)) return undefined;
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as Error).message}`);
  }
  const app = (config as { app?: unknown } | null)?.app;
  if (typeof app !== 'string' || app.trim() === '') throw new Error(`${file} has no "app" command: give --manifest FILE, --dir CDKTF_OUT or --app "<command>"`);
  return app;
}

export function resolveSource(flags: SourceOptions, cwd = process.cwd()): LoadedSource {
  if (flags.manifest !== undefined || flags.dir !== undefined || flags.app !== undefined) return loadSource(flags, readStackState);
  const app = projectApp(cwd);
  if (app === undefined) {
    throw new Error(`no desired state: give --manifest FILE, --dir CDKTF_OUT or --app "<command>", or run keyward in a cdktf project (a directory with ${CDKTF_CONFIG})`);
  }
  return loadSource({ ...flags, app }, readStackState);
}

/** Why keyward will not write a stack Terraform deploys (its state would no longer say what was applied). */
export function terraformManaged(src: Pick<LoadedSource, 'origin' | 'stack'>, what: string): string {
  const stack = src.stack ? ` ${src.stack}` : '';
  return (
    `stack${stack} is deployed by Terraform (its state: ${src.origin.location}), and ${what}: apply it with \`cdktf deploy${stack}\` (or \`cdktf destroy${stack}\`), ` +
    `which keeps Terraform's state true. To hand the stack to keyward instead, pass --record keyward.`
  );
}
