// Issue 40's boundary: no decision outside the decision modules. The Terraform provider, the reading
// of Terraform's state and saved plans (src/terraform-state, keyward show's plan) and the CLI import
// no diff internals (they reach decisions through src/reconcile/objects and the plan as
// data), and the fields that force a replace are listed only in the field tables (src/schema), read
// through replaceFields() by every front end.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { MOUNT_FIELDS, MOUNT_REPLACE_FIELDS } from '../../../src/schema/auth-mount-fields';
import { ROLE_REPLACE_FIELDS } from '../../../src/schema/cloud-role-fields';
import { SNAPSHOT_REPLACE_FIELDS } from '../../../src/schema/snapshot-fields';
import { replaceFields } from '../../../src/reconcile/objects/decide';

const REPO = resolve(__dirname, '../../..');
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);

test('src/terraform, src/terraform-state and src/cli import no diff internals (reconcile/diff, the field comparison)', () => {
  const offenders: string[] = [];
  for (const file of ['src/terraform', 'src/terraform-state', 'src/cli'].flatMap((dir) => filesUnder(join(REPO, dir)))) {
    for (const spec of importsOf(file)) if (/reconcile\/diff$/.test(spec)) offenders.push(`${relative(REPO, file)} imports ${spec}`);
  }
  expect(offenders).toEqual([]);
});

test('replace-forcing fields live only in the field tables; every front end reads them through replaceFields()', () => {
  expect(replaceFields('auth-mount')).toBe(MOUNT_REPLACE_FIELDS);
  expect(replaceFields('role')).toBe(ROLE_REPLACE_FIELDS);
  expect(replaceFields('snapshot-config')).toBe(SNAPSHOT_REPLACE_FIELDS);
  expect(MOUNT_REPLACE_FIELDS).toEqual(['type', ...MOUNT_FIELDS.filter((f) => f.immutable).map((f) => f.name)]);
  // A literal list of replace-forcing field names anywhere else is a second table.
  const LIST = /(?<![\w\]>])\[\s*(?:'(?:backend|name)',\s*)*'(?:type|storage_type|local)'(?:\s*,\s*'(?:type|storage_type|local)')*\s*\](?!\s*\))/;
  const NAMES = /\b(?:IMMUTABLE|FORCES_REPLACE|MOUNT_IMMUTABLE)\b\s*(?::[^=]+)?=\s*\[(?![^\]]*replaceFields)/;
  const offenders: string[] = [];
  for (const dir of ['src/reconcile', 'src/terraform', 'src/terraform-state', 'src/cli', 'constructs']) {
    for (const file of filesUnder(join(REPO, dir))) {
      const text = readFileSync(file, 'utf8');
      text.split('\n').forEach((line, i) => {
        if (/^\s*(\/\/|\*)/.test(line)) return;
        if (NAMES.test(line) || (LIST.test(line) && !/nonDefault\(/.test(line))) offenders.push(`${relative(REPO, file)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  expect(offenders).toEqual([]);
});
