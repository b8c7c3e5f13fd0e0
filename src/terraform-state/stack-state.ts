// Finds and reads the Terraform state of a synthesized cdktf stack (cdktf.out/stacks/<stack>): the
// file a local backend names (cdktf's default, terraform.<stack>.tfstate beside cdktf.json), or,
// for any other backend, what `terraform state pull` prints in the stack's directory (which must
// have been initialized, as `cdktf diff` and `cdktf deploy` do).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { TerraformStateRecord } from '../reconcile/source';
import { recordFromState } from './state-record';
import { mountMove } from '../reconcile/objects/mount-move';

interface Backend {
  type: string;
  config: Record<string, unknown>;
}

/** What the stack's synthesized cdk.tf.json says that the state reading needs (none: no file). */
interface CdkTf {
  terraform?: { backend?: Record<string, unknown> };
  resource?: { keyward_cloud_auth_backend?: Record<string, { path?: unknown }> };
}

function readCdkTf(stackDir: string): CdkTf | undefined {
  const file = join(stackDir, 'cdk.tf.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as CdkTf) : undefined;
}

/** The backend cdk.tf.json declares (none: Terraform's default, a local terraform.tfstate). */
function backendOf(tf: CdkTf | undefined): Backend {
  const entries = Object.entries(tf?.terraform?.backend ?? {});
  if (entries.length === 0) return { type: 'local', config: {} };
  const [type, config] = entries[0];
  return { type, config: (config ?? {}) as Record<string, unknown> };
}

/**
 * Backends Terraform moves: a keyward_cloud_auth_backend resource of the state whose synthesized
 * path differs (Terraform updates it in place, a sys/remount). Terraform identifies a backend by
 * its resource, so the plan does too: declared path -> earlier path.
 */
export function movesFromState(stackDir: string, backendPaths: Record<string, string> | undefined, tf: CdkTf | undefined = readCdkTf(stackDir)): [string, string][] {
  if (!backendPaths || !tf) return [];
  const declared = tf.resource?.keyward_cloud_auth_backend ?? {};
  const out: [string, string][] = [];
  for (const [name, path] of Object.entries(backendPaths)) {
    const to = declared[name]?.path;
    const move = typeof to === 'string' ? mountMove({ to, recorded: path }) : undefined;
    if (move) out.push([move.to, move.from]);
  }
  return out;
}

/** Terraform's command: cdktf's TERRAFORM_BINARY_NAME, else `terraform` on PATH. */
const terraformBinary = (env: NodeJS.ProcessEnv) => env.TERRAFORM_BINARY_NAME || 'terraform';

function pullState(stackDir: string, env: NodeJS.ProcessEnv): string {
  const bin = terraformBinary(env);
  const r = spawnSync(bin, ['state', 'pull'], { cwd: stackDir, env: { ...env, TF_IN_AUTOMATION: '1' }, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw new Error(`cannot read the stack's Terraform state: ${bin} state pull could not run (${r.error.message})`);
  if (r.status !== 0) {
    const why = (r.stderr || r.stdout)
      // eslint-disable-next-line no-control-regex
      .replace(/\x1b\[[0-9;]*m/g, '')
      .trim()
      .split('\n')
      .slice(0, 6)
      .join(' ');
    throw new Error(
      `cannot read the stack's Terraform state: \`${bin} state pull\` in ${stackDir} failed: ${why}. Initialize the directory first (\`terraform init\` there, or run \`cdktf diff\` once), or pass --record keyward for a stack keyward apply manages`,
    );
  }
  return r.stdout;
}

/** The stack's state as a record; a state that does not exist yet is an empty one (never deployed). */
export function readStackState(stackDir: string, alias?: string, env: NodeJS.ProcessEnv = process.env): TerraformStateRecord {
  const tf = readCdkTf(stackDir);
  const backend = backendOf(tf);
  let text: string;
  let location: string;
  if (backend.type === 'local') {
    const p = typeof backend.config.path === 'string' ? backend.config.path : 'terraform.tfstate';
    location = isAbsolute(p) ? p : resolve(stackDir, p);
    if (!existsSync(location)) return { record: { version: 1, objects: {} }, retained: [], resources: 0, location };
    text = readFileSync(location, 'utf8');
  } else {
    location = `${backend.type} backend (terraform state pull in ${stackDir})`;
    text = pullState(stackDir, env);
    if (text.trim() === '') return { record: { version: 1, objects: {} }, retained: [], resources: 0, location };
  }
  try {
    const state = recordFromState(text, alias);
    return { ...state, moves: movesFromState(stackDir, state.backendPaths, tf), location };
  } catch (e) {
    throw new Error(`cannot read the stack's Terraform state (${location}): ${(e as Error).message}`);
  }
}
