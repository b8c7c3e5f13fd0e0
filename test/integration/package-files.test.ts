// The npm package ships what its README links to: docs/ (the reference pages included),
// examples/ and the LICENSE (MPL-2.0 in full), besides bin/ and dist/; never a stack's synthesized
// output or Terraform state. Every relative link of the README and of the shipped markdown resolves
// inside the package, anchors included.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, normalize, posix, resolve } from 'node:path';

const REPO = resolve(__dirname, '../..');

let packed: string[] | undefined;
function packedFiles(): string[] {
  if (packed) return packed;
  // --ignore-scripts: the file list is the point here, not the build `prepare` runs.
  const out = execFileSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  packed = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
  return packed;
}

it('npm pack lists docs, the reference pages, examples and the LICENSE', () => {
  const files = packedFiles();
  expect(files).toEqual(
    expect.arrayContaining([
      'LICENSE',
      'README.md',
      'docs/terraform-provider.md',
      'docs/constructs.md',
      'docs/cli.md',
      'docs/engine.md',
      'docs/vault-enterprise.md',
      'docs/snapshots.md',
      'docs/cloud-emulator.md',
      'docs/development.md',
      'docs/architecture.md',
      'docs/index.md',
      'docs/resources/cloud_auth_backend.md',
      'docs/resources/snapshot_auto_config.md',
      'examples/basic/main.ts',
      'examples/basic/README.md',
      'examples/provider/provider.tf',
      'examples/resources/keyward_cloud_auth_backend/resource.tf',
      'examples/resources/keyward_cloud_auth_backend/import.sh',
      'bin/terraform-provider-keyward.js',
    ]),
  );
  expect(files.filter((f) => /(^|\/)(cdktf\.out|\.terraform|node_modules)\/|tfstate/.test(f))).toEqual([]);
}, 60_000);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6} (.+)$/gm)) out.add(slug(m[1]!));
  for (const m of markdown.matchAll(/<a id="([^"]+)"><\/a>/g)) out.add(m[1]!);
  return out;
}

it('every relative link of the README and of the shipped markdown resolves inside the package', () => {
  const files = packedFiles();
  const has = (p: string) => files.includes(p) || files.some((f) => f.startsWith(p.replace(/\/$/, '') + '/'));
  const broken: string[] = [];
  for (const doc of files.filter((f) => f.endsWith('.md') && !f.startsWith('dist/'))) {
    const text = readFileSync(resolve(REPO, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]!;
      if (/^[a-z]+:/.test(link)) continue;
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? doc : normalize(posix.join(dirname(doc), path)).replace(/\\/g, '/');
      if (!has(target)) broken.push(`${doc}: ${link} (${target} is not in the package)`);
      else if (anchor && target.endsWith('.md') && !anchors(readFileSync(resolve(REPO, target), 'utf8')).has(anchor)) broken.push(`${doc}: ${link} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
}, 60_000);

it('the LICENSE is the MPL-2.0 text that package.json names', () => {
  const pkg = JSON.parse(readFileSync(resolve(REPO, 'package.json'), 'utf8')) as { license: string };
  expect(pkg.license).toBe('MPL-2.0');
  const text = readFileSync(resolve(REPO, 'LICENSE'), 'utf8');
  expect(text.startsWith('Mozilla Public License Version 2.0\n')).toBe(true);
  expect(text).toContain('Exhibit B - "Incompatible With Secondary Licenses" Notice');
});
