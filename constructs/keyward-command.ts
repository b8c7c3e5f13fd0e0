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
  throw new Error(`cannot find keyward/bin/keyward.js from ${appDir} or ${__dirname}: install keyward in the app (see Installation in keyward's README)`);
}

/** POSIX shell single-quoting. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The apply resource instance's id (self.id): names the record of what that instance applied. */
export const ENV_ID = 'KEYWARD_INSTANCE';

/** Files the provisioners keep in the stack's working directory (no secrets: references only). */
export const DESIRED_FILE = 'keyward.desired.json';
export const RECORD_FILE = 'keyward.last-applied.json';
export const MANAGED_FILE = 'keyward.managed.json';
/** Never set: `--last-applied-env` with an unset variable means "empty record, write none". */
export const ENV_NO_RECORD = 'KEYWARD_NO_RECORD';
const instanceRecord = `keyward.applied.$${ENV_ID}.json`;

export interface KeywardCommands {
  /** Create-time: apply ENV_DESIRED with the record, deleting what the record has and it lacks. */
  readonly apply: string;
  /** Destroy-time of the apply resource: make the record describe what this instance applied. */
  readonly record: string;
  /** Destroy-time of the teardown resource: delete everything ENV_MANAGED declares. */
  readonly teardown: string;
}

/**
 * The provisioner command lines (POSIX sh; they run in cdktf.out/stacks/<stack>). JSON travels in
 * environment variables and is written to files with printf, never placed on a command line.
 *
 * The record: keyward keeps it while applying (with the secret fingerprints it computed), and the
 * create-time step saves a copy named after the resource instance. When Terraform replaces that
 * instance, its destroy-time step restores the copy, or, when the working directory is fresh (a CI
 * checkout), rebuilds the record from self.input, which Terraform state always has. A failed apply
 * leaves a tainted instance whose destroy steps do not run: the record keyward kept up to the
 * failure is then used as it is, so the next deploy converges.
 */
export function keywardCommands(bin: string): KeywardCommands {
  const kw = `node ${shellQuote(bin)}`;
  return {
    apply:
      `printf '%s' "$${ENV_DESIRED}" > ${DESIRED_FILE}` +
      ` && ${kw} apply --manifest ${DESIRED_FILE} --last-applied ${RECORD_FILE} --auto-approve` +
      ` && cp ${RECORD_FILE} "${instanceRecord}"`,
    record:
      `if [ -f "${instanceRecord}" ]; then mv "${instanceRecord}" ${RECORD_FILE};` +
      ` else printf '%s' "$${ENV_PREVIOUS}" > ${RECORD_FILE}; fi`,
    teardown:
      `printf '%s' "$${ENV_MANAGED}" > ${MANAGED_FILE}` +
      ` && ${kw} destroy --manifest ${MANAGED_FILE} --last-applied-env ${ENV_NO_RECORD} --auto-approve` +
      ` && rm -f ${RECORD_FILE} ${DESIRED_FILE} ${MANAGED_FILE}`,
  };
}
