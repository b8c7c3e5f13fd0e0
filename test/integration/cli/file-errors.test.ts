// Every file a command reads, when missing or unreadable, is named in the error together with the
// flag or setting it came from: no raw ENOENT. In-process CLI (the server refuses before it listens).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKeyward } from '../../support/keyward-in-process';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kw-file-errors-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('server --config with a missing seal key file names the setting, the config file and the path', async () => {
  const config = join(dir, 'server.hcl');
  const key = join(dir, 'missing', 'seal.key');
  writeFileSync(config, `listen = "127.0.0.1:0"\ndata_dir = "${join(dir, 'data')}"\nseal_key_file = "${key}"\ntls_disable = true\nedition = "enterprise"\n`);
  const r = await runKeyward('server', '--config', config);
  expect({ code: r.code, err: r.err }).toEqual({ code: 1, err: `Error: seal_key_file (in --config ${config}): ${key} does not exist\n` });
});

test('server --config naming a config file that does not exist says which flag', async () => {
  const config = join(dir, 'nope.hcl');
  const r = await runKeyward('server', '--config', config);
  expect({ code: r.code, err: r.err }).toEqual({ code: 1, err: `Error: --config: ${config} does not exist\n` });
});

test('plan --ca-cert naming a missing file names the flag and the file', async () => {
  const manifest = join(dir, 'm.json');
  writeFileSync(manifest, JSON.stringify({ version: 1, fingerprintSalt: '0123456789abcdef0123456789abcdef', authBackends: [] }));
  const ca = join(dir, 'ca.pem');
  const saved = { ...process.env };
  process.env.VAULT_TOKEN = 't';
  process.env.VAULT_MAX_RETRIES = '0';
  delete process.env.VAULT_ADDR;
  try {
    const r = await runKeyward('plan', '--manifest', manifest, '--address', 'https://127.0.0.1:9', '--ca-cert', ca);
    expect({ code: r.code, err: r.err }).toEqual({
      code: 1,
      err: `Error: the CA certificate file (--ca-cert, VAULT_CACERT or the provider's ca_cert_file): ${ca} does not exist\n`,
    });
  } finally {
    process.env = saved;
  }
});
