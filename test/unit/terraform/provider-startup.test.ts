// Terraform starts the provider several times per command; the starts that only serve the schema
// or validate never reach the server, so loading the provider must not load the HTTP stack
// (undici and the client: about a sixth of a start's CPU). ConfigureProvider loads it.

import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const REPO = resolve(__dirname, '../../..');

it('loading the provider does not load undici or the server client; configuring it does', () => {
  const script = `
    const loaded = () => Object.keys(require.cache).filter((k) => /[\\\\/]undici[\\\\/]|[\\\\/]src[\\\\/]client[\\\\/](options|vault-client)/.test(k)).length;
    const { keywardProvider } = require('./src/terraform/keyward-provider.ts');
    require('./src/terraform/plugin/serve.ts');
    const before = loaded();
    keywardProvider({ env: {} }).configure({ address: 'http://127.0.0.1:1', namespace: null, ca_cert_file: null, skip_tls_verify: null, dialect: 'keyward', fingerprint_salt: 's' })
      .then(() => { process.stdout.write(JSON.stringify({ before, after: loaded() })); process.exit(0); });
  `;
  const r = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  const { before, after } = JSON.parse(r.stdout) as { before: number; after: number };
  expect(before).toBe(0);
  expect(after).toBeGreaterThan(0);
}, 60_000);
