// docs/architecture.md stays true: every repository path it names exists, its parts table names
// every folder under src/, and the table's "may import" column holds for every import in src/ and
// constructs/ (static, dynamic and require; type-only imports included: they are layering too).

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

/** Relative imports of a file, as repository paths (extension-less). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(REPO, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    out.push(relative(REPO, resolve(REPO, dirname(file), m[1]!)));
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

test('the checks see a violation', () => {
  const engine = TABLE.find((p) => p.dir === 'src/engine')!;
  expect(engine.mayImport).not.toContain('client');
  expect(importsOf('src/engine/core/engine-core.ts')).toContain('src/schema/errors');
});
