// Every command the README and the docs pages show exists: each `keyward ...` in their code (shell
// blocks and inline code) answers --help and accepts every flag shown with it; each `npm run X`,
// `npm start` / `npm test` is a script of package.json; each repository script run with tsx, node,
// bash or jest exists and knows the flags shown after it. Tools keyward does not ship (terraform,
// cdktf, gh, jq) are outside this check.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const REPO = join(__dirname, '..', '..');
const BIN = join(REPO, 'bin', 'keyward.js');

/** The README, every page under docs/ and the examples' READMEs, as [repository path, text]. */
export function documentationPages(): Array<[string, string]> {
  const out: Array<[string, string]> = [['README.md', readFileSync(join(REPO, 'README.md'), 'utf8')]];
  const walk = (dir: string, keep: (name: string) => boolean): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, keep);
      else if (keep(e.name)) out.push([relative(REPO, p), readFileSync(p, 'utf8')]);
    }
  };
  walk(join(REPO, 'docs'), (n) => n.endsWith('.md'));
  walk(join(REPO, 'examples'), (n) => n === 'README.md');
  return out;
}

const SHELL_FENCES = new Set(['', 'sh', 'bash', 'shell', 'console', 'yaml']);

/** The pieces of a page that show commands: lines of shell-like fenced blocks and inline code spans. */
export function codeOf(markdown: string): string[] {
  const pieces: string[] = [];
  const prose = markdown.replace(/^```([a-z]*)\n([\s\S]*?)^```$/gm, (_all, lang: string, body: string) => {
    // A shell comment is prose about the command, not part of it.
    if (SHELL_FENCES.has(lang)) pieces.push(...body.split('\n').map((l) => l.replace(/(^|\s)#.*$/, '').trimEnd()));
    return '';
  });
  for (const m of prose.matchAll(/`([^`]+)`/g)) pieces.push(m[1]!.replace(/\n/g, ' '));
  return pieces;
}

export interface ShownCommand {
  /** The words after `keyward` that name (sub)commands, alternatives such as plan|apply expanded. */
  words: string[];
  flags: string[];
}

/** Each `keyward ...` invocation in a piece of code: its leading words and the flags shown with it. */
export function keywardCommands(code: string): ShownCommand[] {
  // A table cell's escaped \| separates alternatives of one command; quoted arguments are values.
  const text = code.replaceAll('\\|', ' ').replace(/"[^"]*"|'[^']*'/g, 'ARG');
  const out: ShownCommand[] = [];
  for (const m of text.matchAll(/(?:^|[\s(`])keyward(?=\s|$)((?:\s+[^\s]+)*)/g)) {
    const tokens = m[1]!.trim().split(/\s+/).filter(Boolean);
    const end = tokens.findIndex((t) => /^(\||>|&&|;|#|\)|2>)/.test(t));
    const own = end === -1 ? tokens : tokens.slice(0, end);
    const lead: string[] = [];
    for (const t of own) {
      if (!/^[a-z][a-z-]*(?:[|/][a-z][a-z-]*)*$/.test(t)) break;
      lead.push(t);
    }
    const flags = own.map((t) => /--[a-z][a-z-]*/.exec(t)?.[0]).filter((f): f is string => f !== undefined);
    // plan|apply|destroy (or plan/apply, mint service-account|instance): one command each.
    let paths: string[][] = [[]];
    for (const w of lead) paths = paths.flatMap((p) => w.split(/[|/]/).map((alt) => [...p, alt]));
    for (const words of paths) out.push({ words, flags });
  }
  return out;
}

const helps = new Map<string, Promise<{ code: number | null; out: string }>>();
function help(path: string[]): Promise<{ code: number | null; out: string }> {
  const key = path.join(' ');
  let p = helps.get(key);
  if (!p) {
    p = new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...path, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    helps.set(key, p);
  }
  return p;
}

/** The subcommands a help text lists under "Commands:". */
const subcommands = (helpText: string): string[] => [...(helpText.split('\nCommands:\n')[1] ?? '').matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!);

/** The longest prefix of `words` that names a command (the rest are arguments), and that command's help. */
async function resolveCommand(words: string[]): Promise<{ path: string[]; out: string; code: number | null }> {
  const path: string[] = [];
  let h = await help(path);
  for (const w of words) {
    if (!subcommands(h.out).includes(w) || w === 'help') break;
    path.push(w);
    h = await help(path);
  }
  return { path, ...h };
}

const pages = documentationPages();
const shown = new Map<string, { command: ShownCommand; where: Set<string> }>();
const scripts = new Map<string, Set<string>>();
const files = new Map<string, { flags: Set<string>; where: Set<string> }>();
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

for (const [page, text] of pages) {
  for (const piece of codeOf(text)) {
    for (const c of keywardCommands(piece)) {
      const key = ['keyward', ...c.words, ...c.flags].join(' ');
      const entry = shown.get(key) ?? { command: c, where: new Set<string>() };
      entry.where.add(page);
      shown.set(key, entry);
    }
    for (const m of piece.matchAll(/\bnpm (?:run (\S+)|(start|test)\b)/g)) {
      const name = (m[1] ?? m[2])!.replace(/[`.,;)]+$/, '');
      scripts.set(name, (scripts.get(name) ?? new Set()).add(page));
    }
    // Repository scripts: `npx tsx bench/x.ts --flag`, `node ... scripts/x.js`, `bash .ci/run`, `npx jest test/...`.
    for (const m of piece.matchAll(
      /(?:^|\s)(?:npx tsx|npx jest|node(?: --?[a-z][\w/-]*(?:=\S+)?| -r \S+)*|bash|tsx) ((?:bench|scripts|test|\.ci|tools)\/[^\s`'"]*)((?:\s+[^\s|>#;&]+)*)/g,
    )) {
      const file = m[1]!.replace(/[.,;)]+$/, '');
      const entry = files.get(file) ?? { flags: new Set<string>(), where: new Set<string>() };
      entry.where.add(page);
      for (const f of (m[2] ?? '').matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)) entry.flags.add(f[1]!);
      files.set(file, entry);
    }
  }
}

