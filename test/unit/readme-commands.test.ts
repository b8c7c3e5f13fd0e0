// The README's command table against the real command: every command it shows answers --help,
// and every flag it shows for that command is one the command accepts.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');
const BIN = join(REPO, 'bin', 'keyward.js');

interface Documented {
  /** Subcommand words after `keyward`, e.g. ['cloud-emulator', 'mint', 'service-account']. */
  path: string[];
  flags: string[];
}

/** The code spans of the first column of the table under "## The `keyward` command". */
export function documentedCommands(readme: string): Documented[] {
  const section = readme.split('## The `keyward` command')[1]?.split('\n## ')[0];
  if (!section) throw new Error('README has no "## The `keyward` command" section');
  const rows = section.split('\n').filter((l) => l.startsWith('| `keyward'));
  const out: Documented[] = [];
  for (const row of rows) {
    const firstCell = row.replaceAll('\\|', '\u0001').split('|')[1];
    for (const span of firstCell.match(/`keyward[^`]*`/g) ?? []) {
      const words = span.slice(1, -1).replaceAll('\u0001', '|').split(/\s+/).slice(1);
      const path: string[] = [];
      for (const w of words) {
        if (!/^[a-z][a-z-]*$/.test(w)) break;
        path.push(w);
      }
      const flags = words.map((w) => /--[a-z][a-z-]*/.exec(w)?.[0]).filter((f): f is string => f !== undefined);
      out.push({ path, flags });
    }
  }
  return out;
}

function help(path: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...path, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

const documented = documentedCommands(readFileSync(join(REPO, 'README.md'), 'utf8'));

test('the README table lists the commands', () => {
  const top = new Set(documented.map((d) => d.path[0] ?? ''));
  for (const c of ['plan', 'apply', 'destroy', 'import', 'status', 'server', 'cloud-emulator']) expect(top).toContain(c);
  expect(documented.find((d) => d.path.length === 0)?.flags).toEqual(['--version']);
});

test.each(documented.map((d) => [['keyward', ...d.path].join(' '), d] as const))('%s: --help answers and lists every documented flag', async (_name, d) => {
  const r = await help(d.path);
  expect(r.code).toBe(0);
  expect(r.out).toContain('Usage: keyward');
  for (const flag of d.flags) expect(r.out).toMatch(new RegExp(`(^|[\\s,])${flag}\\b`, 'm'));
}, 30_000);
