// docs/architecture.md stays true: every repository path it names exists, its parts table names
// every folder under src/, the table's "may import" column holds for every import in src/ and
// constructs/ (static, dynamic and require; type-only imports included: they are layering too), and
// so do the rules inside a part (its second table: a folder, and what its files may not import).
// Both tables are read from the page, so the page and this test cannot drift apart.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const REPO = resolve(__dirname, '../..');
const DOC = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');

/** Code spans that name a path in this repository. */
function namedPaths(markdown: string): string[] {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/`([^`\s]+)`/g)) {
    if (/^(src|constructs|bin|test|docs|examples|scripts|bench|tools)(\/[\w.-]+)*\/?$/.test(m[1]!)) out.add(m[1]!.replace(/\/$/, ''));
  }
  return [...out];
}

interface Part {
  dir: string;
  mayImport: 'anything' | string[];
}

/** The rows of the parts table: `dir` | what | may import. */
function parts(markdown: string): Part[] {
  const table = markdown.split('## The parts')[1]!.split('\n## ')[0]!;
  const out: Part[] = [];
  for (const row of table.split('\n').filter((l) => /^\| `/.test(l))) {
    const cells = row.split('|').map((c) => c.trim());
    const dir = /^`([^`]+)`$/.exec(cells[1]!)![1]!;
    const rule = cells[3]!;
    out.push({ dir, mayImport: rule.startsWith('anything') ? 'anything' : rule.startsWith('nothing') ? [] : rule.split(',').map((s) => s.trim()) });
  }
  return out;
}

const TABLE = parts(DOC);
const partDir = (name: string): string => (name === 'constructs' ? 'constructs' : `src/${name}`);

/** The part a repository file belongs to (undefined: outside every part, e.g. src/index.ts). */
function partOf(file: string): Part | undefined {
  return TABLE.find((p) => file === p.dir || file.startsWith(p.dir + '/'));
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(REPO, dir), { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.ts$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Every module a file imports, as written (relative paths and packages, `node:` built-ins included). */
function specifiersOf(file: string): string[] {
  const text = readFileSync(join(REPO, file), 'utf8');
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

/** A relative import of `file` as a repository path (extension-less); other specifiers as written. */
const resolved = (file: string, spec: string): string => (/^\.{1,2}\//.test(spec) ? relative(REPO, resolve(REPO, dirname(file), spec)) : spec);

/** Relative imports of a file, as repository paths (extension-less). */
function importsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((s) => /^\.{1,2}\//.test(s))
    .map((s) => resolved(file, s));
}

interface FolderRule {
  folder: string;
  /** Repository folders or files (`.ts` dropped) and `node:` built-ins its files may not import. */
  forbidden: string[];
}

/** The rows of "Rules inside a part": `folder` | `x`, `y` | why. */
function folderRules(markdown: string): FolderRule[] {
  const table = markdown.split('## Rules inside a part')[1]!.split('\n## ')[0]!;
  return table
    .split('\n')
    .filter((l) => /^\| `/.test(l))
    .map((row) => {
      const cells = row.split('|').map((c) => c.trim());
      return { folder: /^`([^`]+)`$/.exec(cells[1]!)![1]!, forbidden: [...cells[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\.ts$/, '')) };
    });
}

const RULES = folderRules(DOC);
const inside = (path: string, dir: string): boolean => path === dir || path.startsWith(dir + '/');

/** Whether an import (a repository path or a specifier as written) is what a rule's entry names. */
function names(entry: string, target: string): boolean {
  if (entry.startsWith('node:')) return target === entry || target === entry.slice('node:'.length) || target.startsWith(entry + '/');
  return inside(target, entry);
}

/** The imports of `file` (specifiers as written) that break a rule inside a part. */
function folderBreaks(file: string, specs: string[]): string[] {
  const out: string[] = [];
  for (const rule of RULES.filter((r) => inside(file, r.folder))) {
    for (const spec of specs) {
      const target = resolved(file, spec);
      if (inside(target, rule.folder)) continue; // the folder's own files
      const entry = rule.forbidden.find((e) => names(e, target));
      if (entry) out.push(`${file} imports ${target} (${rule.folder} may not import ${entry})`);
    }
  }
  return out;
}

test('every path the page names exists', () => {
  const paths = namedPaths(DOC);
  expect(paths.length).toBeGreaterThan(40);
  expect(paths.filter((p) => !existsSync(join(REPO, p)))).toEqual([]);
});

test('the parts table names every folder under src/', () => {
  const folders = readdirSync(join(REPO, 'src'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `src/${e.name}`);
  expect(folders.filter((f) => !TABLE.some((p) => p.dir === f))).toEqual([]);
  for (const p of TABLE) if (p.mayImport !== 'anything') for (const name of p.mayImport) expect(TABLE.map((t) => t.dir)).toContain(partDir(name));
});

test('every import in src/ and constructs/ follows the table', () => {
  const broken: string[] = [];
  for (const file of [...sourceFiles('src'), ...sourceFiles('constructs')]) {
    const from = partOf(file);
    for (const target of importsOf(file)) {
      const to = partOf(target);
      if (!to || !from || to === from) continue;
      if (to.dir === 'src/cli') broken.push(`${file} imports ${target}: nothing may import src/cli`);
      else if (from.mayImport !== 'anything' && !from.mayImport.map(partDir).includes(to.dir))
        broken.push(`${file} imports ${target} (${from.dir} may import ${from.mayImport.join(', ') || 'nothing of keyward'})`);
    }
  }
  expect(broken).toEqual([]);
});

test('the rules inside a part: the page states them, and every import in those folders follows them', () => {
  expect(RULES.map((r) => r.folder)).toEqual(expect.arrayContaining(['src/engine/core', 'src/terraform/plugin', 'src/terraform-state']));
  const rule = (folder: string) => RULES.find((r) => r.folder === folder)!.forbidden;
  expect(rule('src/engine/core')).toEqual(expect.arrayContaining(['src/engine/node-adapter', 'node:http', 'node:net', 'node:tls']));
  expect(rule('src/terraform/plugin')).toContain('src/terraform');
  expect(rule('src/terraform-state')).toEqual(expect.arrayContaining(['src/terraform', 'src/cli']));
  const broken: string[] = [];
  for (const { folder } of RULES) {
    const files = sourceFiles(folder);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) broken.push(...folderBreaks(file, specifiersOf(file)));
  }
  expect(broken).toEqual([]);
});

test('the checks see a violation', () => {
  const engine = TABLE.find((p) => p.dir === 'src/engine')!;
  expect(engine.mayImport).not.toContain('client');
  expect(importsOf('src/engine/core/engine-core.ts')).toContain('src/schema/errors');
  expect(specifiersOf('src/engine/core/body.ts')).toContain('node:stream');
  // What the page forbids inside a part is found, in each spelling; the folder's own files are not.
  expect(folderBreaks('src/terraform/plugin/serve.ts', ['../keyward-provider', '../resources/role-values', './contract'])).toHaveLength(2);
  expect(folderBreaks('src/engine/core/pipeline.ts', ['node:net', 'http', '../node-adapter/adapter', './router'])).toHaveLength(3);
  expect(folderBreaks('src/terraform-state/state-record.ts', ['../terraform/plugin/contract', '../cli/main', '../reconcile/model'])).toHaveLength(2);
});