test('the pages show every keyward command, and the version flag', () => {
  const top = new Set([...shown.values()].map((s) => s.command.words[0] ?? ''));
  for (const c of ['plan', 'apply', 'destroy', 'import', 'status', 'server', 'cloud-emulator', 'terraform']) expect(top).toContain(c);
  expect([...shown.values()].some((s) => s.command.words.length === 0 && s.command.flags.includes('--version'))).toBe(true);
});

test('the extraction sees commands in tables, code blocks and inline code', () => {
  expect(keywardCommands('keyward plan [--app CMD \\| --dir cdktf.out] [--format text\\|markdown]')).toEqual([{ words: ['plan'], flags: ['--app', '--dir', '--format'] }]);
  expect(keywardCommands('npx keyward plan --dir cdktf.out > plan.md   # one --section')).toEqual([{ words: ['plan'], flags: ['--dir'] }]);
  expect(keywardCommands('keyward plan|apply|destroy --app "<cmd --x>"')).toEqual(['plan', 'apply', 'destroy'].map((w) => ({ words: [w], flags: ['--app'] })));
  expect(keywardCommands('provider "keyward" { } keyward/keyward keyward_cloud_auth_role')).toEqual([]);
  expect(keywardCommands('keyward cloud-emulator mint service-account|instance')).toEqual(
    ['service-account', 'instance'].map((w) => ({ words: ['cloud-emulator', 'mint', w], flags: [] })),
  );
  expect(codeOf('a `keyward status` b\n```sh\nnpx keyward --version   # keyward as shown\n```\n```ts\nkeyward plan\n```\n')).toEqual([
    'npx keyward --version',
    '',
    'keyward status',
  ]);
});

test.each([...shown.entries()].map(([key, s]) => [key, [...s.where].join(', '), s.command] as const))(
  '%s (%s): --help answers and lists every flag shown',
  async (_key, _where, c) => {
    const r = await resolveCommand(c.words);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Usage: keyward${r.path.length ? ' ' + r.path.join(' ') : ''}`);
    // Words shown beyond the command must be its arguments, not a mistyped subcommand.
    if (c.words.length > r.path.length) expect(subcommands(r.out)).toEqual([]);
    for (const flag of c.flags) expect(r.out).toMatch(new RegExp(`(^|[\\s,])${flag}\\b`, 'm'));
  },
  60_000,
);

test.each([...scripts.entries()].map(([name, where]) => [name, [...where].join(', ')] as const))('npm script %s (%s) exists', (name) => {
  expect(Object.keys(pkg.scripts)).toContain(name);
});

test.each([...files.entries()].map(([file, e]) => [file, [...e.where].join(', '), [...e.flags]] as const))('%s (%s) exists and knows the flags shown', (file, _where, flags) => {
  expect(existsSync(join(REPO, file))).toBe(true);
  if (statSync(join(REPO, file)).isDirectory()) return void expect(flags).toEqual([]);
  const source = readFileSync(join(REPO, file), 'utf8');
  for (const flag of flags) expect(source).toContain(flag);
});
