// The engine's request core stays apart from its Node adapter (as hono's core from its adapters):
// nothing under src/engine/core/ imports node:http, node:net, node:tls or the adapter's folder,
// and the snapshot agent serves snapshot-auto through the engine's one route table.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '../../../..');
const CORE = join(REPO, 'src/engine/core');

const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/\bfrom\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!);

test('no core file imports sockets or the adapter', () => {
  const files = readdirSync(CORE).filter((f) => f.endsWith('.ts'));
  expect(files.length).toBeGreaterThanOrEqual(7);
  const bad = files.flatMap((f) =>
    importsOf(join(CORE, f))
      .filter((s) => /^node:(http|https|net|tls|http2)$/.test(s) || s.includes('node-adapter'))
      .map((s) => `${f}: ${s}`),
  );
  expect(bad).toEqual([]);
});

test('the agent and the engine take snapshot-auto from the same route table', () => {
  expect(importsOf(join(REPO, 'src/engine/snapshot/family.ts'))).toContain('./config-routes');
  expect(importsOf(join(REPO, 'src/snapshot-agent/api.ts'))).toContain('../engine/snapshot/config-routes');
  expect(importsOf(join(REPO, 'src/snapshot-agent/http-server.ts'))).toContain('../engine/core/pipeline');
});
