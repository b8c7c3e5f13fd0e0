// Where the desired state comes from: a manifest file (--manifest), a synthesized cdktf output
// directory (--dir, manifests at stacks/<stack>/keyward.manifest.json), or an app command run
// with CDKTF_OUTDIR set (--app); and which record of what was applied it is compared with: keyward's
// own record file, or, for a stack deployed by Terraform, that stack's Terraform state (read through
// a reader the caller passes: reading state is the Terraform layer's). The two are never mixed.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ALIASED_MANIFEST, MANIFEST_FILE_NAME, parseManifest, type Manifest } from '../schema/manifest';
import { emptyRecord, loadRecordFile, parseRecord, type LastApplied, type RecordOrigin } from './record';

export interface SourceOptions {
  manifest?: string;
  dir?: string;
  app?: string;
  stack?: string;
  /** Record file (read and written). */
  lastApplied?: string;
  /** Name of an environment variable holding a record or previous manifest as JSON (read only). */
  lastAppliedEnv?: string;
  /** Which record a synthesized stack is compared with; default: the one that exists (never both). */
  record?: RecordKind;
}

export const RECORD_KINDS = ['terraform', 'keyward'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export type { RecordOrigin };

/** A stack's Terraform state, as a record (see src/terraform-state). */
export interface TerraformStateRecord {
  record: LastApplied;
  /** Ids Terraform's destroy leaves on the server (retain_on_destroy). */
  retained: string[];
  /** keyward resources in the state: 0 means never deployed by Terraform. */
  resources: number;
  location: string;
  /** Backends Terraform moves (its resource's path changed): declared path, earlier path. */
  moves?: [string, string][];
}

/** Reads the Terraform state of a synthesized stack directory (holding cdk.tf.json): the objects of one server (provider alias). */
export type TerraformStateReader = (stackDir: string, alias?: string) => TerraformStateRecord;

export interface LoadedSource {
  manifest: Manifest;
  manifestPath: string;
  /** Where the CLI keeps the record; undefined when the record came from the environment. */
  recordPath?: string;
  record: LastApplied;
  origin: RecordOrigin;
  /** The synthesized stack's name (--dir, --app). */
  stack?: string;
  /** Ids whose removal leaves the object on the server (Terraform's retain_on_destroy). */
  retained: string[];
  /** Mounts the record's applier moves (Terraform: a backend resource whose path changed): declared path, earlier path. */
  moves?: [string, string][];
}

/**
 * Manifests under a cdktf output directory, keyed by stack name, or `<stack>/<alias>` for a stack's
 * aliased server (keyward.<alias>.manifest.json).
 */
export function findManifests(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (existsSync(join(dir, MANIFEST_FILE_NAME))) out.set(basename(resolve(dir)), join(dir, MANIFEST_FILE_NAME));
  const stacks = join(dir, 'stacks');
  if (existsSync(stacks)) {
    for (const s of readdirSync(stacks).sort()) {
      const p = join(stacks, s, MANIFEST_FILE_NAME);
      if (existsSync(p)) out.set(s, p);
      if (!existsSync(join(stacks, s)) || !statSync(join(stacks, s)).isDirectory()) continue;
      for (const f of readdirSync(join(stacks, s)).sort()) {
        const alias = ALIASED_MANIFEST.exec(f)?.[1];
        if (alias) out.set(`${s}/${alias}`, join(stacks, s, f));
      }
    }
  }
  return out;
}

function pickManifest(dir: string, stack: string | undefined): { path: string; stack: string } {
  const found = findManifests(dir);
  if (found.size === 0) throw new Error(`no ${MANIFEST_FILE_NAME} under ${dir} (expected stacks/<stack>/${MANIFEST_FILE_NAME}; did the stack declare keyward constructs?)`);
  if (stack) {
    const p = found.get(stack);
    if (!p) throw new Error(`stack ${JSON.stringify(stack)} has no keyward manifest under ${dir}; stacks with one: ${[...found.keys()].join(', ')}`);
    return { path: p, stack };
  }
  if (found.size > 1) throw new Error(`${dir} holds several keyward stacks (${[...found.keys()].join(', ')}): choose one with --stack`);
  const [[s, p]] = [...found];
  return { path: p, stack: s };
}

function runApp(app: string, outdir: string): void {
  const r = spawnSync(app, { shell: true, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CDKTF_OUTDIR: outdir } });
  if (r.error) throw new Error(`--app ${JSON.stringify(app)} could not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`--app ${JSON.stringify(app)} exited with status ${r.status ?? r.signal}`);
}

export function loadSource(o: SourceOptions, readState?: TerraformStateReader): LoadedSource {
  const given = [o.manifest, o.dir, o.app].filter((x) => x !== undefined).length;
  if (given === 0) throw new Error('no desired state: give --manifest FILE, --dir CDKTF_OUT or --app "<command>"');
  if (o.manifest && (o.dir || o.app)) throw new Error('--manifest cannot be combined with --dir or --app');
  if (o.record === 'terraform' && o.manifest) throw new Error('--record terraform needs a synthesized stack (--dir or --app): a manifest file has no Terraform state');
  if (o.record && (o.lastApplied || o.lastAppliedEnv)) throw new Error('--record cannot be combined with --last-applied or --last-applied-env (they name a keyward record)');
  let manifestPath: string;
  let defaultRecord: string;
  let json: unknown;
  let stack: string | undefined;
  let state: TerraformStateRecord | undefined;
  // An --app run synthesizes into a temporary directory, removed once the manifest is read.
  const temp = o.app && !o.dir ? mkdtempSync(join(tmpdir(), 'keyward-synth-')) : undefined;
  try {
    if (o.manifest) {
      manifestPath = o.manifest;
      defaultRecord = join(dirname(manifestPath), basename(manifestPath).replace(/\.json$/, '') + '.last-applied.json');
    } else {
      const dir = o.dir ?? temp!;
      if (o.app) runApp(o.app, dir);
      const picked = pickManifest(dir, o.stack);
      manifestPath = picked.path;
      stack = picked.stack;
      // Beside the synthesized output, not inside it: synth rewrites cdktf.out.
      const base = temp ? process.cwd() : dirname(resolve(dir));
      defaultRecord = join(base, `keyward.${picked.stack.replace('/', '.')}.last-applied.json`);
      // Read while the synthesized stack (its backend block) is still there.
      const explicit = o.lastApplied !== undefined || o.lastAppliedEnv !== undefined || o.record === 'keyward';
      if (!explicit && readState) state = readState(dirname(manifestPath), picked.stack.split('/')[1]);
    }
    try {
      json = JSON.parse(readFileSync(manifestPath, 'utf8'));
    } catch (e) {
      throw new Error(`cannot read manifest ${manifestPath}: ${(e as Error).message}`);
    }
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
  const manifest = parseManifest(json);
  const base = { manifest, manifestPath, stack, retained: [] as string[] };
  if (o.lastAppliedEnv) {
    const raw = process.env[o.lastAppliedEnv];
    const record = raw && raw.trim() !== '' && raw.trim() !== 'null' ? parseRecord(JSON.parse(raw)) : emptyRecord();
    return { ...base, record, origin: { kind: 'environment', location: `$${o.lastAppliedEnv}` } };
  }
  const recordPath = o.lastApplied ?? defaultRecord;
  const keyward = (): LoadedSource => ({
    ...base,
    recordPath,
    record: loadRecordFile(recordPath),
    origin: existsSync(recordPath) ? { kind: 'keyward-record', location: recordPath } : { kind: 'none' },
  });
  if (o.manifest || o.lastApplied || o.record === 'keyward') return keyward();
  if (o.record === 'terraform' && !state) throw new Error('--record terraform: no Terraform state reader for this source');
  const fromState = (s: TerraformStateRecord): LoadedSource => ({
    ...base,
    record: s.record,
    retained: s.retained,
    ...(s.moves?.length ? { moves: s.moves } : {}),
    origin: { kind: 'terraform-state', location: s.location },
  });
  if (o.record === 'terraform') return fromState(state!);
  const deployed = state !== undefined && state.resources > 0;
  if (deployed && existsSync(recordPath)) {
    throw new Error(
      `stack ${JSON.stringify(stack)} has two records of what was applied: Terraform's state (${state!.location}) and keyward's own (${recordPath}). ` +
        `Choose one: --record terraform for a stack deployed with cdktf deploy (then delete ${recordPath}, left by an earlier keyward apply), or --record keyward for a stack keyward apply manages.`,
    );
  }
  return deployed ? fromState(state!) : keyward();
}
