// Values written through the API are encrypted at rest: no plaintext in any database file.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestEngine, api } from '../../support/engine';
import { authMethodFactories } from '../../../src/engine/auth/methods';

it('a secret written through the API is not in plaintext in the database files', async () => {
  const engine = await startTestEngine();
  const marker = 'S3CRET-MARKER-7f9c2d';
  expect((await api(engine, 'PUT', 'sys/policy/secretive', { body: { policy: `# ${marker}\npath "x" { capabilities = ["read"] }` } })).status).toBe(204);
  const t = await api(engine, 'POST', 'auth/token/create', { body: { meta: { note: marker }, ttl: '1h' } });
  expect(t.status).toBe(200);
  if (authMethodFactories.some((f) => f.type === 'cloud')) {
    await api(engine, 'POST', 'sys/auth/cloud', { body: { type: 'cloud' } });
    await api(engine, 'POST', 'auth/cloud/config', { body: { iam_alias: 'unique_id', custom_endpoint: { api: `http://127.0.0.1:1/${marker}` } } });
  }
  await engine.close();
  const files = readdirSync(engine.dataDir).filter((f) => f.startsWith('keyward.db'));
  expect(files).toContain('keyward.db');
  let bytes = 0;
  for (const f of files) {
    const content = readFileSync(join(engine.dataDir, f));
    bytes += content.length;
    expect(content.includes(Buffer.from(marker))).toBe(false);
    expect(content.includes(Buffer.from(t.body.auth.client_token))).toBe(false);
  }
  expect(bytes).toBeGreaterThan(0);
});

it('the dev seal key file is created with mode 0600', async () => {
  const engine = await startTestEngine();
  const { statSync } = await import('node:fs');
  expect(statSync(join(engine.dataDir, 'seal.key')).mode & 0o777).toBe(0o600);
  await engine.close();
});
