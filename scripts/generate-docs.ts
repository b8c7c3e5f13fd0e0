// `npm run docs:generate`: writes the provider's reference pages (docs/index.md,
// docs/resources/*.md) from the schema GetProviderSchema returns, embedding the HCL examples under
// examples/. Pages of resources the provider no longer registers are removed. test/unit/terraform/
// reference-docs.test.ts fails when a page differs from what this writes.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { keywardProvider } from '../src/terraform/keyward-provider';
import { referencePages, resourceExamplePath } from '../src/terraform/docs/reference-pages';

export const REPO = resolve(__dirname, '..');

export function readExample(path: string): string | undefined {
  const file = join(REPO, path);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

export function generatedPages(): Map<string, string> {
  return referencePages(keywardProvider({ env: {} }), readExample);
}

function main(): void {
  const pages = generatedPages();
  const resourcesDir = join(REPO, 'docs', 'resources');
  if (existsSync(resourcesDir)) {
    for (const f of readdirSync(resourcesDir)) if (!pages.has(`docs/resources/${f}`)) rmSync(join(resourcesDir, f));
  }
  for (const [path, text] of pages) {
    mkdirSync(dirname(join(REPO, path)), { recursive: true });
    writeFileSync(join(REPO, path), text);
    console.log(`wrote ${path}`);
  }
  for (const r of keywardProvider({ env: {} }).resources) {
    if (!readExample(resourceExamplePath(r.typeName))) console.warn(`warning: ${r.typeName} has no ${resourceExamplePath(r.typeName)} (its page has no Example Usage)`);
  }
}

if (require.main === module) main();
