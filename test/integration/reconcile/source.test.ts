// Where the desired state comes from: --manifest, --dir (stacks/<stack>/keyward.manifest.json),
// --app (run with CDKTF_OUTDIR), and where the record lives; previous manifests as records.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findManifests, loadSource } from '../../../src/reconcile/source';
import { parseRecord, saveRecordFile, loadRecordFile } from '../../../src/reconcile/record';
import { fingerprintSecret } from '../../../src/schema/manifest';

const manifest = (stack: string) => ({
  version: 1,
  stack,
  fingerprintSalt: 'salt-0123456789abcdef',
  authBackends: [{ path: 'cloud', type: 'cloud', roles: [{ name: 'web', type: 'iam', bound_service_accounts: 'a@b' }] }],
});

test('--manifest reads the file; the record sits beside it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-src-'));
  writeFileSync(join(dir, 'prod.json'), JSON.stringify(manifest('prod')));
  const s = loadSource({ manifest: join(dir, 'prod.json') });
  expect(s.manifest.stack).toBe('prod');
  expect(s.recordPath).toBe(join(dir, 'prod.last-applied.json'));
  expect(s.record).toEqual({ version: 1, objects: {} });
});

test('--dir finds the stack manifests; several stacks need --stack', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'kw-src-')), 'cdktf.out');
  for (const st of ['a', 'b']) {
    mkdirSync(join(out, 'stacks', st), { recursive: true });
    writeFileSync(join(out, 'stacks', st, 'keyward.manifest.json'), JSON.stringify(manifest(st)));
  }
  expect(() => loadSource({ dir: out })).toThrow(/several keyward stacks \(a, b\): choose one with --stack/);
  const s = loadSource({ dir: out, stack: 'b' });
  expect(s.manifest.stack).toBe('b');
  expect(s.recordPath).toBe(join(out, '..', 'keyward.b.last-applied.json'));
  expect(() => loadSource({ dir: out, stack: 'c' })).toThrow(/stack "c" has no keyward manifest/);
  expect(() => loadSource({})).toThrow(/no desired state/);
});

test('--app runs the command with CDKTF_OUTDIR and reads its output', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'kw-src-')), 'out');
  const script = `const fs=require('fs'),p=require('path');const d=p.join(process.env.CDKTF_OUTDIR,'stacks','app');fs.mkdirSync(d,{recursive:true});fs.writeFileSync(p.join(d,'keyward.manifest.json'),JSON.stringify(${JSON.stringify(manifest('app'))}))`;
  writeFileSync(join(out + '.js'), script);
  const s = loadSource({ app: `${JSON.stringify(process.execPath)} ${JSON.stringify(out + '.js')}`, dir: out });
  expect(s.manifest.stack).toBe('app');
  expect(() => loadSource({ app: 'exit 3' })).toThrow(/exited with status 3/);
});

test('--last-applied-env reads a record or a previous manifest and writes none', () => {
  const prev = {
    ...manifest('p'),
    authBackends: [{ path: 'cloud', type: 'cloud', config: { credentials: { secretRef: { env: 'X', fingerprint: fingerprintSecret('s', 'v') } } }, roles: [] }],
  };
  process.env.KW_TEST_PREV = JSON.stringify(prev);
  const dir = mkdtempSync(join(tmpdir(), 'kw-src-'));
  writeFileSync(join(dir, 'm.json'), JSON.stringify(manifest('m')));
  const s = loadSource({ manifest: join(dir, 'm.json'), lastAppliedEnv: 'KW_TEST_PREV' });
  expect(s.recordPath).toBeUndefined();
  expect(Object.keys(s.record.objects)).toEqual(['auth/cloud', 'auth/cloud/config']);
  expect(s.record.objects['auth/cloud/config'].secrets.credentials).toBe(fingerprintSecret('s', 'v'));
  expect(loadSource({ manifest: join(dir, 'm.json'), lastAppliedEnv: 'KW_TEST_UNSET_VAR' }).record.objects).toEqual({});
  delete process.env.KW_TEST_PREV;
});

test('records round-trip through an atomic write; other JSON is refused', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'kw-rec-')), 'r.json');
  const rec = { version: 1 as const, objects: { 'snapshot/b': { fields: { retain: 1 }, secrets: {}, observed: {} }, 'auth/a': { fields: {}, secrets: {}, observed: {} } } };
  saveRecordFile(path, rec);
  expect(loadRecordFile(path)).toEqual(rec);
  expect(Object.keys(loadRecordFile(path).objects)).toEqual(['auth/a', 'snapshot/b']);
  expect(() => parseRecord({ hello: 1 })).toThrow(/expected a keyward record/);
});

