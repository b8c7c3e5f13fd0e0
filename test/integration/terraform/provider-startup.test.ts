// Terraform starts the provider several times per command; the starts that only serve the schema
// or validate never reach the server, so loading the provider does not load the HTTP stack (undici
// and the client: about a sixth of a start's CPU). Configuring does: it looks the token up once, so
// a refused token is one error rather than one per resource (a no-op apply's start pays for that).

import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const REPO = resolve(__dirname, '../../..');

it('loading the provider does not load undici or the server client; configuring (the token check) does, once', () => {
  const script = `
    const loaded = () => Object.keys(require.cache).filter((k) => /[\\\\/]undici[\\\\/]|[\\\\/]src[\\\\/]client[\\\\/]vault-client/.test(k)).length;
    const { keywardProvider } = require('./src/terraform/keyward-provider.ts');
    require('./src/terraform/plugin/serve.ts');
    const before = loaded();
    const p = keywardProvider({ env: { VAULT_TOKEN: 't', VAULT_MAX_RETRIES: '0' } });
    p.configure({ address: 'http://127.0.0.1:1', namespace: null, ca_cert_file: null, skip_tls_verify: null, dialect: 'keyward', fingerprint_salt: 's' })
      .then(async (ctx) => {
        const configured = loaded() > 0;
        const client = ctx.client;
        const used = loaded();
        const same = ctx.client === client;
        await p.stop();
        process.stdout.write(JSON.stringify({ before, configured, used: used > 0, same }));
        process.exit(0);
      });
  `;
  const r = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual({ before: 0, configured: true, used: true, same: true });
}, 60_000);

// zod (the manifest's validators) was ~40% of a start's CPU; the schema-only start and a no-op
// apply's start (configure, no resource change) need none of it.
it('serving the schema and configuring do not load zod or the plan code; the first validate does', () => {
  const script = `
    const loaded = () => Object.keys(require.cache).filter((k) => /[\\\\/]zod[\\\\/]|[\\\\/]src[\\\\/]reconcile[\\\\/]canonical|[\\\\/]resources[\\\\/]role-values/.test(k)).length;
    const { keywardProvider } = require('./src/terraform/keyward-provider.ts');
    const { schemaToWire } = require('./src/terraform/plugin/schema-wire.ts');
    require('./src/terraform/plugin/serve.ts');
    const p = keywardProvider({ env: { VAULT_TOKEN: 't', VAULT_MAX_RETRIES: '0' } });
    for (const r of p.resources) schemaToWire(r.schema);
    p.configure({ address: 'http://127.0.0.1:1', namespace: null, ca_cert_file: null, skip_tls_verify: null, dialect: 'keyward', fingerprint_salt: 's' }).then(() => {
      const before = loaded();
      const backend = p.resources.find((r) => r.typeName === 'keyward_cloud_auth_backend');
      const diags = backend.validate({ path: 'a/', description: null, accessor: null, exclusive_roles: null, retain_on_destroy: null, config: null, roles: {} });
      process.stdout.write(JSON.stringify({ before, after: loaded(), diags: diags.map((d) => d.summary) }));
      process.exit(0);
    });
  `;
  const r = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  const { before, after, diags } = JSON.parse(r.stdout) as { before: number; after: number; diags: string[] };
  expect(before).toBe(0);
  expect(after).toBeGreaterThan(0);
  expect(diags).toEqual([expect.stringContaining('Invalid path')]);
}, 60_000);
