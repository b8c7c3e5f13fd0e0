// The provisioner command lines, run with /bin/sh in a scratch directory: the record step restores
// the instance's own record or rebuilds it from self.input; keyward is resolved from the app first.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RECORD_FILE, keywardCommands, resolveKeywardBin, shellQuote } from '../../../constructs/keyward-command';

const dirs: string[] = [];
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'keyward-cmd-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const sh = (cwd: string, command: string, env: Record<string, string>) => execFileSync('/bin/sh', ['-c', command], { cwd, env: { ...process.env, ...env } });

describe('provisioner commands', () => {
  const cmds = keywardCommands('/opt/keyward/bin/keyward.js');

  it('rebuilds the record from self.input when this instance left no record (fresh checkout)', () => {
    const d = scratch();
    const previous = JSON.stringify({ version: 1, fingerprintSalt: 'x'.repeat(16), authBackends: [{ path: 'cloud', description: "it's \"quoted\" $HOME" }] });
    sh(d, cmds.record, { KEYWARD_PREVIOUS: previous, KEYWARD_INSTANCE: 'abc' });
    expect(readFileSync(join(d, RECORD_FILE), 'utf8')).toBe(previous);
  });

  it("restores the record keyward kept for this instance, and removes the instance's copy", () => {
    const d = scratch();
    writeFileSync(join(d, 'keyward.applied.abc.json'), '{"version":1,"objects":{}}');
    sh(d, cmds.record, { KEYWARD_PREVIOUS: '{}', KEYWARD_INSTANCE: 'abc' });
    expect(readFileSync(join(d, RECORD_FILE), 'utf8')).toBe('{"version":1,"objects":{}}');
    expect(existsSync(join(d, 'keyward.applied.abc.json'))).toBe(false);
  });

  it('keeps JSON off the command line and quotes the binary path', () => {
    expect(cmds.apply).toContain(`node '/opt/keyward/bin/keyward.js' apply --manifest keyward.desired.json --last-applied ${RECORD_FILE}`);
    expect(cmds.teardown).toContain('destroy --manifest keyward.managed.json --last-applied-env KEYWARD_NO_RECORD');
    expect(shellQuote("/a b/it's")).toBe(`'/a b/it'\\''s'`);
  });
});

describe('resolveKeywardBin', () => {
  it("prefers keyward from the app's node_modules", () => {
    const app = scratch();
    const pkg = join(app, 'node_modules', 'keyward');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{"name":"keyward","version":"0.0.0"}');
    writeFileSync(join(pkg, 'bin', 'keyward.js'), '');
    expect(resolveKeywardBin(app)).toBe(join(pkg, 'bin', 'keyward.js'));
  });

  it('falls back to the package that contains the constructs', () => {
    expect(resolveKeywardBin(scratch())).toBe(resolve(__dirname, '../../../bin/keyward.js'));
  });
});