function stackDir(m: unknown): string {
  const out = join(mkdtempSync(join(tmpdir(), 'kw-src-')), 'cdktf.out');
  mkdirSync(join(out, 'stacks', 's'), { recursive: true });
  writeFileSync(join(out, 'stacks', 's', 'keyward.manifest.json'), JSON.stringify(m));
  return out;
}

const stateOf =
  (objects: string[], resources = objects.length) =>
  (stackDir: string) => ({
    record: { version: 1 as const, objects: Object.fromEntries(objects.map((id) => [id, { fields: {}, secrets: {}, observed: {} }])) },
    retained: [],
    resources,
    location: join(stackDir, 'terraform.s.tfstate'),
  });

test('--dir with no record of either kind: nothing was applied (the new manifest is not taken as applied)', () => {
  const out = stackDir(manifest('s'));
  const s = loadSource({ dir: out }, stateOf([], 0));
  expect(s.record.objects).toEqual({});
  expect(s.origin).toEqual({ kind: 'none' });
  expect(loadSource({ dir: out }).origin).toEqual({ kind: 'none' });
});

test('--dir of a stack Terraform deployed: its state is the record, and the plan says so', () => {
  const out = stackDir(manifest('s'));
  const s = loadSource({ dir: out }, stateOf(['auth/cloud', 'auth/cloud/role/gone']));
  expect(Object.keys(s.record.objects)).toEqual(['auth/cloud', 'auth/cloud/role/gone']);
  expect(s.origin).toEqual({ kind: 'terraform-state', location: join(out, 'stacks', 's', 'terraform.s.tfstate') });
  expect(s.stack).toBe('s');
});

test("Terraform's state and keyward's record together are refused until --record chooses", () => {
  const out = stackDir(manifest('s'));
  const recordPath = join(out, '..', 'keyward.s.last-applied.json');
  saveRecordFile(recordPath, { version: 1, objects: { 'auth/old': { fields: {}, secrets: {}, observed: {} } } });
  const read = stateOf(['auth/cloud']);
  expect(() => loadSource({ dir: out }, read)).toThrow(
    /two records of what was applied: Terraform's state \(.*terraform\.s\.tfstate\) and keyward's own \(.*keyward\.s\.last-applied\.json\)\. Choose one: --record terraform/,
  );
  expect(loadSource({ dir: out, record: 'terraform' }, read).origin.kind).toBe('terraform-state');
  const k = loadSource({ dir: out, record: 'keyward' }, read);
  expect(k.origin).toEqual({ kind: 'keyward-record', location: recordPath });
  expect(Object.keys(k.record.objects)).toEqual(['auth/old']);
  // A state with no keyward resource (never deployed): keyward's record, no question asked.
  expect(loadSource({ dir: out }, stateOf([], 0)).origin.kind).toBe('keyward-record');
  expect(() => loadSource({ dir: out, record: 'keyward', lastApplied: recordPath }, read)).toThrow(/--record cannot be combined/);
  expect(() => loadSource({ manifest: join(out, 'stacks', 's', 'keyward.manifest.json'), record: 'terraform' }, read)).toThrow(/--record terraform needs a synthesized stack/);
});

test("a stack's aliased server has its own manifest, stack key and record; its state is read for that alias", () => {
  const out = stackDir(manifest('s'));
  writeFileSync(join(out, 'stacks', 's', 'keyward.dr.manifest.json'), JSON.stringify(manifest('s')));
  expect([...findManifests(out).keys()]).toEqual(['s', 's/dr']);
  expect(() => loadSource({ dir: out })).toThrow(/several keyward stacks \(s, s\/dr\)/);
  const aliases: (string | undefined)[] = [];
  const read = (stackDir: string, alias?: string) => (aliases.push(alias), stateOf([])(stackDir));
  const dr = loadSource({ dir: out, stack: 's/dr' }, read);
  expect(dr.manifestPath).toBe(join(out, 'stacks', 's', 'keyward.dr.manifest.json'));
  expect(dr.recordPath).toBe(join(out, '..', 'keyward.s.dr.last-applied.json'));
  loadSource({ dir: out, stack: 's' }, read);
  expect(aliases).toEqual(['dr', undefined]);
});
