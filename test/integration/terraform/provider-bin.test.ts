// bin/terraform-provider-keyward.js picks what to run: the compiled provider when the package has no
// sources (an install) or when dist/ is newer than every source file (a built checkout: Terraform
// starts the provider several times per command and tsx costs seconds each), else the sources; of a
// build, the one-file bundle (run with its code cache) unless a later tsc rewrote the compiled entry.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../../..');

describe('bin/terraform-provider-keyward.js', () => {
  let root: string;
  const source = () => join(root, 'src', 'terraform', 'main.ts');
  const compiled = () => join(root, 'dist', 'src', 'terraform', 'main.js');
  const at = (file: string, seconds: number) => utimesSync(file, seconds, seconds);
  const run = () => spawnSync(process.execPath, [join(root, 'bin', 'terraform-provider-keyward.js')], { encoding: 'utf8', timeout: 60_000 }).stdout.trim();

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'keyward-provider-bin-'));
    mkdirSync(join(root, 'bin'));
    copyFileSync(join(REPO, 'bin', 'terraform-provider-keyward.js'), join(root, 'bin', 'terraform-provider-keyward.js'));
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
    mkdirSync(join(root, 'src', 'terraform'), { recursive: true });
    writeFileSync(source(), "export function main(): void {\n  process.stdout.write('sources\\n');\n}\n");
    writeFileSync(join(root, 'src', 'other.ts'), 'export const x = 1;\n');
    mkdirSync(join(root, 'dist', 'src', 'terraform', 'plugin'), { recursive: true });
    writeFileSync(compiled(), "exports.main = () => process.stdout.write('compiled\\n');\n");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('runs dist/ when it is newer than every source file', () => {
    at(source(), 1_000);
    at(join(root, 'src', 'other.ts'), 1_000);
    at(compiled(), 2_000);
    expect(run()).toBe('compiled');
  });

  describe("with the build's bundle", () => {
    const bundle = () => join(root, 'dist', 'src', 'terraform', 'plugin', 'provider.bundle.js');
    beforeEach(() => {
      // dist's bundle-loader.js: the sources' loader, through tsx.
      writeFileSync(
        join(root, 'dist', 'src', 'terraform', 'plugin', 'bundle-loader.js'),
        `require('tsx/cjs'); module.exports = require(${JSON.stringify(join(REPO, 'src', 'terraform', 'plugin', 'bundle-loader.ts'))});\n`,
      );
      writeFileSync(bundle(), "exports.main = () => process.stdout.write('bundle\\n');\n");
      at(source(), 1_000);
      at(join(root, 'src', 'other.ts'), 1_000);
    });

    it('runs the bundle when it is at least as new as the compiled entry', () => {
      at(compiled(), 2_000);
      at(bundle(), 2_000);
      expect(run()).toBe('bundle');
    }, 60_000);

    it('runs the compiled modules when tsc rewrote them after the bundle was made', () => {
      at(bundle(), 2_000);
      at(compiled(), 3_000);
      expect(run()).toBe('compiled');
    });
  });

  it('runs the sources through tsx when any source file changed after the build', () => {
    at(source(), 1_000);
    at(join(root, 'src', 'other.ts'), 3_000);
    at(compiled(), 2_000);
    expect(run()).toBe('sources');
  }, 60_000);

  it('runs the sources when there is no build', () => {
    rmSync(join(root, 'dist'), { recursive: true });
    expect(run()).toBe('sources');
  }, 60_000);

  it('runs dist/ in an installed package (no sources)', () => {
    rmSync(join(root, 'src'), { recursive: true });
    expect(run()).toBe('compiled');
  });
});
