// The `keyward` command lines the Terraform provisioners run. The binary is resolved at synth time:
// the app's own node_modules first, else the package that contains this construct code.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Environment variable names the provisioners use to hand JSON to keyward. */
export const ENV_DESIRED = 'KEYWARD_DESIRED';
export const ENV_PREVIOUS = 'KEYWARD_PREVIOUS';
export const ENV_MANAGED = 'KEYWARD_MANAGED';

/** Absolute path of keyward's bin/keyward.js as seen from the app directory. */
export function resolveKeywardBin(appDir: string = process.cwd()): string {
  try {
    return require.resolve('keyward/bin/keyward.js', { paths: [appDir] });
  } catch {
    // Not installed in the app (this repository's own examples): use the package we are part of.
  }
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && existsSync(join(dir, 'bin', 'keyward.js'))) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'keyward') return join(dir, 'bin', 'keyward.js');
      } catch {
        // unreadable package.json: keep walking up
      }
    }
  }
  throw new Error(`cannot find keyward/bin/keyward.js from ${appDir} or ${__dirname}: install keyward in the app (npm install keyward)`);
}

/** POSIX shell single-quoting. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface KeywardCommands {
  /** Create-time: apply the desired state handed over in ENV_DESIRED. */
  readonly apply: string;
  /** Destroy-time of the apply resource: delete what ENV_PREVIOUS declared and the new manifest does not. */
  readonly prune: string;
  /** Destroy-time of the teardown resource: delete everything ENV_MANAGED declares. */
  readonly teardown: string;
}

/**
 * The provisioner command lines. They run in the stack's working directory (cdktf.out/stacks/<s>),
 * where the manifest file lies; JSON travels in environment variables, never on the command line.
 */
export function keywardCommands(bin: string, manifestFile: string): KeywardCommands {
  const kw = `node ${shellQuote(bin)}`;
  return {
    apply: `${kw} apply --manifest-env ${ENV_DESIRED}`,
    prune: `${kw} apply --prune-only --manifest ${shellQuote(manifestFile)} --last-applied-env ${ENV_PREVIOUS}`,
    teardown: `${kw} destroy --manifest-env ${ENV_MANAGED} --auto-approve`,
  };
}
