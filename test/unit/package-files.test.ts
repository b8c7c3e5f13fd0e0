// The npm package ships what its README links to: docs/, examples/ and the LICENSE (MPL-2.0 in
// full), besides bin/ and dist/; never a stack's synthesized output or Terraform state.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const REPO = resolve(__dirname, '../..');

it('npm pack lists docs, examples and the LICENSE', () => {
  // --ignore-scripts: the file list is the point here, not the build `prepare` runs.
  const out = execFileSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'docs/terraform-provider.md', 'docs/constructs.md', 'examples/basic/main.ts', 'examples/basic/README.md', 'bin/terraform-provider-keyward.js']));
  expect(files.filter((f) => /(^|\/)(cdktf\.out|\.terraform|node_modules)\/|tfstate/.test(f))).toEqual([]);
}, 60_000);

it('the LICENSE is the MPL-2.0 text that package.json names', () => {
  const pkg = JSON.parse(readFileSync(resolve(REPO, 'package.json'), 'utf8')) as { license: string };
  expect(pkg.license).toBe('MPL-2.0');
  const text = readFileSync(resolve(REPO, 'LICENSE'), 'utf8');
  expect(text.startsWith('Mozilla Public License Version 2.0\n')).toBe(true);
  expect(text).toContain('Exhibit B - "Incompatible With Secondary Licenses" Notice');
});
