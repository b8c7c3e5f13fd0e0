// Where the desired state comes from: a manifest file (--manifest), a synthesized cdktf output
// directory (--dir, manifests at stacks/<stack>/keyward.manifest.json), or an app command run
// with CDKTF_OUTDIR set (--app); and where the last-applied record lives.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { MANIFEST_FILE_NAME, parseManifest, type Manifest } from '../schema/manifest';
import { emptyRecord, loadRecordFile, parseRecord, type LastApplied } from './record';

export interface SourceOptions {
  manifest?: string;
  dir?: string;
  app?: string;
  stack?: string;
  /** Record file (read and written). */
  lastApplied?: string;
  /** Name of an environment variable holding a record or previous manifest as JSON (read only). */
  lastAppliedEnv?: string;
}

export interface LoadedSource {
  manifest: Manifest;
  manifestPath: string;
  /** Where the CLI keeps the record; undefined when the record came from the environment. */
  recordPath?: string;
  record: LastApplied;
}

/** Manifests under a cdktf output directory, keyed by stack name. */
export function findManifests(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (existsSync(join(dir, MANIFEST_FILE_NAME))) out.set(basename(resolve(dir)), join(dir, MANIFEST_FILE_NAME));
  const stacks = join(dir, 'stacks');
  if (existsSync(stacks)) {
    for (const s of readdirSync(stacks).sort()) {
      const p = join(stacks, s, MANIFEST_FILE_NAME);
      if (existsSync(p)) out.set(s, p);
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

export function loadSource(o: SourceOptions): LoadedSource {
  const given = [o.manifest, o.dir, o.app].filter((x) => x !== undefined).length;
  if (given === 0) throw new Error('no desired state: give --manifest FILE, --dir CDKTF_OUT or --app "<command>"');
  if (o.manifest && (o.dir || o.app)) throw new Error('--manifest cannot be combined with --dir or --app');
  let manifestPath: string;
  let defaultRecord: string;
  let json: unknown;
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
      // Beside the synthesized output, not inside it: synth rewrites cdktf.out.
      const base = temp ? process.cwd() : dirname(resolve(dir));
      defaultRecord = join(base, `keyward.${picked.stack}.last-applied.json`);
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
  if (o.lastAppliedEnv) {
    const raw = process.env[o.lastAppliedEnv];
    const record = raw && raw.trim() !== '' && raw.trim() !== 'null' ? parseRecord(JSON.parse(raw)) : emptyRecord();
    return { manifest, manifestPath, record };
  }
  const recordPath = o.lastApplied ?? defaultRecord;
  // A synthesized stack with no record of keyward's own is deployed by Terraform, whose provider
  // tracks what it manages: the manifest then stands for what was applied (no deletes, secrets as
  // fingerprinted), so a plan right after `cdktf deploy` is empty.
  if (!o.manifest && !o.lastApplied && !existsSync(recordPath)) return { manifest, manifestPath, recordPath, record: parseRecord(json) };
  return { manifest, manifestPath, recordPath, record: loadRecordFile(recordPath) };
}
