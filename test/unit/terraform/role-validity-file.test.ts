// The role validity file: digests of roles one provider build found valid, kept across its
// processes in the user's cache directory. Never a role's values, never a file another user could
// write or a symlink, never shared between builds; an invalid role is never remembered.

import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRoleValidity, setRoleValidity } from '../../../src/terraform/resources/role-validity-file';
import { emptyRole, validateRole } from '../../../src/terraform/resources/role-values';

const STAMP = 'a'.repeat(64);
let home: string;
const env = () => ({ HOME: home });
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'keyward-validity-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const role = (ttl: number) => JSON.stringify({ name: 'web', type: 'iam', bound_service_accounts: ['sa@p.iam.gserviceaccount.com'], token_ttl: ttl });

test('a role found valid by one process is known to the next of the same build, by digest only', () => {
  const first = openRoleValidity(STAMP, env())!;
  expect(first.has(role(3600))).toBe(false);
  first.add(role(3600));
  expect(first.has(role(3600))).toBe(true);
  first.flush();
  const second = openRoleValidity(STAMP, env())!;
  expect(second.has(role(3600))).toBe(true);
  expect(second.has(role(7200))).toBe(false); // other values: validated again
  const dir = join(home, '.cache', 'keyward');
  const [file] = readdirSync(dir);
  const text = readFileSync(join(dir, file!), 'utf8');
  expect(text).toMatch(/^[0-9a-f]{32}\n$/);
  expect(text).not.toContain('sa@p');
  // Another build (another bundle digest) starts empty.
  expect(openRoleValidity('b'.repeat(64), env())!.has(role(3600))).toBe(false);
});

test('not used when the directory is open to others or the file is a symlink; garbage lines are ignored', () => {
  const dir = join(home, '.cache', 'keyward');
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o777);
  expect(openRoleValidity(STAMP, env())).toBeUndefined();
  chmodSync(dir, 0o700);
  const elsewhere = join(home, 'elsewhere');
  writeFileSync(elsewhere, '');
  symlinkSync(elsewhere, join(dir, `role-validity-${STAMP.slice(0, 32)}`));
  const v = openRoleValidity(STAMP, env())!;
  v.add(role(3600));
  v.flush(); // refused through the symlink: nothing written there
  expect(readFileSync(elsewhere, 'utf8')).toBe('');
  rmSync(join(dir, `role-validity-${STAMP.slice(0, 32)}`));
  writeFileSync(join(dir, `role-validity-${STAMP.slice(0, 32)}`), 'not a digest\n\u0000\n', { mode: 0o600 });
  expect(openRoleValidity(STAMP, env())!.has(role(3600))).toBe(false);
});

test('an unwritable cache directory means no file: every role is validated', () => {
  writeFileSync(join(home, '.cache'), 'a file, not a directory');
  expect(openRoleValidity(STAMP, env())).toBeUndefined();
});

test('validateRole remembers valid roles only; a remembered role is not validated again in the next process', () => {
  const file = () => readdirSync(join(home, '.cache', 'keyward')).map((f) => readFileSync(join(home, '.cache', 'keyward', f), 'utf8'));
  const v = openRoleValidity(STAMP, env())!;
  setRoleValidity(v);
  try {
    const bad = { ...emptyRole(), type: 'iam', bound_service_accounts: ['sa@p.iam.gserviceaccount.com'], token_ttl: 'soon' };
    expect(validateRole(['roles', 'bad'], 'bad', bad).length).toBeGreaterThan(0);
    v.flush();
    expect(file()).toEqual([]);
    const good = { ...emptyRole(), type: 'iam', bound_service_accounts: ['sa@p.iam.gserviceaccount.com'], token_ttl: '1h' };
    expect(validateRole(['roles', 'good'], 'good', good)).toEqual([]);
    v.flush();
    expect(file()).toEqual([expect.stringMatching(/^[0-9a-f]{32}\n$/)]);
    // The bad role is refused again, file or not.
    expect(validateRole(['roles', 'bad'], 'bad', bad).length).toBeGreaterThan(0);
  } finally {
    setRoleValidity(undefined);
  }
});
